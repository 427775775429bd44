// The n8n editor in a real browser: Debian's Chromium (or another Chromium-family browser, found by
// tools/lib/browser-path.mjs) driven by playwright-core (a devDependency; never a browser download). Shared by
// the browser suites (editor.test.mjs writes the README screenshots).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { chromium } from 'playwright-core';

import { browserAdvice, findBrowser } from '../../tools/lib/browser-path.mjs';
import { pause } from '../../tools/lib/wait.mjs';

export const VIEWPORT = { width: 1400, height: 900 };

/**
 * A fresh headless Chromium profile (deleted by `close()`): returns { context, page, close }. Throws with the
 * install line when Debian's chromium is missing.
 */
export async function launchBrowser({ viewport = VIEWPORT } = {}) {
	const browser = findBrowser();
	if (!browser) throw new Error(browserAdvice());
	const userDataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'gs-chromium-'));
	// launchPersistentContext is Playwright's way to pass --user-data-dir
	const context = await chromium.launchPersistentContext(userDataDir, {
		executablePath: browser.path,
		headless: true,
		viewport,
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
	const page = context.pages()[0] ?? (await context.newPage());
	const close = async () => {
		await context.close().catch(() => {});
		fs.rmSync(userDataDir, { recursive: true, force: true });
	};
	return { context, page, close };
}

/** Close whatever onboarding / announcement popups n8n shows over the editor. */
export async function dismissPopups(page) {
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
		await pause(400);
	}
}

/** Open a workflow in the editor and wait for its canvas. */
export async function openWorkflow(page, base, workflowId) {
	await page.goto(`${base}/workflow/${workflowId}`, { waitUntil: 'domcontentloaded' });
	await page.locator('[data-test-id="canvas-node"]').first().waitFor({ timeout: 60_000 });
	await pause(1500); // fit-to-view animation, icons
	await dismissPopups(page);
}

/** Sign in through n8n's sign-in page with `{ email, password }`; resolves once the editor left the page. */
export async function signIn(page, base, { email, password }) {
	await page.goto(`${base}/signin`, { waitUntil: 'domcontentloaded' });
	await page.locator('input[name="emailOrLdapLoginId"]').fill(email);
	await page.locator('input[name="password"]').fill(password);
	await page.locator('[data-test-id="form-submit-button"]').click();
	await page.waitForURL((u) => !/\/signin/.test(u.pathname), { timeout: 60_000 });
	await dismissPopups(page);
}

/**
 * Open a node's parameters panel (NDV) by double-clicking it on the canvas. `settle: false` skips the pause
 * for lists that load from the backend (callers that wait for what they read themselves).
 */
export async function openNode(page, nodeName, { settle = true } = {}) {
	const node = page.locator(`[data-test-id="canvas-node"][data-node-name="${nodeName}"]`);
	await node.waitFor({ timeout: 20_000 });
	await node.dblclick();
	const ndv = page.locator('[data-test-id="ndv"]');
	await ndv.waitFor({ timeout: 20_000 });
	await page.locator('[data-test-id="node-parameters"]').waitFor({ timeout: 20_000 });
	if (!settle) return ndv;
	await pause(1000); // resource locators and option lists load from the backend
	await dismissPopups(page);
	return ndv;
}

export async function closeNdv(page) {
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
 * input and output panes, written to `file` (a path). The viewport is made taller first so that every field fits without scrolling.
 */
export async function shotOfParameters(page, file) {
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
		await pause(800);
		m = await measure();
	}
	try {
		const clip = {
			x: Math.max(0, Math.floor(m.x)),
			y: Math.max(0, Math.floor(m.y)),
			width: Math.ceil(m.width),
			height: Math.ceil(m.height),
		};
		await page.screenshot({ path: file, clip });
		return clip;
	} finally {
		await page.setViewportSize(vp);
	}
}

/** Screenshot of a locator's box, padded and clipped to the viewport. */
export async function shotOf(page, locator, file, pad = 8) {
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
	await page.screenshot({ path: file, clip });
	return clip;
}

/**
 * Open `nodeName`'s panel and check its output shows job `jobId`'s MP4 (the Binary view: `<jobId>.mp4`,
 * video/mp4), then close it: what a user sees after a run that ends in Wait for Job.
 */
export async function expectMp4InOutput(page, nodeName, jobId) {
	await openNode(page, nodeName);
	const output = page.locator('[data-test-id="output-panel"]');
	await output.waitFor();
	await output.getByText(jobId).first().waitFor({ timeout: 60_000 });
	const binary = output.getByRole('radio', { name: /binary/i });
	if (await binary.count()) await binary.first().click();
	else
		await output
			.getByText(/^binary$/i)
			.first()
			.click();
	await output.getByText('video/mp4').first().waitFor({ timeout: 30_000 });
	const text = await output.innerText();
	if (!text.includes(`${jobId}.mp4`))
		throw new Error(
			`the output panel of ${nodeName} does not name ${jobId}.mp4: ${text.slice(0, 500)}`,
		);
	await closeNdv(page);
}
