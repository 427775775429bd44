// README screenshots from a real n8n editor: builds and packs this package, starts the local emulator, opens
// a throw-away n8n 2.x instance with the package installed as a community package, imports a credential
// (pointing at the emulator) and two example workflows, runs `n8n start` on a free loopback port, sets up
// the owner account through n8n's REST API, then drives headless Chromium (Debian's package) with
// playwright-core and writes PNGs to docs/images/.
//
//   node --import tsx scripts/screenshots.mjs          (the emulator is TypeScript, hence tsx)
//
// Needs:  /usr/bin/chromium       apt-get update && apt-get install -y chromium   (never `playwright install`)
//         playwright-core          installed on first run into <n8n cache>/screenshot-tools (outside the repo,
//                                  not in package.json); the n8n host is installed on first run too.
// Environment:
//   GS_SCREENSHOTS_OUT     output folder (default docs/images)
//   GS_SCREENSHOTS_DEBUG=1 keep going after a failed shot and save full-page captures of failures to the
//                          output folder as debug-*.png; print n8n's log tail on errors
//   CHROMIUM               browser binary (default /usr/bin/chromium)
//   GS_N8N_CACHE           n8n host cache (default ~/.cache/n8n-nodes-generation-service)
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';

import { cacheDir, cleanEnv, ensureHost, freePort, run, startServer } from './n8n-host.mjs';
import { REPO, loadExample, openInstance, packOnce, startEmulator } from '../test/e2e/harness.mjs';

const PLAYWRIGHT_VERSION = '1.65.1';
const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';
const OUT = path.resolve(process.env.GS_SCREENSHOTS_OUT || path.join(REPO, 'docs', 'images'));
const DEBUG = process.env.GS_SCREENSHOTS_DEBUG === '1';
const VIEWPORT = { width: 1400, height: 900 };
const OWNER = {
	email: 'owner@example.com',
	firstName: 'Demo',
	lastName: 'Owner',
	password: 'Screenshots-2026',
};
const CRED = { id: 'gsEmulatorCred', name: 'Generation Service (local emulator)' };

const say = (msg) => process.stdout.write(`[screenshots] ${msg}\n`);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** playwright-core from a tools folder outside the repo (installed there on first use). */
async function loadPlaywright() {
	const tools = path.join(cacheDir(), 'screenshot-tools');
	const pkg = path.join(tools, 'node_modules', 'playwright-core', 'package.json');
	const installed = fs.existsSync(pkg) && JSON.parse(fs.readFileSync(pkg, 'utf8')).version;
	if (installed !== PLAYWRIGHT_VERSION) {
		say(`installing playwright-core@${PLAYWRIGHT_VERSION} into ${tools} (no browser download)`);
		fs.mkdirSync(tools, { recursive: true });
		if (!fs.existsSync(path.join(tools, 'package.json'))) {
			fs.writeFileSync(
				path.join(tools, 'package.json'),
				JSON.stringify({ name: 'gs-screenshot-tools', private: true }, null, '\t') + '\n',
			);
		}
		const r = await run(
			'npm',
			[
				'install',
				'--prefix',
				tools,
				'--no-audit',
				'--no-fund',
				'--loglevel=warn',
				`playwright-core@${PLAYWRIGHT_VERSION}`,
			],
			{ cwd: tools, env: cleanEnv({ PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD: '1' }) },
		);
		if (r.code !== 0)
			throw new Error(`npm install playwright-core failed:\n${r.stderr}${r.stdout}`);
	}
	return createRequire(path.join(tools, 'package.json'))('playwright-core');
}

/** `n8n start` for an instance on a free loopback port; resolves once /healthz answers. */
async function dismissPopups(page) {
	for (let round = 0; round < 3; round++) {
		let closed = false;
		for (const sel of [
			'.el-dialog:not([data-test-id="editCredential-modal"]) .el-dialog__headerbtn',
			'.el-message-box__headerbtn',
			'[data-test-id="whats-new-modal"] [data-test-id="close-button"]',
			'.el-notification .el-notification__closeBtn',
			'[data-test-id="ask-assistant-floating-button"] ~ * [aria-label="Close"]',
		]) {
			const items = page.locator(sel);
			const n = await items.count();
			for (let i = 0; i < n; i++) {
				const el = items.nth(i);
				if (await el.isVisible().catch(() => false)) {
					await el.click({ timeout: 2000 }).catch(() => {});
					closed = true;
				}
			}
		}
		// callouts and banners with a "dismiss" / "got it" button
		for (const name of [/^got it$/i, /^dismiss$/i, /^skip$/i, /^maybe later$/i, /^not now$/i]) {
			const btn = page.getByRole('button', { name });
			const n = await btn.count();
			for (let i = 0; i < n; i++) {
				if (
					await btn
						.nth(i)
						.isVisible()
						.catch(() => false)
				) {
					await btn
						.nth(i)
						.click({ timeout: 2000 })
						.catch(() => {});
					closed = true;
				}
			}
		}
		if (!closed) return;
		await sleep(400);
	}
}

async function openWorkflow(page, base, workflowId) {
	await page.goto(`${base}/workflow/${workflowId}`, { waitUntil: 'domcontentloaded' });
	await page.locator('[data-test-id="canvas-node"]').first().waitFor({ timeout: 60_000 });
	await sleep(1500); // fit-to-view animation, icons
	await dismissPopups(page);
}

async function openNode(page, nodeName) {
	const node = page.locator(`[data-test-id="canvas-node"][data-node-name="${nodeName}"]`);
	await node.waitFor({ timeout: 20_000 });
	await node.dblclick();
	const ndv = page.locator('[data-test-id="ndv"]');
	await ndv.waitFor({ timeout: 20_000 });
	await page.locator('[data-test-id="node-parameters"]').waitFor({ timeout: 20_000 });
	await sleep(1000); // resource locators and option lists load from the backend
	await dismissPopups(page);
	return ndv;
}

async function closeNdv(page) {
	const close = page.locator('[data-test-id="ndv-close-button"]');
	if (await close.isVisible().catch(() => false)) await close.click();
	else await page.keyboard.press('Escape');
	await page
		.locator('[data-test-id="ndv"]')
		.waitFor({ state: 'detached', timeout: 10_000 })
		.catch(() => {});
}

/**
 * Screenshot of the NDV's middle column (Parameters/Settings tabs and the node's fields), without the empty
 * input and output panes. The viewport is made taller first so that every field fits without scrolling.
 */
async function shotOfParameters(page, file) {
	const measure = () =>
		page.evaluate(() => {
			const params = document.querySelector('[data-test-id="node-parameters"]');
			if (!params) return undefined;
			// the main panel: the first ancestor that also holds the panel's header ("Execute step")
			let panel = params;
			while (panel.parentElement && !/Execute step/.test(panel.textContent ?? ''))
				panel = panel.parentElement;
			let overflow = 0;
			for (const el of panel.querySelectorAll('*')) {
				const oy = getComputedStyle(el).overflowY;
				if ((oy === 'auto' || oy === 'scroll') && el.scrollHeight > el.clientHeight + 1)
					overflow = Math.max(overflow, el.scrollHeight - el.clientHeight);
			}
			const r = panel.getBoundingClientRect();
			return { x: r.x, y: r.y, width: r.width, height: r.height, overflow };
		});
	let m = await measure();
	if (!m) throw new Error('node parameters not found');
	const vp = page.viewportSize();
	if (m.overflow > 0) {
		await page.setViewportSize({
			width: vp.width,
			height: Math.min(2400, vp.height + m.overflow + 24),
		});
		await sleep(800);
		m = await measure();
	}
	try {
		const clip = {
			x: Math.max(0, Math.floor(m.x)),
			y: Math.max(0, Math.floor(m.y)),
			width: Math.ceil(m.width),
			height: Math.ceil(m.height),
		};
		await page.screenshot({ path: path.join(OUT, file), clip });
		return clip;
	} finally {
		await page.setViewportSize(vp);
	}
}

/** Screenshot of a locator's box, padded and clipped to the viewport. */
async function shotOf(page, locator, file, pad = 8) {
	const box = await locator.boundingBox();
	if (!box) throw new Error(`nothing visible to capture for ${file}`);
	const vp = page.viewportSize();
	const x = Math.max(0, Math.floor(box.x - pad));
	const y = Math.max(0, Math.floor(box.y - pad));
	const clip = {
		x,
		y,
		width: Math.min(vp.width - x, Math.ceil(box.width + 2 * pad)),
		height: Math.min(vp.height - y, Math.ceil(box.height + 2 * pad)),
	};
	await page.screenshot({ path: path.join(OUT, file), clip });
	return clip;
}

async function main() {
	if (!fs.existsSync(CHROMIUM)) {
		throw new Error(
			`${CHROMIUM} not found: install Debian's Chromium (apt-get update && apt-get install -y chromium) or set CHROMIUM`,
		);
	}
	const { chromium } = await loadPlaywright();
	fs.mkdirSync(OUT, { recursive: true });

	say('build and pack the package…');
	const tarball = await packOnce();
	say('start the emulator…');
	// port 4010 (the address the credential's help text uses) when free, so the Base URL shown is stable
	const emu = await startEmulator({ port: 4010 }).catch(() => startEmulator());
	say('prepare n8n (the first run installs it into the cache)…');
	await ensureHost({ version: '2' });
	const inst = await openInstance({ version: '2' });
	let n8n;
	let browser;
	let userDataDir;
	const results = [];
	try {
		await inst.installPackage(tarball);
		await inst.importCredentials([
			{
				id: CRED.id,
				name: CRED.name,
				type: 'generationServiceApi',
				data: { apiKey: emu.keys.full, baseUrl: emu.baseUrl },
			},
		]);
		const cr = loadExample('character-replacement.json');
		const t2v = loadExample('text-to-video-batch.json');
		await inst.importWorkflow([cr, t2v]);
		say(`imported workflows ${cr.id}, ${t2v.id}`);

		n8n = await startServer(inst, { log: say });
		userDataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'gs-chromium-'));
		// a fresh profile per run: launchPersistentContext is Playwright's way to pass --user-data-dir
		browser = await chromium.launchPersistentContext(userDataDir, {
			executablePath: CHROMIUM,
			headless: true,
			viewport: VIEWPORT,
			deviceScaleFactor: 1,
			locale: 'en-US',
			args: [
				'--headless',
				'--no-sandbox',
				'--disable-gpu',
				'--disable-quic',
				'--no-first-run',
				'--disable-background-networking',
				'--disable-component-update',
				'--disable-sync',
				'--disable-dev-shm-usage',
			],
		});
		const context = browser;
		const page = context.pages()[0] ?? (await context.newPage());

		// owner account through the REST API; the response sets the auth cookie in this browser context
		const setup = await context.request.post(`${n8n.base}/rest/owner/setup`, { data: OWNER });
		if (!setup.ok()) throw new Error(`owner setup: HTTP ${setup.status()} ${await setup.text()}`);
		say('owner account set up');

		const shot = async (file, what, fn, { optional = false } = {}) => {
			try {
				await fn();
				const kb = Math.round(fs.statSync(path.join(OUT, file)).size / 1024);
				results.push(`${file} (${kb} KB): ${what}`);
				say(`wrote ${path.relative(process.cwd(), path.join(OUT, file))} (${kb} KB)`);
			} catch (e) {
				if (optional) {
					fs.rmSync(path.join(OUT, file), { force: true }); // never leave a stale or misleading image
					say(`WARNING: skipped optional ${file}: ${e.message}`);
					results.push(`${file}: skipped (${e.message.split('\n')[0]})`);
				} else if (DEBUG) {
					await page.screenshot({ path: path.join(OUT, `debug-${file}`) }).catch(() => {});
					say(`FAILED ${file}: ${e.message}`);
					results.push(`${file}: FAILED ${e.message.split('\n')[0]}`);
				} else throw e;
			}
		};

		await openWorkflow(page, n8n.base, cr.id);
		// in case n8n redirected to the sign-in page (cookie not accepted), sign in through the form
		if (/\/signin/.test(page.url())) throw new Error('n8n asked to sign in after the owner setup');

		await shot(
			'workflow-character-replacement.png',
			'the character-replacement example on the canvas',
			async () => {
				await page.keyboard.press('1'); // zoom to fit
				await sleep(800);
				await page.mouse.move(5, VIEWPORT.height - 5);
				// crop to the band of nodes (the fitted canvas is mostly empty above and below)
				const boxes = await page.locator('[data-test-id="canvas-node"]').evaluateAll((els) =>
					els.map((e) => {
						const r = e.getBoundingClientRect();
						return { top: r.top, bottom: r.bottom };
					}),
				);
				const top = Math.max(70, Math.min(...boxes.map((b) => b.top)) - 90);
				const bottom = Math.min(VIEWPORT.height, Math.max(...boxes.map((b) => b.bottom)) + 110);
				await page.screenshot({
					path: path.join(OUT, 'workflow-character-replacement.png'),
					clip: { x: 41, y: top, width: VIEWPORT.width - 41, height: bottom - top },
				});
			},
		);

		await shot(
			'job-create-character-replacement.png',
			'Job node, Create, mode Character Replacement',
			async () => {
				await openNode(page, 'Create');
				await shotOfParameters(page, 'job-create-character-replacement.png');
				await closeNdv(page);
			},
		);

		await shot(
			'credential-generation-service-api.png',
			'the "Generation Service API" credential dialog',
			async () => {
				await page.goto(`${n8n.base}/home/credentials/${CRED.id}`, {
					waitUntil: 'domcontentloaded',
				});
				const modal = page.locator('[data-test-id="editCredential-modal"]');
				await modal.waitFor({ timeout: 30_000 });
				await sleep(1500);
				const dialog = modal.locator('.el-dialog').first();
				const target = (await dialog.count()) ? dialog : modal;
				await shotOf(page, target, 'credential-generation-service-api.png', 0);
				// never publish a key: the API key input must be a masked password field
				const pw = modal.locator('input[type="password"]');
				if (!(await pw.count())) throw new Error('API key field is not masked');
				await page.keyboard.press('Escape');
			},
		);

		await openWorkflow(page, n8n.base, t2v.id);
		await shot('job-create-text-to-video.png', 'Job node, Create, mode Text to Video', async () => {
			await openNode(page, 'Create and Wait');
			await shotOfParameters(page, 'job-create-text-to-video.png');
			await closeNdv(page);
		});

		// optional: n8n leaves nodes whose codex categories include "AI" out of this search (unless the canvas
		// already holds AI nodes), so this shot only exists when the package's nodes are findable
		await shot(
			'node-creator-search.png',
			'node creator search for "Generation Service" listing the package\'s nodes',
			async () => {
				const plus = page.locator('[data-test-id="node-creator-plus-button"]').first();
				if (await plus.isVisible().catch(() => false)) await plus.click();
				else await page.keyboard.press('Tab');
				const search = page
					.locator(
						'[data-test-id="node-creator-search-bar"] input, input[data-test-id="node-creator-search-bar"]',
					)
					.first();
				await search.waitFor({ timeout: 10_000 });
				await search.fill('Generation Service');
				await sleep(1500);
				const names = await page.locator('[data-test-id="node-creator-item-name"]').allInnerTexts();
				if (!names.some((n) => n.includes('Generation Service'))) {
					await page.keyboard.press('Escape');
					throw new Error(
						'the node creator finds none of the package\'s nodes (n8n hides nodes whose codex "categories" contain "AI" from this search; use the documented categories)',
					);
				}
				const creator = page.locator('[data-test-id="node-creator"]');
				const box = await creator.boundingBox();
				const bottom = await page
					.locator('[data-test-id="node-creator-item-name"]')
					.last()
					.evaluate((el) => {
						const item =
							el.closest('[data-test-id="item-iterator-item"]') ?? el.parentElement.parentElement;
						return item.getBoundingClientRect().bottom;
					});
				await page.screenshot({
					path: path.join(OUT, 'node-creator-search.png'),
					clip: {
						x: Math.floor(box.x),
						y: Math.floor(box.y),
						width: Math.ceil(box.width),
						height: Math.min(Math.ceil(bottom - box.y + 24), Math.ceil(box.height)),
					},
				});
				await page.keyboard.press('Escape');
			},
			{ optional: true },
		);
	} catch (e) {
		if (n8n) say(`n8n log tail:\n${n8n.tail()}`);
		throw e;
	} finally {
		await browser?.close().catch(() => {});
		if (userDataDir) fs.rmSync(userDataDir, { recursive: true, force: true });
		await n8n?.stop();
		await inst.close();
		await emu.close();
	}
	say('done:');
	for (const r of results) say(`  ${r}`);
	if (results.some((r) => r.includes('FAILED'))) process.exitCode = 1;
}

main().catch((error) => {
	process.stderr.write(`${error.stack ?? error}\n`);
	process.exitCode = 1;
});
