// README screenshots from a real n8n editor: builds and packs this package, starts the local emulator, opens
// a throw-away n8n 2.x instance with the package installed as a community package, imports a credential
// (pointing at the emulator) and two example workflows, runs `n8n start` on a free loopback port, sets up
// the owner account through n8n's REST API, then drives headless Chromium (Debian's package) with
// playwright-core and writes PNGs to docs/images/.
//
//   node --import tsx scripts/screenshots.mjs          (the emulator is TypeScript, hence tsx)
//
// Needs:  /usr/bin/chromium       apt-get update && apt-get install -y chromium   (never `playwright install`)
//         playwright-core          a devDependency (test/e2e/browser.mjs); the n8n host is installed on first run.
// Environment:
//   GS_SCREENSHOTS_OUT     output folder (default docs/images)
//   GS_SCREENSHOTS_DEBUG=1 keep going after a failed shot and save full-page captures of failures to the
//                          output folder as debug-*.png; print n8n's log tail on errors
//   CHROMIUM               browser binary (default /usr/bin/chromium)
//   GS_N8N_CACHE           n8n host cache (default ~/.cache/n8n-nodes-generation-service)
import fs from 'node:fs';
import path from 'node:path';

import { ensureHost, startServer } from './n8n-host.mjs';
import {
	VIEWPORT,
	closeNdv,
	launchBrowser,
	openNode,
	openWorkflow,
	shotOf,
	shotOfParameters,
	sleep,
} from '../test/e2e/browser.mjs';
import { REPO, loadExample, openInstance, packOnce, startEmulator } from '../test/e2e/harness.mjs';

const OUT = path.resolve(process.env.GS_SCREENSHOTS_OUT || path.join(REPO, 'docs', 'images'));
const DEBUG = process.env.GS_SCREENSHOTS_DEBUG === '1';
const OWNER = {
	email: 'owner@example.com',
	firstName: 'Demo',
	lastName: 'Owner',
	password: 'Screenshots-2026',
};
const CRED = { id: 'gsEmulatorCred', name: 'Generation Service (local emulator)' };

const say = (msg) => process.stdout.write(`[screenshots] ${msg}\n`);

async function main() {
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
		browser = await launchBrowser();
		const { context, page } = browser;

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
				await shotOfParameters(page, path.join(OUT, 'job-create-character-replacement.png'));
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
				await shotOf(page, target, path.join(OUT, 'credential-generation-service-api.png'), 0);
				// never publish a key: the API key input must be a masked password field
				const pw = modal.locator('input[type="password"]');
				if (!(await pw.count())) throw new Error('API key field is not masked');
				await page.keyboard.press('Escape');
			},
		);

		await openWorkflow(page, n8n.base, t2v.id);
		await shot('job-create-text-to-video.png', 'Job node, Create, mode Text to Video', async () => {
			await openNode(page, 'Create and Wait');
			await shotOfParameters(page, path.join(OUT, 'job-create-text-to-video.png'));
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
		await browser?.close();
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
