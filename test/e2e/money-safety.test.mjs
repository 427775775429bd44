// Money safety in a real n8n: a job is paid once however n8n recovers the execution that created it.
//
// On each host of GS_E2E_HOSTS, one n8n user folder runs a production (webhook-triggered, activated)
// workflow  Hook -> Create -> Wait for Job -> Write MP4  against the local emulator, through these
// scenarios, in this order (the n8n server is started once and restarted after each crash):
//   (a) every try of Create is reset AFTER the service committed the job: the execution fails; it is
//       retried through n8n's REST API (POST /rest/executions/:id/retry);
//   (d) a deliberate second run with another prompt: a second job;
//   (b) n8n SIGKILLed while Create's answer is held by the service (job committed, answer in flight);
//       restarted on the same user folder; the crashed execution retried through REST;
//   (c) n8n SIGKILLed while Wait for Job follows a long job; restarted; the crashed execution retried.
// After each: exactly one job and one `reserve` ledger entry per input, the MP4 on disk with the job's
// sha256, no referee violation; in each retry, Create picked the job up (`adopted`), and its default
// Idempotency-Key is the first try's wherever n8n keeps the execution's anchor (2.x always, 1.x after a
// failure). An execution that can never finish (the MP4 was delivered, the node never returned) fails
// the scenario after the money was judged, naming the cause. Each scenario records its figures for docs/reliability.md
// (test/reliability/metrics.js, a no-op unless GS_RELIABILITY_OUT is set).
//
// Progress saving stays off (n8n's default): a crashed execution is then retried from its trigger, so the
// Create node runs again in mode 'retry' — the hardest case for the package (see the notes on n8n's retry
// paths: without progress saving n8n 1.x does not keep the execution's anchor across a crash).
//
// GS_E2E_N8N_LOG_LEVEL=debug raises n8n's log level; the log is <user folder>/n8n-start.log
// (GS_E2E_KEEP=1 keeps the folder).
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { after, afterEach, before, describe, it } from 'node:test';

import { RETRY_POLICY } from '../../nodes/shared/service/client.ts';
import { callWebhook, jsonBody } from '../../tools/lib/rest.mjs';
import { startServer } from '../../tools/lib/server.mjs';
import { pause, waitUntil } from '../../tools/lib/wait.mjs';
import { createJob, waitForJob, webhook, workflow, writeFile } from '../../tools/lib/workflow.mjs';
import {
	INSTALL_TIMEOUT_MS,
	e2eHosts,
	ensureHost,
	openInstance,
	packOnce,
	startEmulator,
} from './harness.mjs';

const require = createRequire(import.meta.url);
const { record } = require('../reliability/metrics.js');

const sha256 = (buf) => createHash('sha256').update(buf).digest('hex');
const log = (msg) => process.stderr.write(`[money-safety] ${msg}\n`);

const CREDENTIAL_ID = 'gsEmulatorCred';
const WORKFLOW_ID = 'gsMoneySafety';
const HOOK_PATH = 'gs-money-safety';
const FINAL = ['success', 'error', 'crashed', 'canceled'];

/** Hook (production webhook, answers at once) -> Create -> Wait for Job -> Write MP4 to `outDir`. */
function moneyWorkflow(outDir) {
	const on = { credential: { id: CREDENTIAL_ID, name: 'Generation Service (local emulator)' } };
	return workflow({
		id: WORKFLOW_ID,
		name: 'Money safety',
		ids: '5a1f0c52',
		nodes: [
			webhook('Hook', {
				path: HOOK_PATH,
				responseMode: 'onReceived',
				typeVersion: 2,
				webhookId: '5a1f0c52-0000-4000-8000-00000000beef',
			}),
			createJob(
				'Create',
				{
					mode: 'text_to_video',
					prompt: '={{ $json.body.prompt }}',
					durationSeconds: 5,
					aspectRatio: '16:9',
					options: {},
				},
				on,
			),
			waitForJob('Wait for Job', '={{ $json.id }}', { binaryPropertyName: 'data' }, on),
			writeFile('Write MP4', `=${outDir}/{{ $json.id }}.mp4`),
		],
	});
}

/**
 * A started n8n (`n8n start`) on one user folder, restartable, with the calls the suite needs through
 * its REST client (tools/lib/rest.mjs, as the owner).
 */
class N8nServer {
	constructor(inst) {
		this.inst = inst;
		this.server = undefined;
	}

	get running() {
		return this.server !== undefined;
	}

	async start() {
		const t0 = Date.now();
		const env = process.env.GS_E2E_N8N_LOG_LEVEL
			? { N8N_LOG_LEVEL: process.env.GS_E2E_N8N_LOG_LEVEL }
			: {};
		this.server = await startServer(this.inst, { log, env });
		this.base = this.server.base;
		this.rest = this.server.rest;
		await this.rest.session(); // the owner's setup on the first start, a login after a restart
		return Date.now() - t0;
	}

	async ensureRunning() {
		if (!this.running) await this.start();
	}

	/** A crash: SIGKILL of n8n's process group (n8n and its task runner). */
	async kill() {
		const server = this.server;
		this.server = undefined;
		await server?.kill();
	}

	async stop() {
		const server = this.server;
		this.server = undefined;
		await server?.stop();
	}

	tail() {
		return this.server?.tail() ?? '(n8n not running)';
	}

	/** Waits for `check` (see waitUntil), naming `what`; a timeout shows the end of n8n's log. */
	until(what, check, { timeoutMs = 60_000, everyMs = 300 } = {}) {
		return waitUntil(what, check, { timeoutMs, everyMs, logFile: this.server?.logFile });
	}

	/** POST the production webhook (registered a little after /healthz/readiness: 404s are retried). */
	callWebhook(payload) {
		return this.until(
			`the webhook ${HOOK_PATH}`,
			async () => {
				const res = await callWebhook(this.base, HOOK_PATH, jsonBody(payload));
				if (res.status === 404) return undefined;
				if (res.status < 200 || res.status >= 300)
					throw new Error(`webhook answered HTTP ${res.status}: ${res.body}\n${this.tail()}`);
				return res;
			},
			{ everyMs: 500 },
		);
	}

	/** The workflow's executions, newest first: [{id, status, mode, retryOf, retrySuccessId}]. */
	async executions() {
		return (await this.rest.executions(WORKFLOW_ID))
			.filter((e) => e.workflowId === WORKFLOW_ID)
			.map(({ id, status, mode, retryOf, retrySuccessId }) => ({
				id,
				status,
				mode,
				retryOf: retryOf ?? null,
				retrySuccessId: retrySuccessId ?? null,
			}));
	}

	/** A new execution of the workflow (id not in `known`), once it appears in the list. */
	newExecution(known, timeoutMs = 60_000) {
		return this.until(
			`a new execution of ${WORKFLOW_ID}`,
			async () => (await this.executions()).find((e) => !known.has(e.id)),
			{ timeoutMs },
		);
	}

	/** GET /rest/executions/:id with its run data parsed. */
	execution(id) {
		return this.rest.execution(id);
	}

	/**
	 * The execution once its status is one of `statuses` (default: any final one). `stuck()` may tell,
	 * from the emulator, that it will never get there: it then throws a StuckError with that message.
	 */
	async settled(id, { statuses = FINAL, timeoutMs = 120_000, stuck } = {}) {
		const t0 = Date.now();
		let seen;
		for (;;) {
			const e = await this.execution(id);
			if (statuses.includes(e.status)) {
				// n8n 1.x on SQLite without a read pool writes the status and the run data in two statements
				// (no transaction): a read in between sees the final status with the data of the start.
				// Return an execution only once two reads 500 ms apart agree.
				const fingerprint = `${e.status}\0${JSON.stringify(e.data ?? null)}`;
				if (seen === fingerprint || Date.now() - t0 > timeoutMs) return e;
				seen = fingerprint;
				await pause(500);
				continue;
			}
			seen = undefined;
			const why = stuck?.();
			if (why) throw new StuckError(id, why);
			if (Date.now() - t0 > timeoutMs)
				throw new Error(
					`execution ${id} is still "${e.status}" after ${timeoutMs} ms (want ${statuses.join('|')})\n${this.tail()}`,
				);
			await pause(500);
		}
	}

	/**
	 * "Retry with original workflow" as the executions list does it: POST /rest/executions/:id/retry.
	 * n8n answers only once the retry execution has finished, so the new execution is followed in the
	 * list meanwhile (and judged by `stuck`, see settled()); returns it, settled.
	 */
	async retry(id, { stuck } = {}) {
		const known = new Set((await this.executions()).map((e) => e.id));
		const abort = new AbortController();
		let failure;
		const call = this.rest
			.raw('POST', `/executions/${id}/retry`, { loadWorkflow: false }, { signal: abort.signal })
			.then((r) => {
				if (r.status !== 200 || !r.body?.data?.id)
					failure = new Error(
						`POST /rest/executions/${id}/retry: HTTP ${r.status} ${JSON.stringify(r.body).slice(0, 2000)}\n${this.tail()}`,
					);
			})
			.catch((e) => {
				if (!abort.signal.aborted) failure = e;
			});
		try {
			const fresh = await this.until(`the retry of execution ${id} in the list`, async () => {
				if (failure) throw failure;
				return (await this.executions()).find(
					(e) => !known.has(e.id) && String(e.retryOf) === String(id),
				);
			});
			return await this.settled(fresh.id, { stuck });
		} finally {
			abort.abort();
			await call;
		}
	}
}

/** An execution that cannot finish any more (the emulator shows why). */
class StuckError extends Error {
	constructor(executionId, message) {
		super(message);
		this.executionId = executionId;
	}
}

/** Items (json) of a node's last run in an execution. */
function outputOf(execution, node) {
	const runs = execution?.data?.resultData?.runData?.[node];
	return (runs?.[runs.length - 1]?.data?.main?.[0] ?? []).map((item) => item.json);
}

/** One line about an execution for the report: id, status, mode, retryOf, which nodes ran how. */
function describeExecution(e) {
	const rd = e.data?.resultData ?? {};
	const runs = Object.entries(rd.runData ?? {})
		.map(
			([node, list]) =>
				`${node}[${list.map((r) => r.executionStatus ?? (r.error ? 'error' : 'success')).join(',')}]`,
		)
		.join(' ');
	const error = rd.error?.message ? `; error: ${rd.error.message.slice(0, 160)}` : '';
	return `execution ${e.id}: status ${e.status}, mode ${e.mode}${e.retryOf ? `, retryOf ${e.retryOf}` : ''}; ${runs}${error}`;
}

for (const version of e2eHosts()) {
	describe(
		`money safety in real n8n (webhook workflow, crashes and retries), host ${version}`,
		{ timeout: INSTALL_TIMEOUT_MS + 15 * 60_000 },
		() => {
			let inst;
			let emu;
			let n8n;
			let outDir;
			let suiteStarted;
			let label;
			const timings = [];

			before(
				async () => {
					await ensureHost({ version });
					suiteStarted = Date.now();
					outDir = fs.mkdtempSync(path.join(os.tmpdir(), `gs-e2e-money-${version}-`));
					inst = await openInstance({ version, fileAccessDir: outDir });
					label = `real n8n ${inst.n8nVersion}`;
					await inst.installPackage(await packOnce());
					emu = await startEmulator({ jobTiming: { queuedMs: 300, runningMs: 1500 } });
					await inst.importCredentials([
						{
							id: CREDENTIAL_ID,
							name: 'Generation Service (local emulator)',
							type: 'generationServiceApi',
							data: { apiKey: emu.keys.full, baseUrl: emu.baseUrl },
						},
					]);
					await inst.importWorkflow(moneyWorkflow(outDir));
					// Production webhooks exist only for active workflows; the CLI writes the database only, so
					// this happens before `n8n start`. 2.x publishes a version; 1.x sets `active`.
					const activate =
						version === '1'
							? await inst.n8n(['update:workflow', `--id=${WORKFLOW_ID}`, '--active=true'])
							: await inst.n8n(['publish:workflow', `--id=${WORKFLOW_ID}`]);
					assert.equal(
						activate.code,
						0,
						`activating the workflow failed:\n${activate.stdout}\n${activate.stderr}`,
					);
					n8n = new N8nServer(inst);
					timings.push(`setup ${((Date.now() - suiteStarted) / 1000).toFixed(1)} s`);
					const ms = await n8n.start();
					timings.push(`first start ${(ms / 1000).toFixed(1)} s`);
				},
				{ timeout: INSTALL_TIMEOUT_MS },
			);
			afterEach(() => emu?.assertNoViolations());
			after(async () => {
				await n8n?.stop();
				await emu?.close();
				await inst?.close();
				if (outDir && process.env.GS_E2E_KEEP !== '1')
					fs.rmSync(outDir, { recursive: true, force: true });
				if (suiteStarted)
					log(
						`host ${version}: wall time ${((Date.now() - suiteStarted) / 1000).toFixed(1)} s (${timings.join('; ')})`,
					);
			});

			const jobsOf = (prompt) => emu.control.jobs().filter((j) => j.input.prompt === prompt);
			const jobPosts = () =>
				emu.control.journal().filter((e) => e.method === 'POST' && e.path === '/v1/jobs');

			/**
			 * Money first, from the emulator: records the scenario's figures (duplicate jobs: beyond one per
			 * input; lost outputs: jobs not failed that no execution's output or error named), then asserts one
			 * job and one reservation per input.
			 */
			function judgeMoney(t, scenario, prompts, executions) {
				const jobs = prompts.flatMap(jobsOf);
				const named = JSON.stringify(executions.map((e) => e?.data?.resultData ?? {}));
				const duplicateJobs = prompts.reduce((n, p) => n + Math.max(0, jobsOf(p).length - 1), 0);
				const lostOutputs = jobs.filter(
					(j) => j.state !== 'failed' && !named.includes(j.id),
				).length;
				record('fault', { fault: `${scenario} (${label})`, duplicateJobs, lostOutputs });
				t.diagnostic(
					`${scenario}: ${jobs.length} job(s) for ${prompts.length} input(s), duplicate jobs ${duplicateJobs}, lost outputs ${lostOutputs}`,
				);
				const reserves = emu.control.ledger().entries.filter((e) => e.kind === 'reserve');
				for (const prompt of prompts) {
					const mine = jobsOf(prompt);
					assert.equal(mine.length, 1, `exactly one job for "${prompt}"`);
					assert.equal(
						reserves.filter((e) => e.jobId === mine[0].id).length,
						1,
						`exactly one reservation for ${mine[0].id}`,
					);
				}
				assert.equal(duplicateJobs, 0, 'no duplicate job');
				assert.equal(emu.control.ledger().invariantHolds, true, 'ledger invariant');
				return { jobs, lostOutputs };
			}

			/** Then the outputs: the job succeeded, its MP4 was written by the workflow, with its sha256. */
			function judgeOutputs(jobs, lostOutputs) {
				for (const job of jobs) {
					assert.equal(job.state, 'succeeded');
					const file = path.join(outDir, `${job.id}.mp4`);
					assert.ok(fs.existsSync(file), `the MP4 of ${job.id} was written by the workflow`);
					const mp4 = fs.readFileSync(file);
					assert.equal(sha256(mp4), job.output.sha256, 'MP4 bytes match the job sha256');
					assert.equal(mp4.toString('latin1', 4, 8), 'ftyp');
				}
				assert.equal(lostOutputs, 0, 'no lost output');
			}

			/**
			 * Tells that an execution of `prompt` can no longer finish: the job succeeded and the service
			 * delivered its MP4 (GET /v1/jobs/{id}/output 200) 15 s ago, yet the execution still runs.
			 */
			const stuckDownload = (prompt) => () => {
				const [job] = jobsOf(prompt);
				if (!job) return undefined;
				const output = emu.control
					.journal()
					.filter(
						(e) => e.method === 'GET' && e.path === `/v1/jobs/${job.id}/output` && e.status === 200,
					)
					.pop();
				if (!output || Date.now() - output.at < 15_000) return undefined;
				return (
					`PACKAGE: on ${label}, "Wait for Job" never returns: job ${job.id} succeeded and the service ` +
					`delivered its MP4 (GET /v1/jobs/${job.id}/output → 200) ${Math.round((Date.now() - output.at) / 1000)} s ago, ` +
					"but the execution is still running: the download's hand-off to n8n's binary store " +
					'(nodes/shared/service/files.ts) never ended. (From 4f88ba7 until 43eaeda fixed it, the response ' +
					"stream was paused explicitly, and n8n 1.x's default binary data mode reads it with " +
					"stream.on('data') (n8n-core dist/binary-data/utils.js streamToBuffer), which never resumes a " +
					'paused stream.)'
				);
			};

			/**
			 * Runs a scenario's flow; if an execution gets stuck after the money was committed, the money is
			 * still judged (and recorded) before the scenario fails with the stuck execution's explanation.
			 */
			async function scenario(t, name, prompts, flow) {
				let executions;
				try {
					executions = await flow();
				} catch (error) {
					if (!(error instanceof StuckError)) throw error;
					t.diagnostic(`execution ${error.executionId} is stuck: ${error.message}`);
					judgeMoney(t, name, prompts, []);
					assert.fail(error.message);
				}
				const { jobs, lostOutputs } = judgeMoney(t, name, prompts, executions);
				judgeOutputs(jobs, lostOutputs);
				return { executions, jobs };
			}

			/**
			 * The Create output of the retry execution: it must have picked the job up (adopted) instead of
			 * creating one; its derived Idempotency-Key is compared with the one the first try sent.
			 */
			function checkRetriedCreate(t, retried, job, { keyMustMatch }) {
				const [created] = outputOf(retried, 'Create');
				assert.ok(created, `Create ran in the retry: ${describeExecution(retried)}`);
				assert.equal(created.id, job.id, 'the retry went on with the job the first try created');
				const firstKey = emu.control.snapshot().jobs.find((j) => j.id === job.id)?.idempotencyKey;
				const sameKey = created.idempotencyKey === firstKey;
				t.diagnostic(
					`retry: Create adopted=${created.adopted} replayed=${created.replayed}; Idempotency-Key ${sameKey ? 'the same as' : 'DIFFERENT from'} the first try's (${firstKey} → ${created.idempotencyKey})`,
				);
				assert.equal(
					created.adopted,
					true,
					`PACKAGE: in an execution of mode 'retry' Create must pick up the job of the same input (adopted) instead of creating one; got adopted=${created.adopted}, replayed=${created.replayed}. Look at getMode() and the GET /v1/jobs lookup in the n8n log (GS_E2E_N8N_LOG_LEVEL=debug).`,
				);
				if (keyMustMatch)
					assert.equal(
						created.idempotencyKey,
						firstKey,
						`PACKAGE: the default Idempotency-Key must stay the same when ${label} retries this execution (root-execution anchor from getExecutionContext()); first try ${firstKey}, retry ${created.idempotencyKey}`,
					);
				const [waited] = outputOf(retried, 'Wait for Job');
				assert.equal(waited?.id, job.id);
				assert.equal(waited?.state, 'succeeded');
				assert.equal(waited?.output?.sha256, job.output.sha256);
			}

			/** Kill n8n, start it again on the same user folder, and return the crashed execution. */
			async function crashAndRestart(t, known) {
				await n8n.kill();
				const ms = await n8n.start();
				timings.push(`restart ${(ms / 1000).toFixed(1)} s`);
				const crashed = await n8n.newExecution(known);
				const e = await n8n.settled(crashed.id, { statuses: ['crashed', 'error', 'success'] });
				t.diagnostic(`after the restart (${(ms / 1000).toFixed(1)} s): ${describeExecution(e)}`);
				return e;
			}

			let firstPrompt;
			let firstJobId;

			it('(a) reset after commit on every try: the execution fails; its retry through REST picks the job up — 1 job, 1 charge, MP4', async (t) => {
				await n8n.ensureRunning();
				emu.control.clearJournal();
				const prompt = `money safety (a) reset after commit, host ${version}`;
				firstPrompt = prompt;
				// every try of the node's transport is answered by a reset after the service committed the job
				emu.control.injectFault({
					method: 'POST',
					path: '/v1/jobs',
					action: 'reset_after_commit',
					times: RETRY_POLICY.attempts,
				});
				let failed;
				const { executions, jobs } = await scenario(
					t,
					'n8n execution failed after a reset after commit, retried through REST',
					[prompt],
					async () => {
						const known = new Set((await n8n.executions()).map((e) => e.id));
						await n8n.callWebhook({ prompt });
						const started = await n8n.newExecution(known);
						failed = await n8n.settled(started.id);
						t.diagnostic(describeExecution(failed));
						emu.control.clearFaults();
						assert.equal(failed.status, 'error', 'the execution fails: Create never got an answer');
						assert.equal(failed.mode, 'webhook');
						assert.equal(failed.data.resultData.lastNodeExecuted, 'Create');
						const posts = jobPosts();
						assert.equal(posts.length, RETRY_POLICY.attempts, 'every try of POST /v1/jobs');
						assert.equal(
							new Set(posts.map((p) => p.idempotencyKey)).size,
							1,
							'one Idempotency-Key',
						);
						const retried = await n8n.retry(failed.id, { stuck: stuckDownload(prompt) });
						t.diagnostic(describeExecution(retried));
						return [failed, retried];
					},
				);
				const retried = executions[1];
				assert.equal(retried.status, 'success', describeExecution(retried));
				assert.equal(retried.mode, 'retry');
				assert.equal(String(retried.retryOf), String(failed.id));
				assert.equal(jobPosts().length, RETRY_POLICY.attempts, 'the retry created nothing');
				checkRetriedCreate(t, retried, jobs[0], { keyMustMatch: true });
				firstJobId = jobs[0].id;
				t.diagnostic(`executions: ${JSON.stringify(await n8n.executions())}`);
			});

			it('(d) a deliberate second run with another prompt creates a second job', async (t) => {
				await n8n.ensureRunning();
				emu.control.clearJournal();
				const prompt = `money safety (d) another prompt, host ${version}`;
				const { executions, jobs } = await scenario(
					t,
					'deliberate second run with another input',
					[prompt],
					async () => {
						const known = new Set((await n8n.executions()).map((e) => e.id));
						await n8n.callWebhook({ prompt });
						const started = await n8n.newExecution(known);
						const done = await n8n.settled(started.id, { stuck: stuckDownload(prompt) });
						t.diagnostic(describeExecution(done));
						return [done];
					},
				);
				const [done] = executions;
				assert.equal(done.status, 'success', describeExecution(done));
				assert.equal(done.mode, 'webhook');
				const [created] = outputOf(done, 'Create');
				assert.equal(created.adopted, false, 'another input: nothing to pick up');
				assert.equal(created.replayed, false);
				assert.equal(created.id, jobs[0].id);
				assert.notEqual(created.id, firstJobId);
				assert.equal(jobPosts().length, 1);
				if (firstPrompt)
					assert.equal(
						jobsOf(firstPrompt).length + jobsOf(prompt).length,
						2,
						'two runs with two inputs: two jobs, one each',
					);
			});

			/** The crashed execution (of the webhook) retried through n8n's REST API: [crashed, retried]. */
			async function retryCrashed(t, crashed, prompt) {
				assert.equal(crashed.status, 'crashed');
				assert.equal(crashed.mode, 'webhook');
				const retried = await n8n.retry(crashed.id, { stuck: stuckDownload(prompt) });
				t.diagnostic(describeExecution(retried));
				return [crashed, retried];
			}

			/**
			 * The retry succeeded without a second POST /v1/jobs. n8n 2.x keeps the execution's anchor
			 * (runtimeData) across a crash; 1.x does not without progress saving, so there only the pick-up
			 * of the job protects the money.
			 */
			function expectRetryCreatedNothing(t, retried, job) {
				assert.equal(retried.status, 'success', describeExecution(retried));
				assert.equal(retried.mode, 'retry');
				assert.equal(jobPosts().length, 1, 'one POST /v1/jobs: the retry created nothing');
				checkRetriedCreate(t, retried, job, { keyMustMatch: version !== '1' });
			}

			it('(b) n8n killed while the answer of the create is in flight, restarted, crashed execution retried — 1 job, 1 charge, MP4', async (t) => {
				await n8n.ensureRunning();
				emu.control.clearJournal();
				const prompt = `money safety (b) killed during create, host ${version}`;
				// the service commits the job at arrival and holds the answer: n8n dies before it comes
				emu.control.injectFault({
					method: 'POST',
					path: '/v1/jobs',
					action: 'delay_response',
					delayMs: 60_000,
					times: 1,
				});
				const { executions, jobs } = await scenario(
					t,
					'n8n killed while the create answer was in flight, crashed execution retried through REST',
					[prompt],
					async () => {
						const known = new Set((await n8n.executions()).map((e) => e.id));
						await n8n.callWebhook({ prompt });
						await n8n.until('the job to be committed', () => jobsOf(prompt)[0], { everyMs: 100 });
						const crashed = await crashAndRestart(t, known);
						emu.control.clearFaults();
						return await retryCrashed(t, crashed, prompt);
					},
				);
				expectRetryCreatedNothing(t, executions[1], jobs[0]);
			});

			it('(c) n8n killed during Wait for Job, restarted, crashed execution retried — 1 job, 1 charge, MP4', async (t) => {
				await n8n.ensureRunning();
				emu.control.clearJournal();
				const prompt = `money safety (c) killed during wait, host ${version}`;
				emu.control.scriptJobs([{ queuedMs: 500, runningMs: 20_000 }]);
				const { executions, jobs } = await scenario(
					t,
					'n8n killed during Wait for Job, crashed execution retried through REST',
					[prompt],
					async () => {
						const known = new Set((await n8n.executions()).map((e) => e.id));
						await n8n.callWebhook({ prompt });
						const job = await n8n.until('the job to be created', () => jobsOf(prompt)[0], {
							everyMs: 100,
						});
						await n8n.until(
							'Wait for Job to poll the job',
							() =>
								emu.control
									.journal()
									.find(
										(e) =>
											e.method === 'GET' && e.path === `/v1/jobs/${job.id}` && e.status === 200,
									),
							{ timeoutMs: 30_000, everyMs: 100 },
						);
						assert.notEqual(jobsOf(prompt)[0].state, 'succeeded', 'the job still runs at the kill');
						return await retryCrashed(t, await crashAndRestart(t, known), prompt);
					},
				);
				expectRetryCreatedNothing(t, executions[1], jobs[0]);
				t.diagnostic(`executions: ${JSON.stringify(await n8n.executions())}`);
			});
		},
	);
}
