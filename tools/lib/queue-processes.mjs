// The n8n processes of a queue stack (queue-stack.mjs): starting the main or a worker until it answers its
// readiness check, stopping and killing them, and restarting Redis, as the soak's process faults and the
// queue-mode suite do.
import { secs } from './format.mjs';
import { httpOk } from './net.mjs';
import { pidAlive } from './locks.mjs';
import { groupPids, spawnLogged } from './process.mjs';
import { startRedis } from './redis.mjs';
import { pause, waitUntil, within } from './wait.mjs';

/**
 * startProcess(name, { env }): `n8n start` (the main) or `n8n worker`, resolved once it answers its readiness
 * check; `env` adds variables to this start only (over the stack's and perProcess's).
 */
export function processStarter(
	stack,
	state,
	{ base, mainPort, concurrency, perProcess, activeWebhooks, log },
) {
	const processEnv = (rec, once) => ({
		...rec.inst.env,
		...(rec.name === 'main'
			? {
					N8N_PORT: String(mainPort),
					N8N_LISTEN_ADDRESS: '127.0.0.1',
					N8N_HOST: '127.0.0.1',
					N8N_PROTOCOL: 'http',
					N8N_EDITOR_BASE_URL: `${base}/`,
				}
			: {
					QUEUE_HEALTH_CHECK_ACTIVE: 'true',
					QUEUE_HEALTH_CHECK_PORT: String(rec.healthPort),
					N8N_WORKER_SERVER_ADDRESS: '127.0.0.1',
				}),
		...perProcess[rec.name]?.env,
		...once,
	});
	return async (name, { env: once } = {}) => {
		const rec = state.procs.get(name);
		if (rec.proc && !rec.proc.exited)
			throw new Error(`${name} is already running (pid ${rec.proc.pid})`);
		const args =
			name === 'main'
				? [rec.inst.host.n8nBin, 'start']
				: [rec.inst.host.n8nBin, 'worker', `--concurrency=${concurrency}`];
		const started = Date.now();
		rec.proc = spawnLogged(rec.inst.host.nodeBin, args, {
			env: processEnv(rec, once),
			cwd: rec.inst.userFolder,
			logFile: rec.logFile,
			label: name,
		});
		const url =
			name === 'main'
				? `${base}/healthz/readiness`
				: `http://127.0.0.1:${rec.healthPort}/healthz/readiness`;
		// a bound to fail instead of hang, not a speed limit: a main took 115 s and more on this 2-core
		// machine when it was shared (load average ~29)
		await waitUntil(`n8n ${name}`, () => httpOk(url), {
			timeoutMs: 600_000,
			proc: rec.proc,
			logFile: rec.logFile,
			everyMs: 300,
			tolerateErrors: true,
		});
		if (name === 'main' && stack.waitForWebhook) {
			// after a restart: the published workflows' webhooks are registered again, asynchronously
			for (const hooks of activeWebhooks.values())
				for (const h of hooks) await stack.waitForWebhook(h.path, h.method);
		}
		const ms = Date.now() - started;
		log(`n8n ${name} ready (pid ${rec.proc.pid}, ${secs(ms)})`);
		return { name, pid: rec.proc.pid, ms };
	};
}

/** Starting, stopping and killing the stack's processes, and restarting Redis. */
export function processControl(stack, state, { startProcess, prereqs, log }) {
	const mainRec = state.procs.get('main');
	return {
		/** Starts the main; `options.env` adds variables to this start only. */
		startMain: (options) => startProcess('main', options),
		/** Graceful stop (SIGTERM) of the main; returns { code, signal, ms }. */
		async stopMain() {
			const t = Date.now();
			const r = await mainRec.proc.stop('SIGTERM', 30_000);
			return { ...r, ms: Date.now() - t };
		},
		async restartMain(options) {
			const stoppedInfo = await stack.stopMain();
			const startedInfo = await startProcess('main', options);
			return { stopped: stoppedInfo, started: startedInfo };
		},
		startWorker: (name, options) => startProcess(name, options),
		/** Graceful stop (SIGTERM) of a worker, as a scale-down does; returns { code, signal, ms }. */
		async stopWorker(name) {
			const rec = state.procs.get(name);
			if (name === 'main' || !rec?.proc || rec.proc.exited)
				throw new Error(`${name} is not a running worker`);
			const t = Date.now();
			const r = await rec.proc.stop('SIGTERM', 30_000);
			return { ...r, ms: Date.now() - t };
		},
		/**
		 * Stop Redis (SIGTERM: it saves its data set, as with its default save points) and start it again on
		 * the same port, as a service restart does: the queue's jobs come back. (A Redis that loses its data
		 * loses the executions n8n had enqueued and no worker had started: n8n leaves them `new` forever,
		 * whatever node they run — seen in the soak with a Redis that kept nothing.) Returns { ms }.
		 */
		async restartRedis() {
			const t = Date.now();
			await state.redis.stop();
			const { redisServer } = prereqs;
			state.redis = await startRedis({
				redisServer,
				dir: stack.dir,
				logsDir: stack.logsDir,
				log,
				port: state.redis.port,
			});
			stack.redis.pid = state.redis.proc.pid;
			return { ms: Date.now() - t };
		},
		/**
		 * SIGKILL a worker's n8n process (by its pid, not its group), as a crash or an OOM kill would.
		 * Returns { pid, at, survivors } — survivors: pids of its group still alive 2 s later (its task
		 * runner), which are then killed too so nothing is left behind.
		 */
		async killWorker(name, signal = 'SIGKILL') {
			const rec = state.procs.get(name);
			if (!rec?.proc || rec.proc.exited) throw new Error(`${name} is not running`);
			const { pid } = rec.proc;
			const at = Date.now();
			process.kill(pid, signal);
			await within(rec.proc.done, 10_000);
			await pause(2000);
			const survivors = groupPids(pid).filter(pidAlive);
			await rec.proc.stop('SIGKILL', 1000);
			return { pid, at, exited: rec.proc.exited, survivors };
		},
	};
}
