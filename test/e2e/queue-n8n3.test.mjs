// Queue mode as n8n 3.0 runs it, on n8n 2.41.1 (one main, two workers of concurrency 1, PostgreSQL, Redis,
// database binary data; unverified community packages off and manual executions on the workers, 3.0's
// defaults): the package installed the way n8n offers for an unverified package, from environment variables,
// and what a Stop and the node's Timeout do to a wait on a worker.
//
//   a. N8N_COMMUNITY_PACKAGES names the package with its version and a wrong sha512 checksum: n8n refuses it
//      (its exact words, quoted in docs/n8n-3.md); without a checksum the main refuses to start
//   b. the right checksum (the packed tarball's, which the local registry also gives as dist.integrity): the
//      main installs the package from the registry (verdaccio, as community-install.test.mjs) and the workers,
//      running, install it too; nothing is put into a nodes folder by hand. Two manual runs of Create (Wait
//      for Completion) at once run one on each worker against the emulator
//   c. Stop (POST /rest/executions/:id/stop, the editor's stop button) on an execution whose Create with Wait
//      for Completion waits on a worker, then on one whose Wait for Job waits: canceled at once, the worker's
//      slot taken by a queued execution, no further request with that execution's key; meanwhile a third
//      execution's Create waits past its Timeout (1 min, the least a user can set) and ends with an error
//      naming the job
//   d. a worker started after the install with an empty nodes folder (a new container): n8n 2.41.1 does not
//      install the package on it, with or without N8N_REINSTALL_MISSING_PACKAGES (docs/n8n-3.md says what to
//      do instead)
//   e. the commands docs/n8n-3.md gives for the checksum (npm view, node, openssl) print the one n8n checks
//
// Each execution has its own service key, so the emulator's journal tells its requests apart. The referee
// must see no client mistake. Runs on host 2 (n8n 2.41.1) when GS_E2E_HOSTS includes it.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';

import { codeBlocks } from '../../tools/lib/doc-links.mjs';
import { cleanEnv, run } from '../../tools/lib/process.mjs';
import { startQueueStack } from '../../tools/lib/queue-stack.mjs';
import { startRegistry } from '../../tools/lib/registry.mjs';
import { itemsOf } from '../../tools/lib/run-data.mjs';
import { pause, waitUntil } from '../../tools/lib/wait.mjs';
import {
	account,
	createJob,
	manualTrigger,
	waitForJob,
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
} from './harness.mjs';

const log = (msg) => process.stderr.write(`[queue-n8n3] ${msg}\n`);
const secs = (ms) => `${(ms / 1000).toFixed(1)} s`;

/** The checksum n8n wants: npm's integrity of the tarball, "sha512-" and the base64 of its SHA-512. */
const integrityOf = (bytes) => `sha512-${createHash('sha512').update(bytes).digest('base64')}`;
/** N8N_COMMUNITY_PACKAGES naming this package at its version, with `checksum` (none when undefined). */
const packagesEnv = (checksum) =>
	JSON.stringify([{ name: PACKAGE.name, version: PACKAGE.version, ...(checksum && { checksum }) }]);

/** n8n 2.41.1's words for a checksum that is not the registry's (npm-utils.js verifyIntegrity, see docs). */
const WRONG_CHECKSUM_LOG = `Failed to install community package '${PACKAGE.name}@${PACKAGE.version}' from env: `;
/** …and for a package named without one while unverified packages are off: the main does not start. */
const NO_CHECKSUM_LOG = `N8N_COMMUNITY_PACKAGES: no checksum available for '${PACKAGE.name}@${PACKAGE.version}' and unverified packages are disabled`;
/** What the main logs when it installed the package from the list, and a worker when it followed. */
const INSTALLED_LOG = `Installed community package '${PACKAGE.name}@${PACKAGE.version}' from env`;
const WORKER_INSTALLED_LOG = `Community package installed: ${PACKAGE.name}`;
/** n8n reads N8N_COMMUNITY_PACKAGES only where it logs this (the main's start). */
const RECONCILING_LOG = 'reconciling installed community packages from env vars';

const WORKERS = 2;
const POLL_SECONDS = 5; // the Job node's default poll interval
// Stop: the waits stopped here look every 15 s, so a Stop that only took effect at the node's next look would
// show as seconds, not as the fraction of a second an abort takes
const STOP_POLL_SECONDS = 15;
// a Stop's effect (canceled, the slot taken by the next execution): measured 0.14–0.24 s on this 2-core
// machine; the bound leaves room for a busy one, and is a fifth of the poll interval above
const STOP_BOUND_MS = 3000;
const LONG_JOB = { queuedMs: 500, runningMs: 10 * 60_000 };
// the key's requests the abort may not have caught: one already on its way when the Stop arrived
const IN_FLIGHT_MS = 1000;

const ENDED = (status) => !['running', 'new', 'waiting', 'unknown'].includes(status);

const runQueue = e2eHosts().includes('2');

describe(
	'queue mode as n8n 3.0 runs it (n8n 2.41.1, main + 2 workers of concurrency 1): installed from environment variables with its checksum; Stop and Timeout on a worker',
	{
		skip: runQueue ? false : 'GS_E2E_HOSTS does not include host 2',
		timeout: INSTALL_TIMEOUT_MS + 15 * 60_000,
	},
	() => {
		let emu;
		let registry;
		let stack;
		let checksum;
		let installed = false;
		const suiteStart = Date.now();
		const keys = {};
		const credentials = [];
		/** A credential of its own service key per workflow: the journal's keyId tells the executions apart. */
		const credentialFor = (name) => ({ id: `gsN3${name}`, name: `Generation Service (${name})` });
		const on = (name) => ({ credential: credentialFor(name) });

		const WF = {
			run: 'gsN3Run',
			stopCreate: 'gsN3StopCreate',
			stopWait: 'gsN3StopWait',
			next: 'gsN3Next',
			timeout: 'gsN3Timeout',
		};
		const TRIGGER = 'Manual';
		const prompt = (what) => `=queue n8n3 ${what}, execution {{ $execution.id }}`;
		const textToVideo = (what, options) => ({
			mode: 'text_to_video',
			prompt: prompt(what),
			durationSeconds: 5,
			aspectRatio: '16:9',
			options,
		});
		const workflows = () => [
			workflow({
				id: WF.run,
				name: 'n8n 3.0: create and wait',
				ids: 'c1000000',
				nodes: [
					manualTrigger(TRIGGER),
					createJob('Create', textToVideo('b', { waitForCompletion: true }), on('run')),
				],
			}),
			workflow({
				id: WF.stopCreate,
				name: 'n8n 3.0: Stop during Wait for Completion',
				ids: 'c2000000',
				nodes: [
					manualTrigger(TRIGGER),
					createJob(
						'Create',
						textToVideo('c stop create', {
							waitForCompletion: true,
							pollInterval: STOP_POLL_SECONDS,
						}),
						on('stopCreate'),
					),
				],
			}),
			workflow({
				id: WF.stopWait,
				name: 'n8n 3.0: Stop during Wait for Job',
				ids: 'c3000000',
				nodes: [
					manualTrigger(TRIGGER),
					createJob('Create', textToVideo('c stop wait', {}), on('stopWait')),
					waitForJob(
						'Wait for Job',
						'={{ $json.id }}',
						{ pollInterval: STOP_POLL_SECONDS },
						on('stopWait'),
					),
				],
			}),
			workflow({
				id: WF.next,
				name: 'n8n 3.0: the next execution',
				ids: 'c4000000',
				nodes: [manualTrigger(TRIGGER), account('Identity', 'getIdentity', on('next'))],
			}),
			workflow({
				id: WF.timeout,
				name: 'n8n 3.0: Timeout on a worker',
				ids: 'c5000000',
				nodes: [
					manualTrigger(TRIGGER),
					createJob(
						'Create',
						textToVideo('c timeout', { waitForCompletion: true, timeout: 1 }),
						on('timeout'),
					),
				],
			}),
		];

		/** The new part of a process's log since `from` (its length then). */
		const logSince = (name, from) => stack.logOf(name).slice(from);
		const logLengths = () =>
			Object.fromEntries(stack.processes().map((p) => [p.name, stack.logOf(p.name).length]));
		const nodesDir = (name) =>
			path.join(stack.processes().find((p) => p.name === name).userFolder, '.n8n', 'nodes');
		/** The version of the package in a process's nodes folder, or undefined. */
		const installedIn = (name) => {
			const file = path.join(nodesDir(name), 'node_modules', PACKAGE.name, 'package.json');
			return fs.existsSync(file) ? JSON.parse(fs.readFileSync(file, 'utf8')).version : undefined;
		};
		const workerNames = () => stack.workers.map((w) => w.name);
		const statusOf = async (id) => (await stack.rest('GET', `/executions/${id}`)).status;
		/** The execution (run data parsed) once n8n ended it. */
		const ended = (id, timeoutMs = 120_000) =>
			waitUntil(
				`execution ${id} to end`,
				async () => {
					const e = await stack.execution(id);
					return ENDED(e.status) ? e : undefined;
				},
				{ timeoutMs, everyMs: 250 },
			);
		/** A manual run (the editor's Execute workflow), on a worker as 3.0 does: its execution id. */
		const start = (id) => stack.startFromTrigger(id, TRIGGER);
		/** The worker that logged "Worker started execution <id>", once one did. */
		const startedOn = (id, timeoutMs = 30_000) =>
			waitUntil(`execution ${id} started on a worker`, () => stack.workerOfExecution(id), {
				timeoutMs,
				everyMs: 50,
			});
		/** The job execution `id` of a workflow made with textToVideo(`what`) created. */
		const jobOf = (what, id, timeoutMs = 30_000) =>
			waitUntil(
				`the job of execution ${id}`,
				() =>
					emu.control.jobs().find((j) => j.input.prompt === `queue n8n3 ${what}, execution ${id}`),
				{ timeoutMs, everyMs: 100 },
			);
		/** The journal's requests made with the key of `name`. */
		const requestsOf = (name) => emu.control.journal().filter((e) => e.keyId === keys[name].keyId);

		before(
			async () => {
				await ensureHost({ version: '2' });
				const tarball = await packOnce();
				checksum = integrityOf(fs.readFileSync(tarball));
				[emu, registry] = await Promise.all([
					startEmulator({ jobTiming: { queuedMs: 500, runningMs: 2500 } }),
					startRegistry({ log }),
				]);
				for (const name of Object.keys(WF)) {
					keys[name] = emu.control.createKey({ requestsPerMinute: 60, label: `n8n3-${name}` });
					credentials.push({
						...credentialFor(name),
						type: 'generationServiceApi',
						data: { apiKey: keys[name].secret, baseUrl: emu.baseUrl },
					});
				}
				await registry.publish(tarball);
				// every process gets the same list (as a user sets it everywhere); the main's first start has a
				// wrong checksum instead (test a), its next ones the right one
				stack = await startQueueStack({
					tarball,
					workers: WORKERS,
					concurrency: 1,
					// the workers hear the main's install only while they run (test b, docs/n8n-3.md)
					workersFirst: true,
					env: {
						...registry.n8nEnv(),
						N8N_UNVERIFIED_PACKAGES_ENABLED: 'false',
						N8N_COMMUNITY_PACKAGES_MANAGED_BY_ENV: 'true',
						N8N_COMMUNITY_PACKAGES: packagesEnv(checksum),
						OFFLOAD_MANUAL_EXECUTIONS_TO_WORKERS: 'true',
					},
					perProcess: {
						main: {
							package: false,
							env: { N8N_COMMUNITY_PACKAGES: packagesEnv(integrityOf('not the tarball')) },
						},
						...Object.fromEntries(
							Array.from({ length: WORKERS }, (_, i) => [`worker${i + 1}`, { package: false }]),
						),
					},
					credentials,
					workflows: workflows(),
					log,
				});
				log(`stack up after ${secs(Date.now() - suiteStart)}: ${JSON.stringify(stack.timings)}`);
			},
			{ timeout: INSTALL_TIMEOUT_MS },
		);

		after(async () => {
			if (stack) {
				const failed = !installed;
				if (failed) log(stack.logTails(20));
				await stack.stop({ keepLogs: failed });
			}
			await registry?.stop();
			await emu?.close(); // the referee: fails unless it saw no client mistake
			log(`suite wall time ${secs(Date.now() - suiteStart)}`);
		});

		it('a. a wrong checksum: n8n refuses the package (its words); without one the main refuses to start', async (t) => {
			// the main started with a checksum that is not the tarball's
			const words = stack
				.logOf('main')
				.split('\n')
				.find((l) => l.includes(WRONG_CHECKSUM_LOG));
			assert.ok(words, `the main logged no refusal:\n${stack.logTails(30)}`);
			const refusal = words
				.slice(words.indexOf(WRONG_CHECKSUM_LOG) + WRONG_CHECKSUM_LOG.length)
				.trim();
			t.diagnostic(`wrong checksum, n8n's words: "${WRONG_CHECKSUM_LOG}${refusal}"`);
			assert.equal(
				refusal,
				'Failed to verify package checksum. Try restarting n8n and attempting the installation again.',
			);
			assert.deepEqual(await stack.rest('GET', '/community-packages'), []);
			for (const name of ['main', ...workerNames()])
				assert.equal(installedIn(name), undefined, `${name} has no copy of the package`);

			// no checksum at all, unverified packages off: the main stops at start
			await stack.stopMain();
			const from = logLengths();
			const t0 = Date.now();
			const failure = await stack
				.startMain({ env: { N8N_COMMUNITY_PACKAGES: packagesEnv(undefined) } })
				.then(
					() => undefined,
					(error) => error,
				);
			assert.ok(failure, 'the main started without a checksum');
			const mainLog = logSince('main', from.main);
			t.diagnostic(
				`without a checksum the main exited after ${secs(Date.now() - t0)}: ${mainLog
					.split('\n')
					.filter((l) => l.includes('N8N_COMMUNITY_PACKAGES'))
					.slice(0, 2)
					.join(' | ')}`,
			);
			assert.match(failure.message, /process exited/);
			assert.ok(mainLog.includes(NO_CHECKSUM_LOG), mainLog.slice(-3000));
		});

		it('b. the right checksum: the main and both workers load the package; a run on each worker', async (t) => {
			const from = logLengths();
			const t0 = Date.now();
			// the fix: the tarball's checksum (as the workers have it), and a start of the main
			const started = await stack.startMain({
				env: { N8N_COMMUNITY_PACKAGES: packagesEnv(checksum) },
			});
			const mainLog = () => logSince('main', from.main);
			assert.ok(
				mainLog().includes(INSTALLED_LOG),
				`the main did not install the package:\n${mainLog().split('\n').slice(-40).join('\n')}`,
			);
			for (const name of workerNames())
				await waitUntil(
					`${name} installs the package the main announced`,
					() => logSince(name, from[name]).includes(WORKER_INSTALLED_LOG),
					{ timeoutMs: 120_000 },
				);
			t.diagnostic(
				`main ready in ${secs(started.ms)} with the package; both workers had it ${secs(Date.now() - t0)} after the main's start`,
			);
			for (const name of ['main', ...workerNames()])
				assert.equal(installedIn(name), PACKAGE.version, `${name}'s nodes folder`);
			const packages = await stack.rest('GET', '/community-packages');
			assert.equal(packages.length, 1, JSON.stringify(packages));
			assert.equal(packages[0].packageName, PACKAGE.name);
			assert.equal(packages[0].installedVersion, PACKAGE.version);
			assert.equal(packages[0].installedNodes.length, PACKAGE.n8n.nodes.length);
			assert.notEqual(packages[0].failedLoading, true);
			// only the main reads the list; the workers install what it announces (Redis)
			assert.ok(mainLog().includes(RECONCILING_LOG));
			for (const name of workerNames())
				assert.ok(!stack.logOf(name).includes(RECONCILING_LOG), `${name} read the list itself`);
			// the Settings page turns read-only: n8n's REST refuses an install
			const refused = await stack.rest('POST', '/community-packages', { name: PACKAGE.name }).then(
				() => undefined,
				(error) => error,
			);
			assert.equal(refused?.status, 400);
			t.diagnostic(`Community Nodes install while managed by env: ${refused.body?.message}`);
			assert.match(refused.body?.message ?? '', /managed via environment variables/);

			// two runs at once: one on each worker (concurrency 1), each a job and its MP4
			emu.control.clearViolations();
			const t1 = Date.now();
			const ids = [await start(WF.run), await start(WF.run)];
			const runs = await Promise.all(ids.map((id) => ended(id)));
			const where = ids.map((id) => stack.workerOfExecution(id));
			t.diagnostic(`runs ${ids.join(', ')} on ${where.join(', ')}: ${secs(Date.now() - t1)}`);
			for (const e of runs) {
				assert.equal(e.status, 'success', JSON.stringify(e.data?.resultData?.error ?? {}));
				assert.equal(e.mode, 'manual');
				const [item] = itemsOf(e, 'Create');
				const job = emu.control.jobs().find((j) => j.id === item?.json.id);
				assert.equal(job?.state, 'succeeded');
				assert.equal(item.binary?.data?.mimeType, 'video/mp4');
			}
			assert.deepEqual([...where].sort(), workerNames(), 'one run on each worker');
			emu.assertNoViolations();
			installed = true;
		});

		it('c. Stop on a worker ends a wait at once and frees the slot; the Timeout ends one too', async (t) => {
			assert.ok(installed, 'the package did not load (test b)');
			emu.control.clearViolations();
			const phase = Date.now();
			// T: Create waits for a 10-minute job under a 1-minute Timeout; it holds one worker meanwhile
			emu.control.scriptJobs([LONG_JOB]);
			const timeoutRun = await start(WF.timeout);
			const tWorker = await startedOn(timeoutRun);
			const tJob = await jobOf('c timeout', timeoutRun);
			const free = workerNames().find((w) => w !== tWorker);
			const stillWaiting = async (what) =>
				assert.equal(await statusOf(timeoutRun), 'running', `the Timeout run ended before ${what}`);

			/**
			 * Stops `id` (waiting on `worker` for `job`, with its key `name`) while `queued` waits for a slot:
			 * the times from the Stop call to n8n's answer, to the status canceled and to `queued` starting.
			 */
			const stopWhileQueued = async (id, name, job, worker) => {
				const queued = await start(WF.next);
				await pause(1500);
				assert.equal(await statusOf(queued), 'new', 'the next execution waits for a slot');
				assert.equal(stack.workerOfExecution(queued), undefined);
				const t0 = Date.now();
				await stack.rest('POST', `/executions/${id}/stop`, {});
				const answered = Date.now() - t0;
				await waitUntil(
					`execution ${id} canceled`,
					async () => (await statusOf(id)) === 'canceled',
					{
						timeoutMs: 30_000,
						everyMs: 50,
					},
				);
				const canceled = Date.now() - t0;
				// n8n writes "canceled" at once; the worker frees its slot when the node's wait ends
				const nextOn = await startedOn(queued, 60_000);
				const freed = Date.now() - t0;
				t.diagnostic(
					`${name}: execution ${id} on ${worker} (job ${job.id}): Stop answered in ${answered} ms, canceled after ${canceled} ms, the queued ${queued} started on ${nextOn} after ${freed} ms`,
				);
				assert.ok(canceled < STOP_BOUND_MS, `canceled ${canceled} ms after the Stop`);
				assert.ok(
					freed < STOP_BOUND_MS && nextOn === worker,
					`the queued execution started ${freed} ms after the Stop on ${nextOn}, not at once on ${worker} (the stopped one's worker)`,
				);
				const next = await ended(queued);
				assert.equal(next.status, 'success', JSON.stringify(next.data?.resultData?.error ?? {}));
				const stopped = await ended(id);
				assert.equal(stopped.status, 'canceled');
				assert.equal(emu.control.jobs().find((j) => j.id === job.id).state, 'running');
				return { t0, freed };
			};

			// 1. Create with Wait for Completion, waiting on the other worker
			emu.control.scriptJobs([LONG_JOB]);
			const createRun = await start(WF.stopCreate);
			const createWorker = await startedOn(createRun);
			assert.equal(createWorker, free);
			const createJob1 = await jobOf('c stop create', createRun);
			await pause(2000); // mid-wait: the next look is 15 s after the create
			await stillWaiting('the first Stop');
			const stop1 = await stopWhileQueued(
				createRun,
				'Create (Wait for Completion)',
				createJob1,
				free,
			);

			// 2. Wait for Job, on the same worker again
			emu.control.scriptJobs([LONG_JOB]);
			const waitRun = await start(WF.stopWait);
			assert.equal(await startedOn(waitRun), free);
			const waitJob = await jobOf('c stop wait', waitRun);
			await waitUntil(
				'Wait for Job reading its job',
				() =>
					requestsOf('stopWait').some(
						(e) => e.method === 'GET' && e.path === `/v1/jobs/${waitJob.id}`,
					),
				{ timeoutMs: 30_000, everyMs: 100 },
			);
			await pause(1000);
			await stillWaiting('the second Stop');
			const stop2 = await stopWhileQueued(waitRun, 'Wait for Job', waitJob, free);

			// 3. the Timeout run ends by itself, naming its job
			const timedOut = await ended(timeoutRun, 120_000);
			const tEnded = new Date(timedOut.stoppedAt).getTime();
			const error = timedOut.data?.resultData?.error;
			const waitedS = (tEnded - tJob.createdAt) / 1000;
			t.diagnostic(
				`Timeout (1 min): execution ${timeoutRun} on ${tWorker} ended ${timedOut.status} ${waitedS.toFixed(1)} s after its job ${tJob.id} was created: "${error?.message}"`,
			);
			assert.equal(timedOut.status, 'error');
			assert.match(
				error?.message ?? '',
				new RegExp(
					`^Job ${tJob.id} has not finished after 1 min \\(state: running\\)\\. It keeps running`,
				),
			);
			assert.ok(waitedS >= 50 && waitedS < 75, `the Timeout ended the wait after ${waitedS} s`);

			// no request with a stopped (or timed-out) execution's key after the abort could reach it; one poll
			// interval and a half passes first, in which a wait that went on would have looked
			await pause(
				Math.max(
					0,
					stop2.t0 + STOP_POLL_SECONDS * 1500 - Date.now(),
					tEnded + POLL_SECONDS * 1500 - Date.now(),
				),
			);
			const after = (name, t0) => requestsOf(name).filter((e) => e.at > t0 + IN_FLIGHT_MS);
			const inFlight = (name, t0) =>
				requestsOf(name).filter((e) => e.at >= t0 && e.at <= t0 + IN_FLIGHT_MS);
			for (const [name, t0] of [
				['stopCreate', stop1.t0],
				['stopWait', stop2.t0],
				['timeout', tEnded],
			]) {
				t.diagnostic(
					`${name}: ${inFlight(name, t0).length} request(s) within ${IN_FLIGHT_MS} ms of the end, ${after(name, t0).length} after`,
				);
				assert.deepEqual(
					after(name, t0).map((e) => `${e.method} ${e.path}`),
					[],
					`requests with the ${name} key after its execution ended`,
				);
			}
			t.diagnostic(`phase ${secs(Date.now() - phase)}`);
			emu.assertNoViolations();
		});

		it('d. a worker started later with an empty nodes folder does not get the package', async (t) => {
			assert.ok(installed, 'the package did not load (test b)');
			const late = workerNames().at(-1);
			await stack.stopWorker(late);
			fs.rmSync(nodesDir(late), { recursive: true, force: true });
			let from = logLengths();
			let t0 = Date.now();
			await stack.startWorker(late);
			const plain = logSince(late, from[late]);
			t.diagnostic(`${late} started again with an empty nodes folder in ${secs(Date.now() - t0)}`);
			assert.match(plain, /n8n detected that some packages are missing/);
			assert.equal(installedIn(late), undefined);
			await stack.stopWorker(late);

			from = logLengths();
			t0 = Date.now();
			await stack.startWorker(late, { env: { N8N_REINSTALL_MISSING_PACKAGES: 'true' } });
			const reinstall = logSince(late, from[late]);
			const words = reinstall
				.split('\n')
				.find((l) => l.includes(`Failed to reinstall community package ${PACKAGE.name}`));
			t.diagnostic(
				`with N8N_REINSTALL_MISSING_PACKAGES=true (${secs(Date.now() - t0)}): ${words?.trim()}`,
			);
			assert.ok(
				words?.includes('Installation of unverified community packages is forbidden!'),
				reinstall.slice(-3000),
			);
			assert.equal(installedIn(late), undefined);
		});

		it("e. docs/n8n-3.md's checksum commands print the checksum n8n checks", async (t) => {
			const doc = fs.readFileSync(path.join(REPO, 'docs', 'n8n-3.md'), 'utf8');
			const [block] = codeBlocks(doc).filter((b) => b.intro.includes('prints the checksum'));
			assert.ok(block, 'docs/n8n-3.md has no block after "prints the checksum"');
			const lines = block.code.split('\n').filter((l) => l.trim() && !l.trim().startsWith('#'));
			const tarball = await packOnce();
			const tgz = path.basename(tarball);
			for (const line of lines) {
				// the reader's registry is npm's; here the local one, with the packed tarball in the current folder
				const command = line.replace(/\s+#.*$/, '').trim();
				const local = command.startsWith('npm view')
					? `${command} --registry ${registry.url}`
					: command;
				const r = await run('sh', ['-c', local], {
					cwd: path.dirname(tarball),
					env: { ...cleanEnv(), ...registry.npmEnv },
					timeoutMs: 60_000,
				});
				t.diagnostic(`${command} → ${r.stdout.trim()}`);
				assert.equal(r.code, 0, r.stderr);
				assert.equal(r.stdout.trim(), checksum, `${command} (in ${tgz}'s folder)`);
			}
			assert.ok(lines.some((l) => l.startsWith('npm view')));
			assert.ok(lines.some((l) => !l.startsWith('npm view')));
		});
	},
);
