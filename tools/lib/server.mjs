// `n8n start` on an instance (instance.mjs): the editor and REST API on a loopback port, ready when it answers
// /healthz/readiness, with `rest` (rest.mjs) to talk to it as its owner.
import path from 'node:path';

import { untrackGroup } from './exit.mjs';
import { QUIET_N8N_ENV } from './instance.mjs';
import { freePort } from './net.mjs';
import { spawnLogged } from './process.mjs';
import { n8nRest } from './rest.mjs';
import { pause } from './wait.mjs';

const defaultLog = (msg) => process.stderr.write(`[n8n-host] ${msg}\n`);

/**
 * `n8n start` for an instance, on a free loopback port (editor + REST API), waiting until it is ready.
 * Returns { base, stop, kill, tail, pid, logFile, rest }: `stop()` asks n8n to shut down (SIGTERM), `kill()`
 * SIGKILLs its whole process group at once (a crash: n8n and its task runner die mid-work). `env` adds
 * or overrides variables (e.g. N8N_LOG_LEVEL); `port` asks for a port instead of any free one. The process
 * group is also killed if this process exits. Used by the e2e suites (the editor suite too) and `npm start`.
 */
export async function startServer(
	inst,
	{ log = defaultLog, env: extraEnv = {}, port: wanted } = {},
) {
	const port = wanted ?? (await freePort());
	const base = `http://127.0.0.1:${port}`;
	const logFile = path.join(inst.userFolder, 'n8n-start.log');
	const env = {
		...inst.env,
		N8N_PORT: String(port),
		N8N_LISTEN_ADDRESS: '127.0.0.1',
		N8N_HOST: '127.0.0.1',
		N8N_PROTOCOL: 'http',
		N8N_EDITOR_BASE_URL: `${base}/`,
		...QUIET_N8N_ENV,
		N8N_LOG_LEVEL: 'info',
		...extraEnv,
	};
	const proc = spawnLogged(inst.host.nodeBin, [inst.host.n8nBin, 'start'], {
		cwd: inst.userFolder,
		env,
		logFile,
		label: 'n8n start',
	});
	const { child } = proc;
	const tail = () => proc.tail(40);
	const stop = async () => {
		if (proc.exited) {
			untrackGroup(child.pid);
			return;
		}
		try {
			process.kill(-child.pid, 'SIGTERM');
		} catch {
			return;
		}
		for (let i = 0; i < 100 && !proc.exited; i++) await pause(100);
		try {
			process.kill(-child.pid, 'SIGKILL'); // n8n's task runner shares the group
		} catch {
			/* all gone */
		}
		untrackGroup(child.pid);
	};
	const kill = async () => {
		try {
			process.kill(-child.pid, 'SIGKILL');
		} catch {
			/* all gone */
		}
		for (let i = 0; i < 100 && !proc.exited; i++) await pause(100);
		untrackGroup(child.pid);
	};
	const t0 = Date.now();
	for (;;) {
		if (proc.exited)
			throw new Error(`n8n start exited (${JSON.stringify(proc.exited)}):\n${tail()}`);
		if (Date.now() - t0 > 180_000) {
			await stop();
			throw new Error(`n8n did not answer /healthz within 180 s:\n${tail()}`);
		}
		try {
			const res = await fetch(`${base}/healthz/readiness`);
			if (res.ok) break;
		} catch {
			/* not listening yet */
		}
		await pause(500);
	}
	log(
		`n8n ${inst.n8nVersion} listening on ${base} (ready in ${((Date.now() - t0) / 1000).toFixed(1)} s)`,
	);
	return { base, stop, kill, tail, pid: child.pid, logFile, rest: n8nRest(base, inst.host.dir) };
}
