// The n8n editor as a no-code user meets the package, in a real Chromium (Debian's, driven by playwright-core):
// one n8n 2.x started as `npm start` starts it (scripts/start.mjs: the packed package, the emulator, a
// credential, every example imported), plus a workflow holding one node per form state and a workflow whose
// item fails. The suite logs in through the sign-in page and checks:
//   - every form (each operation, each mode of Quote/Create, each value of a field that shows or hides
//     others) shows exactly the fields and "Add option" entries that the node descriptions of the build
//     define (n8n-workflow's displayOptions logic, test/e2e/forms.mjs), and docs/nodes.md's tables list the same;
//   - the pickers list the emulator's assets (videos or images as the field needs) and personas;
//   - the credential test passes on the emulator and says what is wrong in the package's English (a Base URL
//     without /v1, a web page, a wrong key);
//   - the character-replacement example runs from "Execute workflow" and its MP4 shows in the output panel;
//   - a failing item shows the package's English message (cause, what to do, Request ID) in the error panel;
//   - every example opens (at the zoom n8n chooses) with its sticky notes readable, their text inside them, none
//     covering a node, its name or another note (tools/lib/example-notes.mjs; test/tools/example-notes.test.mjs
//     checks the same on the JSON);
// and takes the screenshots README and docs/nodes.md show: into a temp folder, or with GS_EDITOR_SHOTS=update
// (`npm run screenshots`) into docs/images/ (tools/lib/screenshots.mjs), so npm test leaves the tree clean.
//
//   GS_E2E_HOSTS=2 node --import tsx --test test/e2e/editor.test.mjs
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { after, afterEach, before, describe, it } from 'node:test';

import { freePort } from '../../tools/lib/net.mjs';
import { noteRect, notesOf, openingZoom, overlaps } from '../../tools/lib/example-notes.mjs';
import { CREDENTIAL, EXAMPLES, OWNER_LOGIN, startLocal } from '../../tools/lib/local-editor.mjs';
import { screenshotFolder } from '../../tools/lib/screenshots.mjs';
import { pause, waitUntil } from '../../tools/lib/wait.mjs';
import { getJob, manualTrigger, workflow } from '../../tools/lib/workflow.mjs';
import {
	VIEWPORT,
	closeNdv,
	dismissPopups,
	expectMp4InOutput,
	launchBrowser,
	openNode,
	openWorkflow,
	shotOf,
	shotOfParameters,
	signIn,
} from './browser.mjs';
import {
	formStates,
	formsWorkflow,
	nodeDescriptions,
	readmeDifferences,
	unpacked,
} from './forms.mjs';
import { INSTALL_TIMEOUT_MS, REPO, e2eHosts, loadExample, packOnce } from './harness.mjs';

const WRONG_KEY_CREDENTIAL = { id: 'gsWrongKeyCred', name: 'Generation Service (wrong key)' };
const NO_V1_CREDENTIAL = { id: 'gsNoV1Cred', name: 'Generation Service (Base URL without /v1)' };
const WEB_PAGE_CREDENTIAL = { id: 'gsWebPageCred', name: 'Generation Service (a web page)' };
const FORMS_WORKFLOW = 'gsEditorForms';
const FAILING_WORKFLOW = 'gsEditorFailing';
const MISSING_JOB = `job_${'0'.repeat(32)}`;
/** The smallest a note's body text may be drawn when n8n opens an example (14 px at zoom 0.79). */
const READABLE_PX = 11;

/** Manual Trigger → Job "Get" of a job that does not exist: the item fails with not_found. */
const failingWorkflow = () =>
	workflow({
		id: FAILING_WORKFLOW,
		name: 'Editor suite: a failing item',
		ids: '10000000',
		nodes: [
			manualTrigger(),
			getJob('Get Missing Job', MISSING_JOB, {
				credential: CREDENTIAL,
				typeVersion: 1.1,
				position: [240, 0],
			}),
		],
	});

/** Names of the fields the open form shows (top level: not the options added inside a collection). */
function readFormNames(page) {
	return page.evaluate(() => {
		const root = document.querySelector('[data-test-id="node-parameters"]');
		if (!root) return [];
		const names = [];
		for (const label of root.querySelectorAll('label[for]')) {
			if (!label.checkVisibility()) continue;
			// inside a collection or fixed collection (Options, Poll Times): not a field of the form itself
			if (label.closest('[data-test-id="parameter-item"].indent')) continue;
			if (label.closest('[class*="_collectionParameter_"], [class*="_fixedCollectionParameter_"]'))
				continue;
			if (!label.closest('[data-test-id="parameter-item"]')) continue;
			names.push(label.getAttribute('for'));
		}
		return [...new Set(names)];
	});
}

/**
 * What the open form's "Add option" offers. n8n shows a list for a collection of several options, and for a
 * collection of one a button that adds it at once: then the option is added, read, and deleted again.
 */
async function readAddOptions(page, expected) {
	const root = page.locator('[data-test-id="node-parameters"]');
	const add = root.locator('[data-test-id="collection-parameter-add"]');
	// the collection renders a frame after the fields (a form of no fields matches at once): where the
	// description has options, give it time to appear; where it has none, a control that shows is reported
	if (expected.length > 0)
		await add
			.first()
			.waitFor({ timeout: 20_000 })
			.catch(() => {});
	if ((await add.count()) === 0) return [];
	const isButton = await add.first().evaluate((el) => el.tagName === 'BUTTON');
	if (isButton) {
		await add.first().click();
		const added = root.locator('[data-test-id="parameter-item"].indent label[for]');
		await added.first().waitFor({ timeout: 20_000 });
		const names = (await added.allInnerTexts()).map((t) => t.split('\n')[0].trim());
		await root
			.locator('[data-test-id="parameter-item"].indent button[title="Delete"]')
			.first()
			.click();
		await added.first().waitFor({ state: 'detached', timeout: 20_000 });
		return names;
	}
	await add.first().click();
	const items = page.locator('[data-test-id="collection-parameter-option"]:visible');
	await items.first().waitFor({ timeout: 20_000 });
	const texts = (await items.allInnerTexts()).map((t) => t.trim());
	await page.keyboard.press('Escape');
	await page
		.locator('[data-test-id="collection-parameter-option"]:visible')
		.first()
		.waitFor({ state: 'hidden', timeout: 10_000 })
		.catch(() => {});
	return texts;
}

const sameSet = (a, b) =>
	a.length === b.length && [...a].sort().join('\n') === [...b].sort().join('\n');

describe('docs/nodes.md tables of the forms', () => {
	let pkg;
	before(async () => (pkg = unpacked(await packOnce())), { timeout: INSTALL_TIMEOUT_MS });
	after(() => pkg && fs.rmSync(path.dirname(pkg), { recursive: true, force: true }));
	it('docs/nodes.md lists the fields and options of every form the node descriptions define', () => {
		const problems = readmeDifferences(
			formStates(nodeDescriptions(pkg)),
			fs.readFileSync(path.join(REPO, 'docs', 'nodes.md'), 'utf8'),
		);
		assert.deepEqual(problems, [], `docs/nodes.md and the forms disagree:\n${problems.join('\n')}`);
	});
});

if (e2eHosts().includes('2')) {
	describe(
		'the n8n editor in Chromium, host 2',
		{ timeout: INSTALL_TIMEOUT_MS + 20 * 60_000 },
		() => {
			let local;
			let browser;
			let page;
			let states;
			let webPage;
			let userFolder;
			let shots;
			const shot = (file) => path.join(shots, file);
			let signedIn = false;
			const ensureSignedIn = async () => {
				if (signedIn) return;
				await signIn(page, local.base, OWNER_LOGIN);
				signedIn = true;
			};
			let failures = 0;
			/** On a failure, a full-page capture of what the browser showed (path in the error). */
			const shotOnFailure = (fn) => async (t) => {
				try {
					await fn(t);
				} catch (error) {
					const file = path.join(
						os.tmpdir(),
						`gs-e2e-editor-failure-${process.pid}-${++failures}.png`,
					);
					if (
						await page?.screenshot({ path: file, fullPage: true }).then(
							() => true,
							() => false,
						)
					)
						error.message += `\n(the browser showed: ${file})`;
					throw error;
				}
			};

			before(
				async () => {
					// the forms as the packed package (the one n8n installs) describes them
					const pkg = unpacked(await packOnce());
					states = formStates(nodeDescriptions(pkg));
					fs.rmSync(path.dirname(pkg), { recursive: true, force: true });
					userFolder = fs.mkdtempSync(path.join(os.tmpdir(), 'gs-e2e-editor-'));
					// a web page where a user might point the Base URL by mistake (a site, a proxy's page)
					webPage = http.createServer((_req, res) => {
						res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
						res.end(
							'<!DOCTYPE html><html><head><title>Welcome</title></head><body>Hello</body></html>',
						);
					});
					const webPagePort = await freePort();
					await new Promise((resolve) => webPage.listen(webPagePort, '127.0.0.1', resolve));
					shots = screenshotFolder();
					process.stderr.write(`[editor] screenshots go to ${shots}\n`);
					local = await startLocal({
						userFolder,
						port: await freePort(),
						// 4010 (the credential help text's address) when free, so the credential shot is stable
						emulatorPort: 4010,
						log: (m) => process.stderr.write(`[editor] ${m}\n`),
						jobTiming: { queuedMs: 300, runningMs: 1500 },
						credentials: (emu) => [
							{
								...NO_V1_CREDENTIAL,
								type: 'generationServiceApi',
								data: { apiKey: emu.keys.full, baseUrl: emu.baseUrl.replace(/\/v1$/, '/') },
							},
							{
								...WEB_PAGE_CREDENTIAL,
								type: 'generationServiceApi',
								data: {
									apiKey: emu.keys.full,
									baseUrl: `http://127.0.0.1:${webPage.address().port}/v1`,
								},
							},
							{
								...WRONG_KEY_CREDENTIAL,
								type: 'generationServiceApi',
								// well formed, unknown to the service
								data: {
									apiKey: `svc_sk_key_${'1'.repeat(32)}.${'2'.repeat(64)}`,
									baseUrl: emu.baseUrl,
								},
							},
						],
						workflows: [
							formsWorkflow(states, { id: FORMS_WORKFLOW, credential: CREDENTIAL }),
							failingWorkflow(),
						],
					});
					browser = await launchBrowser();
					page = browser.page;
					// leaving a form the suite changed (an option added and deleted again) is fine: never saved
					page.on('dialog', (d) => d.accept().catch(() => {}));
					page.setDefaultTimeout(60_000);
					page.setDefaultNavigationTimeout(120_000);
				},
				{ timeout: INSTALL_TIMEOUT_MS },
			);

			afterEach(() => {
				const seen = Object.entries(local?.emu.control.violationCounts() ?? {}).filter(
					([, n]) => n > 0,
				);
				local?.emu.control.clearViolations();
				assert.deepEqual(seen, [], 'the emulator (referee) saw client mistakes');
			});

			after(async () => {
				await browser?.close();
				await local?.stop();
				webPage?.close();
				if (userFolder && process.env.GS_E2E_KEEP !== '1')
					fs.rmSync(userFolder, { recursive: true, force: true });
			});

			it(
				'logs in through the sign-in page',
				shotOnFailure(async () => {
					await ensureSignedIn();
					assert.doesNotMatch(page.url(), /signin/);
				}),
			);

			it(
				'every form shows exactly the fields and options of its description',
				shotOnFailure(async (t) => {
					await ensureSignedIn();
					await openWorkflow(page, local.base, FORMS_WORKFLOW);
					const problems = [];
					const t0 = Date.now();
					for (const s of states) {
						await openNode(page, s.key, { settle: false });
						const want = s.shownNames;
						// the form renders in a few frames: read until it matches (bounded, then report what it shows)
						let got = [];
						await waitUntil(
							`the form of ${s.key}`,
							async () => {
								got = await readFormNames(page);
								return sameSet(got, want);
							},
							{ timeoutMs: 10_000 },
						).catch(() => {});
						if (!sameSet(got, want)) {
							const extra = got.filter((n) => !want.includes(n));
							const missing = want.filter((n) => !got.includes(n));
							problems.push(
								`${s.key}: the editor shows${extra.length ? ` extra ${extra.join(', ')}` : ''}${
									missing.length ? ` and lacks ${missing.join(', ')}` : ''
								}`,
							);
						}
						const options = await readAddOptions(page, s.options);
						if (!sameSet(options, s.options))
							problems.push(
								`${s.key}: "Add option" lists ${JSON.stringify(options)}, the description ${JSON.stringify(s.options)}`,
							);
						await closeNdv(page);
					}
					t.diagnostic(`${states.length} forms read in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
					assert.deepEqual(problems, [], `forms in the editor:\n${problems.join('\n')}`);
				}),
			);

			it(
				'pickers list the emulator assets (of the kind the field takes) and personas',
				shotOnFailure(async () => {
					await ensureSignedIn();
					await openWorkflow(page, local.base, FORMS_WORKFLOW);
					const pick = async (param) => {
						await page
							.locator(`[data-test-id="resource-locator-${param}"] [data-test-id="rlc-input"]`)
							.click();
						const items = page.locator('[data-test-id="rlc-item"]:visible');
						await items.first().waitFor({ timeout: 30_000 });
						const texts = await items.allInnerTexts();
						await page.keyboard.press('Escape');
						return texts.join('\n');
					};
					await openNode(page, 'Job · Create — Character Replacement');
					const videos = await pick('sourceVideo');
					assert.match(videos, /sample-video\.mp4 \(video, asset_[0-9a-f]{32}\)/);
					assert.doesNotMatch(videos, /character\.(png|jpg)/, 'Source Video lists only videos');
					const images = await pick('referenceImage');
					assert.match(images, /character\.png \(image/);
					assert.match(images, /character\.jpg \(image/);
					assert.doesNotMatch(images, /sample-video/, 'Reference Image lists only images');
					await closeNdv(page);
					await openNode(page, 'Job · Create — Character Replacement · characterSource=persona');
					const personas = await pick('persona');
					assert.match(personas, /Luna/);
					assert.match(personas, /Biscoito/);
					await closeNdv(page);
				}),
			);

			it(
				'the credential test passes on the emulator, and says in plain English what is wrong: a Base URL without /v1, a web page, a wrong key',
				shotOnFailure(async (t) => {
					await ensureSignedIn();
					const open = async (id) => {
						await page.goto(`${local.base}/home/credentials/${id}`, {
							waitUntil: 'domcontentloaded',
						});
						const modal = page.locator('[data-test-id="editCredential-modal"]');
						await modal.waitFor();
						return modal;
					};
					let modal = await open(CREDENTIAL.id);
					const ok = modal.locator('[data-test-id="credentials-config-container-test-success"]');
					await ok.waitFor({ timeout: 60_000 });
					assert.match(await ok.innerText(), /Connection tested successfully/);
					// the shot shows the Base URL: README's image is taken only on the emulator's usual port 4010
					// (taken by something else, e.g. a running `npm start`: the shot goes to a temp folder)
					const credentialShot = /:4010\/v1$/.test(local.emu.baseUrl)
						? shot('credential-generation-service-api.png')
						: path.join(os.tmpdir(), `gs-e2e-credential-${process.pid}.png`);
					if (!/:4010\/v1$/.test(local.emu.baseUrl))
						t.diagnostic(`port 4010 busy: credential shot written to ${credentialShot}`);
					// the shot: the dialog with the masked key (never a visible key in a published image)
					assert.ok(
						await modal.locator('input[type="password"]').count(),
						'API key field is masked',
					);
					await pause(300); // the banner's fade-in
					const dialog = modal.locator('.el-dialog').first();
					await shotOf(page, (await dialog.count()) ? dialog : modal, credentialShot, 0);
					// the Test button ("Retry") tests again
					await modal.getByRole('button', { name: /retry/i }).click();
					await ok.waitFor({ timeout: 60_000 });
					await page.keyboard.press('Escape');

					// each mistake ends in n8n's red banner "Couldn't connect with these settings", with the
					// package's own words as its details (the credential test's rules)
					const failureOf = async (credential, words) => {
						modal = await open(credential.id);
						const failed = modal.locator('.el-tag', {
							hasText: /Couldn.t connect with these settings/,
						});
						await failed.first().waitFor({ timeout: 60_000 });
						const reason = modal.getByText(words);
						if (!(await reason.first().isVisible())) {
							const more = failed.first().getByText(/details/i);
							if (await more.count()) await more.first().click();
						}
						await reason.first().waitFor({ timeout: 10_000 });
						const text = await failed.first().innerText();
						await page.keyboard.press('Escape');
						t.diagnostic(`${credential.name}: ${text.replace(/\s+/g, ' ')}`);
						return text;
					};
					const noV1 = await failureOf(
						NO_V1_CREDENTIAL,
						/Nothing answers GET \/me at this Base URL/,
					);
					assert.match(noV1, /it must be the service address ending in \/v1/);
					const webPageText = await failureOf(
						WEB_PAGE_CREDENTIAL,
						/but not the Generation Service/,
					);
					assert.match(webPageText, /\(a web page or a proxy\?\)/);
					const text = await failureOf(WRONG_KEY_CREDENTIAL, /did not accept this API key/);
					assert.match(text, /did not accept this API key \(invalid, expired or revoked\)/);
					assert.match(text, /create a new key/);
					assert.doesNotMatch(text, /svc_sk_key_1/, 'the key never appears');
					// n8n's editor tests a credential again by itself (the dialog tests on opening and on loading
					// the data), so the refused key reaches GET /v1/me more than once: n8n's doing, not the package's
					const all = local.emu.control.violations();
					const editorRetests = all.filter(
						(v) => v.kind === 'revoked_key_reuse' && v.method === 'GET' && v.path === '/v1/me',
					);
					if (editorRetests.length === all.length) local.emu.control.clearViolations();
					t.diagnostic(`the editor tested the refused key again ${editorRetests.length} time(s)`);
				}),
			);

			it(
				'character replacement runs from "Execute workflow"; the MP4 shows in the output panel',
				shotOnFailure(async (t) => {
					await ensureSignedIn();
					const jobsBefore = local.emu.control.jobs().length;
					await openWorkflow(page, local.base, 'gsCharacterReplace');
					await page.keyboard.press('1'); // zoom to fit
					await pause(800);
					await page.mouse.move(5, VIEWPORT.height - 5);
					// the canvas names operations and modes by their labels (the nodes' subtitle expressions)
					const onCanvas = (name) =>
						page.locator(`[data-test-id="canvas-node"][data-node-name="${name}"]`).innerText();
					assert.match(await onCanvas('Quote'), /Quote: Character Replacement/);
					assert.match(await onCanvas('Upload Video'), /\bUpload\b(?!\s*Video)/);
					await shotOfCanvas(page, shot('workflow-character-replacement.png'));
					await openNode(page, 'Create');
					await shotOfParameters(page, shot('job-create-character-replacement.png'));
					await closeNdv(page);

					const t0 = Date.now();
					await page.locator('[data-test-id="execute-workflow-button"]').click();
					// finished when the last node has written the MP4 of the job to the output folder
					let job;
					await waitUntil(
						'the MP4 of the run on disk',
						() => {
							// the emulator lists jobs newest first: this run's are the first ones
							const jobs = local.emu.control.jobs();
							job = jobs.slice(0, jobs.length - jobsBefore).find((j) => j.state === 'succeeded');
							return job && fs.existsSync(path.join(local.outputDir, `${job.id}.mp4`));
						},
						{ timeoutMs: 180_000 },
					);
					t.diagnostic(`run from the editor: ${((Date.now() - t0) / 1000).toFixed(1)} s`);
					await expectMp4InOutput(page, 'Wait for Job', job.id);
				}),
			);

			it(
				'every example opens with its notes beside the nodes: none covers a node, each reads and fits',
				shotOnFailure(async (t) => {
					await ensureSignedIn();
					const problems = [];
					for (const file of EXAMPLES) {
						const wf = loadExample(file);
						await openWorkflow(page, local.base, wf.id);
						const { stickies, nodes } = await canvasLayout(page);
						const notes = notesOf(wf);
						assert.equal(stickies.length, notes.length, `${file}: notes on the canvas`);
						const zooms = [];
						for (const sticky of stickies) {
							const note = notes.find((n) => n.id === sticky.id);
							const zoom = sticky.rect.w / noteRect(note).w;
							zooms.push(zoom);
							const bodyPx = sticky.fontPx * zoom;
							if (bodyPx < READABLE_PX)
								problems.push(`${file}: ${note.name} reads at ${bodyPx.toFixed(1)} px`);
							if (sticky.textBottom > sticky.rect.y + sticky.rect.h)
								problems.push(`${file}: ${note.name}'s text runs past its bottom`);
							for (const n of nodes)
								if (overlaps(sticky.rect, n.rect))
									problems.push(
										`${file}: ${note.name} ${JSON.stringify(sticky.rect)} covers ${n.name} ${JSON.stringify(n.rect)}`,
									);
							for (const other of stickies)
								if (other !== sticky && overlaps(sticky.rect, other.rect))
									problems.push(`${file}: ${note.name} covers another note`);
						}
						t.diagnostic(
							`${file}: ${stickies.length} notes, opened at zoom ${Math.min(...zooms).toFixed(2)} (${openingZoom(wf).toFixed(2)} foreseen)`,
						);
					}
					assert.deepEqual(problems, []);
				}),
			);

			it(
				'a failing item shows the English message, what to do and the Request ID',
				shotOnFailure(async () => {
					await ensureSignedIn();
					await openWorkflow(page, local.base, FAILING_WORKFLOW);
					await page.locator('[data-test-id="execute-workflow-button"]').click();
					await openNode(page, 'Get Missing Job');
					const message = page.locator('[data-test-id="node-error-message"]').first();
					await message.waitFor({ timeout: 120_000 });
					// the package's own English message for this answer (cause and what to do), not typed twice
					const { englishMessage } = await import('../../nodes/shared/service/errors.ts');
					const expected = englishMessage(
						{ httpCode: 404, code: 'not_found', serviceMessage: '', requestId: null },
						{ method: 'GET', path: `/jobs/${MISSING_JOB}` },
					);
					assert.match(expected, /^Not found: .*Check the id\.$/);
					const shown = await message.innerText();
					assert.ok(shown.includes(expected), `error panel shows ${JSON.stringify(shown)}`);
					const panel = page.locator('[data-test-id="output-panel"]');
					const details = await panel.innerText();
					assert.match(details, /Request ID: req_/);
					assert.match(details, /Service code: not_found/);
					await closeNdv(page);
				}),
			);

			it(
				'the YouTube publish example: n8n shows no issue on it but the missing YouTube credential',
				shotOnFailure(async (t) => {
					await ensureSignedIn();
					await openWorkflow(page, local.base, 'gsPublishYouTube');
					const issues = await canvasIssues(page);
					t.diagnostic(`issues n8n shows: ${JSON.stringify(issues)}`);
					assert.deepEqual(Object.keys(issues), ['Upload to YouTube'], JSON.stringify(issues));
					const lines = issues['Upload to YouTube'];
					assert.ok(lines.length > 0, 'the missing credential is shown');
					assert.deepEqual(
						lines.filter((l) => !/credential/i.test(l)),
						[],
						`issues other than the credential: ${JSON.stringify(lines)}`,
					);
				}),
			);

			it(
				'screenshots: Text to Video form, node search, the MCP example',
				shotOnFailure(async () => {
					await ensureSignedIn();
					await openWorkflow(page, local.base, 'gsTextBatch');
					await openNode(page, 'Create and Wait');
					await shotOfParameters(page, shot('job-create-text-to-video.png'));
					await closeNdv(page);
					await shotOfNodeSearch(page, shot('node-creator-search.png'));
					await openWorkflow(page, local.base, 'gsMcpVideoServer');
					await shotOfCanvas(page, shot('workflow-mcp-video-server.png'));
				}),
			);
		},
	);
}

/**
 * The issues n8n's canvas shows, by node name: the lines of the tooltip of each node's issue (or "setup
 * required") icon. Nodes without an icon are left out.
 */
async function canvasIssues(page) {
	const found = {};
	const nodes = page.locator('[data-test-id="canvas-node"]');
	for (const node of await nodes.all()) {
		const name = await node.getAttribute('data-node-name');
		const icon = node
			.locator('[data-test-id="node-issues"], [data-test-id="node-setup-required"]')
			.first();
		if (!(await icon.isVisible().catch(() => false))) continue;
		await icon.hover();
		// n8n's tooltip (after 500 ms): "Issues" and one "- …" line per issue, read as shown
		const text = await waitUntil(
			`the issues tooltip of "${name}"`,
			() =>
				page.evaluate(() => {
					for (const el of document.querySelectorAll('body *')) {
						const t = el instanceof HTMLElement ? el.innerText?.trim() : '';
						if (t && /^Issues:?\n/.test(t) && el.getBoundingClientRect().width > 0) return t;
					}
					return null;
				}),
			{ timeoutMs: 10_000 },
		);
		found[name] = text
			.split('\n')
			.map((l) => l.replace(/^[\s•-]+/, '').trim())
			.filter((l) => l && !/^issues:?$/i.test(l));
		await page.mouse.move(0, 0);
		await pause(300);
	}
	return found;
}

/**
 * The canvas as drawn: each sticky note's box ({ id, rect, fontPx: its body text's CSS size, textBottom }) and each
 * node's ({ name, rect }: the node and what is drawn with it — icons, name, subtitle, handles — but what shows only
 * on hover), in screen pixels.
 */
function canvasLayout(page) {
	return page.evaluate(() => {
		const box = (r) => ({ x: r.left, y: r.top, w: r.width, h: r.height });
		const stickies = [];
		const nodes = [];
		for (const el of document.querySelectorAll('.vue-flow__node')) {
			const sticky = el.querySelector('[data-test-id="sticky"]');
			if (sticky) {
				const texts = [...sticky.querySelectorAll('p, li')];
				stickies.push({
					id: el.getAttribute('data-id'),
					rect: box(sticky.getBoundingClientRect()),
					fontPx: Math.min(...texts.map((x) => parseFloat(getComputedStyle(x).fontSize))),
					textBottom: Math.max(...texts.map((x) => x.getBoundingClientRect().bottom)),
				});
				continue;
			}
			// what is drawn: the node's box, and its icons, handles, buttons and text that show (a trigger's
			// "Execute workflow" button, shown on hover, and the hover toolbar are transparent until then)
			const drawn = (x) =>
				x.matches('[data-test-id="canvas-node"], svg, img, button, [data-test-id*="handle"]') ||
				[...x.childNodes].some((c) => c.nodeType === 3 /* a text node */ && c.textContent.trim());
			const parts = [...el.querySelectorAll('*')].filter(
				(x) =>
					drawn(x) &&
					!x.closest('[data-test-id="canvas-node-toolbar"]') &&
					x.checkVisibility({ opacityProperty: true, visibilityProperty: true }) &&
					x.getBoundingClientRect().width > 0,
			);
			const rects = parts.map((x) => x.getBoundingClientRect());
			const left = Math.min(...rects.map((r) => r.left));
			const top = Math.min(...rects.map((r) => r.top));
			nodes.push({
				name: el.querySelector('[data-node-name]')?.getAttribute('data-node-name'),
				rect: {
					x: left,
					y: top,
					w: Math.max(...rects.map((r) => r.right)) - left,
					h: Math.max(...rects.map((r) => r.bottom)) - top,
				},
			});
		}
		return { stickies, nodes };
	});
}

/** The band of the canvas that holds the nodes and notes (the fitted canvas is mostly empty above and below). */
async function shotOfCanvas(page, file) {
	await closeProductionChecklist(page);
	const boxes = await page.locator('.vue-flow__node').evaluateAll((els) =>
		els.map((e) => {
			const r = e.getBoundingClientRect();
			return { top: r.top, bottom: r.bottom };
		}),
	);
	const top = Math.max(70, Math.min(...boxes.map((b) => b.top)) - 40);
	// above the logs bar
	const bottom = Math.min(VIEWPORT.height - 56, Math.max(...boxes.map((b) => b.bottom)) + 70);
	await page.screenshot({
		path: file,
		clip: { x: 41, y: top, width: VIEWPORT.width - 41, height: bottom - top },
	});
}

/** n8n 2.x opens a "Production Checklist" card over the canvas of a published workflow: closed by its ×. */
async function closeProductionChecklist(page) {
	const title = page.getByText('Production Checklist', { exact: true }).first();
	if (!(await title.isVisible().catch(() => false))) return;
	// the × is the control on the title's line, right of it, inside the card (an ancestor < 600 px wide)
	const at = await title.evaluate((t) => {
		const line = t.getBoundingClientRect();
		for (let card = t.parentElement; card && card !== document.body; card = card.parentElement) {
			if (card.getBoundingClientRect().width > 600) return null;
			for (const el of card.querySelectorAll('button, [role="button"], svg')) {
				const b = el.getBoundingClientRect();
				const middle = (b.top + b.bottom) / 2;
				if (b.left > line.right && Math.abs(middle - (line.top + line.bottom) / 2) < 20) {
					return { x: (b.left + b.right) / 2, y: middle };
				}
			}
		}
		return null;
	});
	if (!at) return;
	await page.mouse.click(at.x, at.y);
	await title.waitFor({ state: 'hidden', timeout: 5000 }).catch(() => {});
}

/** The node panel searching "Generation Service": the package's five nodes. */
async function shotOfNodeSearch(page, file) {
	const plus = page.locator('[data-test-id="node-creator-plus-button"]').first();
	if (await plus.isVisible().catch(() => false)) await plus.click();
	else await page.keyboard.press('Tab');
	const search = page
		.locator(
			'[data-test-id="node-creator-search-bar"] input, input[data-test-id="node-creator-search-bar"]',
		)
		.first();
	await search.waitFor({ timeout: 20_000 });
	await search.fill('Generation Service');
	const names = page.locator('[data-test-id="node-creator-item-name"]');
	await waitUntil(
		'the five nodes in the node search',
		async () =>
			(await names.allInnerTexts()).filter((n) => n.includes('Generation Service')).length >= 5,
		{ timeoutMs: 20_000 },
	);
	await pause(300);
	const box = await page.locator('[data-test-id="node-creator"]').boundingBox();
	const bottom = await names.last().evaluate((el) => {
		const item =
			el.closest('[data-test-id="item-iterator-item"]') ?? el.parentElement.parentElement;
		return item.getBoundingClientRect().bottom;
	});
	await page.screenshot({
		path: file,
		clip: {
			x: Math.floor(box.x),
			y: Math.floor(box.y),
			width: Math.ceil(box.width),
			height: Math.min(Math.ceil(bottom - box.y + 24), Math.ceil(box.height)),
		},
	});
	await page.keyboard.press('Escape');
	await dismissPopups(page);
}
