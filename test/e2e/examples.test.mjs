// Every example workflow of examples/ executed in a real n8n (filesystem binary mode, the 2.x default)
// with this package installed from its `npm pack` tarball, against the local emulator. Asserts the MP4
// on disk (sha256 and ftyp box), the ledger (invariant, exact credits) and the journal (no duplicate jobs).
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { after, afterEach, before, describe, it } from 'node:test';

import {
	INSTALL_TIMEOUT_MS,
	REPO,
	assertRunOk,
	e2eHosts,
	ensureHost,
	loadExample,
	openInstance,
	outputOf,
	packOnce,
	startEmulator,
} from './harness.mjs';
import { PUBLISH_EXAMPLE, assertPublished, s3Credential } from './publish.mjs';
import { LOCAL_SERVICES_ALLOWED } from '../../tools/lib/n8n-defaults.mjs';
import { startS3 } from '../../tools/lib/s3.mjs';

const sha256 = (buf) => createHash('sha256').update(buf).digest('hex');
/** Figures for docs/reliability.md (a no-op unless GS_RELIABILITY_OUT is set). */
const { record } = createRequire(import.meta.url)('../reliability/metrics.js');
const CREDENTIAL_ID = 'gsEmulatorCred';
/** A loopback address outside the allowance of n8n 3.0's defaults (n8n-defaults.mjs allows 127.0.0.1/32 only). */
const BLOCKED_HOST = '127.0.0.2';

/** Points the example's Paths node at this run's folders. */
function withPaths(workflow, samplesDir, outputDir) {
	for (const node of workflow.nodes) {
		if (node.name !== 'Paths') continue;
		for (const a of node.parameters.assignments.assignments) {
			if (a.name === 'samplesDir') a.value = samplesDir;
			if (a.name === 'outputDir') a.value = outputDir;
		}
	}
	return workflow;
}

/** The "Retry On Fail" variant of the batch example: one item, Create without waiting, n8n retrying it. */
function retryOnFailWorkflow() {
	const wf = loadExample('text-to-video-batch.json', 'gsRetryOnFail');
	wf.nodes = wf.nodes.filter((n) => n.name !== 'Prompts' && n.name !== 'Split Out');
	const create = wf.nodes.find((n) => n.name === 'Create and Wait');
	create.parameters.prompt = 'a single retried generation';
	create.parameters.options = { waitForCompletion: false };
	Object.assign(create, { retryOnFail: true, maxTries: 2, waitBetweenTries: 0 });
	wf.connections = {
		[wf.nodes[0].name]: { main: [[{ node: 'Create and Wait', type: 'main', index: 0 }]] },
	};
	return wf;
}

function jobPosts(emu) {
	return emu.control.journal().filter((e) => e.method === 'POST' && e.path === '/v1/jobs');
}

for (const version of e2eHosts()) {
	describe(
		`examples in real n8n, host ${version}`,
		{ timeout: INSTALL_TIMEOUT_MS + 15 * 60_000 },
		() => {
			let inst;
			let emu;
			/** The local S3-compatible server the publish example uploads to. */
			let s3;
			/** n8n 2.x: a second emulator on an address SSRF protection blocks (the SSRF case). */
			let blockedEmu;
			let files;
			/** The workflows of the tests by name, imported together in before(). */
			let wfs;
			before(
				async () => {
					await ensureHost({ version });
					files = fs.mkdtempSync(path.join(os.tmpdir(), `gs-e2e-files-${version}-`));
					fs.cpSync(path.join(REPO, 'examples', 'samples'), path.join(files, 'samples'), {
						recursive: true,
					});
					fs.mkdirSync(path.join(files, 'out'));
					inst = await openInstance({ version, fileAccessDir: files });
					await inst.installPackage(await packOnce());
					emu = await startEmulator({ jobTiming: { queuedMs: 500, runningMs: 2500 } });
					s3 = await startS3();
					if (version === '2') blockedEmu = await startEmulator({ host: BLOCKED_HOST });
					await inst.importCredentials([
						s3Credential(s3),
						{
							id: CREDENTIAL_ID,
							name: 'Generation Service (local emulator)',
							type: 'generationServiceApi',
							data: { apiKey: emu.keys.full, baseUrl: emu.baseUrl },
						},
						...(blockedEmu
							? [
									{
										id: 'gsBlockedCred',
										name: `Generation Service (emulator on ${BLOCKED_HOST})`,
										type: 'generationServiceApi',
										data: { apiKey: blockedEmu.keys.full, baseUrl: blockedEmu.baseUrl },
									},
								]
							: []),
					]);
					// every workflow in one import: each `n8n import:workflow` is a cold start of n8n's CLI
					// (~5 s on n8n 2.x), which is not what these tests are about
					const samples = path.join(files, 'samples');
					const out = path.join(files, 'out');
					wfs = {
						characterReplacement: withPaths(
							loadExample('character-replacement.json'),
							samples,
							out,
						),
						textToVideoBatch: loadExample('text-to-video-batch.json'),
						imageToVideo: withPaths(loadExample('image-to-video.json'), samples, out),
						accountHealth: loadExample('account-health.json'),
						retryOnFail: retryOnFailWorkflow(),
						publishS3: loadExample(PUBLISH_EXAMPLE),
					};
					if (blockedEmu) {
						// Image to Video against the emulator on the blocked address
						wfs.ssrfBlocked = withPaths(
							loadExample('image-to-video.json', 'gsSsrfBlocked'),
							samples,
							out,
						);
						for (const node of wfs.ssrfBlocked.nodes) {
							if (node.credentials?.generationServiceApi)
								node.credentials.generationServiceApi = {
									id: 'gsBlockedCred',
									name: `Generation Service (emulator on ${BLOCKED_HOST})`,
								};
						}
					}
					await inst.importWorkflow(Object.values(wfs));
				},
				{ timeout: INSTALL_TIMEOUT_MS },
			);
			afterEach(() => emu?.assertNoViolations());
			after(async () => {
				await emu?.close();
				await blockedEmu?.close();
				await s3?.close();
				await inst?.close();
				if (files) fs.rmSync(files, { recursive: true, force: true });
			});

			it('character replacement: upload → quote → create → wait → MP4 on disk', async (t) => {
				emu.control.clearJournal();
				const before = emu.control.ledger().balance;
				const wf = wfs.characterReplacement;
				const res = await inst.execute(wf.id, { timeoutMs: 180_000 });
				assertRunOk(t, res);
				const quote = outputOf(res, 'Quote')[0];
				const [job] = outputOf(res, 'Wait for Job');
				assert.equal(job.state, 'succeeded');
				assert.equal(quote.reservedCredits, 10);
				assert.equal(job.reservedCredits, 10);
				assert.equal(job.chargedCredits, 8);
				const mp4 = fs.readFileSync(path.join(files, 'out', `${job.id}.mp4`));
				assert.equal(sha256(mp4), job.output.sha256);
				assert.equal(mp4.toString('latin1', 4, 8), 'ftyp');
				const after = emu.control.ledger();
				assert.equal(after.invariantHolds, true);
				assert.equal(before.available - after.balance.available, 8);
				assert.equal(jobPosts(emu).length, 1, 'one POST /v1/jobs');
				assert.equal(emu.control.jobs().filter((j) => j.id === job.id).length, 1);
			});

			it('text to video for a list of prompts, with Max Credits', async (t) => {
				emu.control.clearJournal();
				const jobsBefore = emu.control.jobs().length;
				const wf = wfs.textToVideoBatch;
				const res = await inst.execute(wf.id, { timeoutMs: 240_000 });
				assertRunOk(t, res);
				const out = outputOf(res, 'Create and Wait');
				assert.equal(out.length, 3);
				for (const job of out) {
					assert.equal(job.state, 'succeeded');
					assert.equal(job.reservedCredits, 8);
				}
				assert.equal(new Set(out.map((j) => j.id)).size, 3);
				assert.equal(emu.control.jobs().length - jobsBefore, 3);
				assert.equal(jobPosts(emu).length, 3);
				const quotes = emu.control.journal().filter((e) => e.path === '/v1/jobs/quote');
				assert.equal(quotes.length, 3, 'Max Credits quotes each item first');
				assert.equal(emu.control.ledger().invariantHolds, true);
			});

			it('image to video from an image read upstream', async (t) => {
				const wf = wfs.imageToVideo;
				const res = await inst.execute(wf.id, { timeoutMs: 180_000 });
				assertRunOk(t, res);
				const [job] = outputOf(res, 'Animate');
				assert.equal(job.state, 'succeeded');
				assert.equal(job.input.mode, 'image_to_video');
				const mp4 = fs.readFileSync(path.join(files, 'out', `${job.id}.mp4`));
				assert.equal(sha256(mp4), job.output.sha256);
			});

			it('account health: capabilities, balance, usage', async (t) => {
				const wf = wfs.accountHealth;
				const res = await inst.execute(wf.id, { timeoutMs: 120_000 });
				assertRunOk(t, res);
				assert.equal(outputOf(res, 'Capabilities')[0].generation.available, true);
				const [balance] = outputOf(res, 'Balance');
				assert.equal(
					balance.available + balance.reserved + balance.spent + balance.revoked,
					balance.granted + balance.debt,
				);
				assert.equal(outputOf(res, 'Recent Usage').length, 10);
			});

			it("SSRF protection on (n8n 3.0's defaults): a Base URL on a blocked address is refused naming the settings that allow it; allowed, it runs", async (t) => {
				// n8n 1.x has no SSRF protection (1.123.81 knows neither the setting nor its errors)
				if (version === '1') return t.skip('n8n 1.x has no SSRF protection');
				// every run of this suite has SSRF protection on, with only 127.0.0.1 allowed (n8n-defaults.mjs)
				assert.equal(inst.env.N8N_SSRF_PROTECTION_ENABLED, 'true');
				assert.equal(
					inst.env.N8N_SSRF_ALLOWED_IP_RANGES,
					LOCAL_SERVICES_ALLOWED.N8N_SSRF_ALLOWED_IP_RANGES,
				);
				const saved = inst.env.N8N_SSRF_ALLOWED_IP_RANGES;
				try {
					emu.control.clearJournal();
					blockedEmu.control.clearJournal();
					const blocked = await inst.execute(wfs.ssrfBlocked.id, { timeoutMs: 120_000 });
					assert.equal(blocked.ok, false, 'the run fails');
					const message = String(blocked.error?.message);
					t.diagnostic(`message: ${message}`);
					assert.match(
						message,
						/^n8n's SSRF protection blocked the request to the Generation Service \((GET|POST) \/[a-z]+\): the address 127\.0\.0\.2 is in a range n8n blocks\./,
					);
					assert.match(message, /N8N_SSRF_ALLOWED_HOSTNAMES/);
					assert.match(message, /N8N_SSRF_ALLOWED_IP_RANGES/);
					assert.equal(blockedEmu.control.journal().length, 0, 'nothing reached the service');
					assert.equal(emu.control.journal().length, 0);
					// the fix the message names: the address added to the allowed ranges
					inst.env.N8N_SSRF_ALLOWED_IP_RANGES = `${saved},${BLOCKED_HOST}/32`;
					const allowed = await inst.execute(wfs.ssrfBlocked.id, { timeoutMs: 180_000 });
					assertRunOk(t, allowed);
					const [job] = outputOf(allowed, 'Animate');
					assert.equal(job.state, 'succeeded');
					assert.ok(blockedEmu.control.journal().length > 0, 'the allowed run reached it');
					blockedEmu.assertNoViolations();
				} finally {
					inst.env.N8N_SSRF_ALLOWED_IP_RANGES = saved;
				}
			});

			/** The publish example in `binaryMode` (an `n8n execute` of its own, so the mode is this run's env). */
			async function publishRun(t, binaryMode) {
				emu.control.clearJournal();
				const previous = inst.env.N8N_DEFAULT_BINARY_DATA_MODE;
				inst.env.N8N_DEFAULT_BINARY_DATA_MODE = binaryMode;
				let res;
				try {
					res = await inst.execute(wfs.publishS3.id, { timeoutMs: 240_000 });
				} finally {
					if (previous === undefined) delete inst.env.N8N_DEFAULT_BINARY_DATA_MODE;
					else inst.env.N8N_DEFAULT_BINARY_DATA_MODE = previous;
				}
				assertRunOk(t, res);
				const line = await assertPublished({
					s3,
					result: res.result,
					jobs: outputOf(res, 'Create and Wait'),
					uploads: outputOf(res, 'Upload to S3'),
					binaryMode,
				});
				t.diagnostic(line);
				// the run budget (Max Credits for This Run) quotes every item first; the ledger holds
				const quotes = emu.control.journal().filter((e) => e.path === '/v1/jobs/quote');
				assert.equal(quotes.length, 4, 'the run budget quotes each item first');
				assert.equal(jobPosts(emu).length, 4);
				assert.equal(emu.control.ledger().invariantHolds, true);
			}

			it("publish: a video per prompt, each uploaded to S3 by n8n's S3 node (filesystem binary mode)", async (t) => {
				await publishRun(t, 'filesystem');
			});

			it('publish: the same in database binary mode', async (t) => {
				if (version === '1') return t.skip('n8n 1.x offers the filesystem binary mode only');
				await publishRun(t, 'database');
			});

			it('N8N_UNVERIFIED_PACKAGES_ENABLED=false (3.0 default): n8n 2.41.1 still loads the installed package at start and runs it', async (t) => {
				const saved = inst.env.N8N_UNVERIFIED_PACKAGES_ENABLED;
				try {
					inst.env.N8N_UNVERIFIED_PACKAGES_ENABLED = 'false';
					const res = await inst.execute(wfs.accountHealth.id, { timeoutMs: 120_000 });
					for (const line of `${res.stdout}\n${res.stderr}`.split('\n')) {
						if (/unverified|not verified|unrecognized node type/i.test(line))
							t.diagnostic(`n8n said: ${line.trim().slice(0, 300)}`);
					}
					assertRunOk(t, res);
					assert.equal(outputOf(res, 'Capabilities')[0].generation.available, true);
				} finally {
					if (saved === undefined) delete inst.env.N8N_UNVERIFIED_PACKAGES_ENABLED;
					else inst.env.N8N_UNVERIFIED_PACKAGES_ENABLED = saved;
				}
			});

			it('"Retry On Fail" after connection failures reuses the Idempotency-Key: one job', async (t) => {
				emu.control.clearJournal();
				const jobsBefore = emu.control.jobs().length;
				// Every try of the node's own transport (3) is reset after the service committed the job, so the
				// node fails; n8n's Retry On Fail then runs it again in the same execution.
				emu.control.injectFault({
					method: 'POST',
					path: '/v1/jobs',
					action: 'reset_after_commit',
					times: 3,
				});
				const wf = wfs.retryOnFail;
				const res = await inst.execute(wf.id, { timeoutMs: 120_000 });
				assertRunOk(t, res);
				const [job] = outputOf(res, 'Create and Wait');
				// n8n's second try gets the job back: it replays the same Idempotency-Key (an `n8n execute`
				// run, mode cli, does not look for a recent job of the same input by default)
				assert.ok(job.adopted === true || job.replayed === true, JSON.stringify(job));
				const posts = jobPosts(emu);
				assert.ok(posts.length === 3 || posts.length === 4, '3 reset tries (+ 1 replay)');
				assert.equal(new Set(posts.map((p) => p.idempotencyKey)).size, 1, 'one Idempotency-Key');
				assert.equal(emu.control.jobs().length - jobsBefore, 1, 'one job');
				const reserves = emu.control
					.ledger()
					.entries.filter((e) => e.kind === 'reserve' && e.jobId === job.id);
				assert.equal(reserves.length, 1, 'one reservation');
				const jobs = emu.control.jobs().length - jobsBefore;
				record('fault', {
					fault: `n8n "Retry On Fail" after every try of Create was reset after commit (real n8n ${inst.n8nVersion})`,
					duplicateJobs: Math.max(0, jobs - 1),
					lostOutputs: job.id ? 0 : 1,
				});
			});
		},
	);
}
