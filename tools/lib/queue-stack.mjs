// n8n in queue mode on this machine: PostgreSQL 17, Redis, a main and N workers of n8n 2.x, each n8n process
// with its own user folder holding the package (as Community Nodes installs it). The stack has the shape of
// stack-api.mjs (REST as the owner, logs, memory) plus what only queue mode has: workers to stop, kill and
// start, Redis to restart. One stack per machine at a time (a lock in the cache; GS_QUEUE_STACKS allows more); stop()
// releases it.
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

import { cacheDir } from './cache.mjs';
import { trackDir, untrackDir } from './exit.mjs';
import { secs } from './format.mjs';
import { QUIET_N8N_ENV, createInstance } from './instance.mjs';
import { freePort } from './net.mjs';
import { startPostgres } from './postgres.mjs';
import { ensureQueuePrereqs } from './prereqs.mjs';
import { withLock } from './locks.mjs';
import { processControl, processStarter } from './queue-processes.mjs';
import { startRedis } from './redis.mjs';
import { n8nRest } from './rest.mjs';
import { processFacade, restFacade } from './stack-api.mjs';

const defaultLog = (msg) => process.stderr.write(`[queue-host] ${msg}\n`);

/**
 * How many queue stacks may run at once on this machine: GS_QUEUE_STACKS (default 1). `npm test` lets its suites
 * run two side by side; the benchmarks keep the default, so their figures come from a stack alone (another
 * process asking for 2 can still start a stack beside one of theirs: run the benchmarks alone).
 */
export function queueStackSlots(env = process.env) {
	const n = Number(env.GS_QUEUE_STACKS ?? 1);
	return Number.isInteger(n) && n >= 1 ? n : 1;
}

/** Holds one of the machine's queue-stack locks (queueStackSlots) until the returned release() is called. */
async function holdStackLock(log) {
	let release;
	const held = new Promise((resolve) => (release = resolve));
	let done;
	const slots = Array.from({ length: queueStackSlots() }, (_, i) =>
		path.join(cacheDir(), i === 0 ? 'queue-stack.lock' : `queue-stack.${i + 1}.lock`),
	);
	await new Promise((resolve, reject) => {
		done = withLock(slots, log, async () => {
			resolve();
			await held;
		}).catch(reject);
	});
	return async () => {
		release();
		await done;
	};
}

/** The variables every n8n process of the stack shares. */
function sharedEnv({ pg, redis, base, queueSettings, extraEnv }) {
	const q = queueSettings;
	return {
		DB_TYPE: 'postgresdb',
		DB_POSTGRESDB_HOST: '127.0.0.1',
		DB_POSTGRESDB_PORT: String(pg.port),
		DB_POSTGRESDB_DATABASE: pg.database,
		DB_POSTGRESDB_USER: 'postgres',
		DB_POSTGRESDB_PASSWORD: 'unused-trust-auth',
		EXECUTIONS_MODE: 'queue',
		QUEUE_BULL_REDIS_HOST: '127.0.0.1',
		QUEUE_BULL_REDIS_PORT: String(redis.port),
		N8N_DEFAULT_BINARY_DATA_MODE: 'database',
		// over n8n 3.0's defaults (n8n-defaults.mjs, SSRF protection kept): the fix a 3.0 user may set, so the
		// package installs from Community Nodes on the main (queue-mode suite f); queue-n8n3 sets it back to
		// false and installs from N8N_COMMUNITY_PACKAGES, as docker/compose.yml does
		N8N_UNVERIFIED_PACKAGES_ENABLED: 'true',
		N8N_WEBHOOK_URL: `${base}/`,
		N8N_LOG_LEVEL: 'info',
		N8N_LOG_OUTPUT: 'console',
		...QUIET_N8N_ENV,
		...(q.lockDuration && { QUEUE_WORKER_LOCK_DURATION: String(q.lockDuration) }),
		...(q.lockRenewTime && { QUEUE_WORKER_LOCK_RENEW_TIME: String(q.lockRenewTime) }),
		...(q.stalledInterval && { QUEUE_WORKER_STALLED_INTERVAL: String(q.stalledInterval) }),
		...extraEnv,
	};
}

/**
 * Starts PostgreSQL and Redis, prepares one user folder per n8n process with the package tarball installed
 * in its `.n8n/nodes`, imports `credentials` and `workflows` (before the main starts, as n8n wants), publishes
 * `publish` (workflow ids, through the CLI) and starts the main and the workers.
 *
 * options: tarball (required), workers (2), concurrency (per worker, 3), credentials, workflows, publish,
 *   env (extra variables for every n8n process), queueSettings ({ lockDuration, lockRenewTime,
 *   stalledInterval } in ms → QUEUE_WORKER_*), log, keep (keep the folders), rssIntervalMs (500),
 *   perProcess ({ [name]: { package, env, start } } for "main" or "workerN": package: false leaves that user
 *   folder without the package (as a fresh machine or container has it), env adds variables to that process
 *   only, start: false leaves it stopped until startWorker(name)), workersFirst (start the workers, then the
 *   main once they are ready: they hear what the main announces at its start, e.g. a community package it
 *   installs from N8N_COMMUNITY_PACKAGES).
 */
export async function startQueueStack(options) {
	const { tarball, workers: workerCount = 2, perProcess = {}, log = defaultLog } = options;
	if (!tarball) throw new Error('startQueueStack: tarball is required');
	const names = ['main', ...Array.from({ length: workerCount }, (_, i) => `worker${i + 1}`)];
	for (const name of Object.keys(perProcess))
		if (!names.includes(name))
			throw new Error(
				`startQueueStack: perProcess names "${name}", not one of ${names.join(', ')}`,
			);
	if (perProcess.main?.start === false) throw new Error('startQueueStack: the main always starts');
	const t0 = Date.now();
	const timings = {};
	const prereqs = await ensureQueuePrereqs({ log });
	timings.prereqs = Date.now() - t0;
	const releaseLock = await holdStackLock(log); // one stack at a time on this machine (2 cores), or GS_QUEUE_STACKS
	timings.lock = Date.now() - t0 - timings.prereqs;
	const dir = await fsp.mkdtemp(path.join(os.tmpdir(), 'gs-queue-'));
	fs.chmodSync(dir, 0o755); // the postgres user must reach its folder
	trackDir(dir);
	const logsDir = await fsp.mkdtemp(path.join(os.tmpdir(), 'gs-queue-logs-'));
	const stack = { dir, logsDir, timings, names, main: undefined, workers: [] };
	const state = {
		procs: new Map(),
		instances: [],
		pg: undefined,
		redis: undefined,
		stopped: false,
	};
	stack.stop = (opts) => stopStack(stack, state, { ...options, log, releaseLock }, opts);
	try {
		log(`queue-mode stack in ${dir}, logs in ${logsDir}`);
		await startQueueServices(stack, state, { ...options, log, prereqs, t0 });
		return stack;
	} catch (error) {
		const tails = [...state.procs.values()]
			.filter((r) => r.proc)
			.map((r) => `--- ${r.name}\n${r.proc.tail(25)}`)
			.join('\n');
		await stack.stop({ keepLogs: true });
		error.message += tails ? `\n${tails}` : '';
		throw error;
	}
}

/** Stops everything and removes the folders; keepLogs keeps the logs folder (its path is printed). */
async function stopStack(
	stack,
	state,
	{ log, releaseLock, keep = process.env.GS_E2E_KEEP === '1' },
	{ keepLogs = false } = {},
) {
	if (state.stopped) return;
	state.stopped = true;
	const tStop = Date.now();
	stack.stopSampling?.();
	await Promise.all([...state.procs.values()].map((r) => r.proc?.stop('SIGTERM', 10_000)));
	await state.redis?.stop();
	await state.pg?.stop();
	if (!keep) {
		for (const inst of state.instances) await inst.close();
		fs.rmSync(stack.dir, { recursive: true, force: true });
	}
	untrackDir(stack.dir);
	log(`queue-mode stack stopped in ${secs(Date.now() - tStop)}`);
	if (keepLogs || keep) log(`logs kept in ${stack.logsDir}${keep ? `; data in ${stack.dir}` : ''}`);
	else fs.rmSync(stack.logsDir, { recursive: true, force: true });
	await releaseLock();
}

/** The databases, the user folders, the imports and the n8n processes; fills in `stack`. */
async function startQueueServices(stack, state, options) {
	const {
		tarball,
		concurrency = 3,
		credentials = [],
		workflows = [],
		publish = [],
		log,
		prereqs,
		t0,
	} = options;
	const { env: extraEnv = {}, queueSettings = {}, perProcess = {}, rssIntervalMs = 500 } = options;
	const { workersFirst = false } = options;
	const keep = options.keep ?? process.env.GS_E2E_KEEP === '1';
	const { timings, names, dir, logsDir } = stack;
	[state.pg, state.redis] = await Promise.all([
		startPostgres({ pgBin: prereqs.pgBin, dir, logsDir, log }),
		startRedis({ redisServer: prereqs.redisServer, dir, logsDir, log }),
	]);
	const { pg } = state;
	stack.postgres = { port: pg.port, database: pg.database, pid: pg.proc.pid, version: pg.version };
	stack.redis = { port: state.redis.port, pid: state.redis.proc.pid };
	timings.databases = Date.now() - t0 - timings.prereqs - timings.lock;

	const mainPort = await freePort();
	const base = `http://127.0.0.1:${mainPort}`;
	const shared = sharedEnv({ pg, redis: state.redis, base, queueSettings, extraEnv });
	// user folders, each with the package installed (as Community Nodes does) in its .n8n/nodes, unless
	// perProcess says package: false
	const t1 = Date.now();
	for (const name of names) {
		const inst = await createInstance({ version: '2', env: shared, log, keep });
		const pkg =
			perProcess[name]?.package === false ? undefined : await inst.installPackage(tarball);
		state.instances.push(inst);
		const record = { name, inst, pkg, logFile: path.join(logsDir, `${name}.log`), proc: undefined };
		if (name !== 'main') record.healthPort = await freePort();
		state.procs.set(name, record);
	}
	timings.userFolders = Date.now() - t1;
	const mainRec = state.procs.get('main');
	const client = n8nRest(base, mainRec.inst.host.dir);
	const activeWebhooks = new Map(); // workflow id -> [{ path, method }] published through activate()
	Object.assign(stack, restFacade(client), {
		base,
		env: shared,
		concurrency,
		/** An n8n CLI command against the shared database, with the main's user folder. */
		async cli(args, opts = {}) {
			const r = await mainRec.inst.n8n(args, opts);
			if (r.code !== 0)
				throw new Error(
					`n8n ${args.join(' ')} failed (exit ${r.code}):\n${(r.stdout + r.stderr).trim().split('\n').slice(-30).join('\n')}`,
				);
			return r;
		},
		importCredentials: (list) => mainRec.inst.importCredentials(list),
		importWorkflow: (wf) => mainRec.inst.importWorkflow(wf),
		async activate(workflowId) {
			activeWebhooks.set(workflowId, await client.activate(workflowId));
		},
		async deactivate(workflowId) {
			activeWebhooks.delete(workflowId);
			return client.deactivate(workflowId);
		},
	});

	// import before the main starts (the first CLI command runs the migrations)
	const t2 = Date.now();
	if (credentials.length) await mainRec.inst.importCredentials(credentials);
	if (workflows.length) await mainRec.inst.importWorkflow(workflows);
	for (const id of publish) await stack.cli(['publish:workflow', `--id=${id}`]);
	timings.imports = Date.now() - t2;

	const startProcess = processStarter(stack, state, {
		base,
		mainPort,
		concurrency,
		perProcess,
		activeWebhooks,
		log,
	});
	const t3 = Date.now();
	const atStart = names.filter((n) => perProcess[n]?.start !== false);
	const imported = credentials.length || workflows.length || publish.length;
	if (workersFirst) {
		// the workers, then the main (on an empty database one worker at a time: each runs the migrations)
		const workersAtStart = atStart.filter((n) => n !== 'main');
		if (imported) await Promise.all(workersAtStart.map((n) => startProcess(n)));
		else for (const n of workersAtStart) await startProcess(n);
		await startProcess('main');
	} else if (imported) {
		await Promise.all(atStart.map((n) => startProcess(n)));
	} else {
		// nothing imported: the database is still empty, let the main alone run the migrations
		await startProcess('main');
		await Promise.all(atStart.slice(1).map((n) => startProcess(n)));
	}
	timings.start = Date.now() - t3;
	timings.total = Date.now() - t0;
	const processes = () =>
		names.map((n) => {
			const r = state.procs.get(n);
			return {
				name: n,
				pid: r.proc?.pid,
				running: Boolean(r.proc && !r.proc.exited),
				logFile: r.logFile,
				userFolder: r.inst.userFolder,
				healthPort: r.healthPort,
				packageDir: r.pkg?.dir,
			};
		});
	Object.assign(stack, processFacade(processes, { rssIntervalMs }), { processes });
	Object.assign(stack, processControl(stack, state, { startProcess, prereqs, log }));
	stack.main = {
		base,
		port: mainPort,
		get pid() {
			return mainRec.proc?.pid;
		},
	};
	stack.workers = names
		.filter((n) => n !== 'main')
		.map((n) => ({
			name: n,
			healthPort: state.procs.get(n).healthPort,
			get pid() {
				return state.procs.get(n).proc?.pid;
			},
		}));
	log(
		`queue-mode stack ready in ${secs(timings.total)} (databases ${secs(timings.databases)}, user folders ${secs(timings.userFolders)}, imports ${secs(timings.imports)}, n8n start ${secs(timings.start)}): main ${base}, ${names.length - 1} workers${atStart.length < names.length ? ` (${atStart.length - 1} started)` : ''} × concurrency ${concurrency}`,
	);
}
