// Child processes, said once: run a command to its end (`run`, `mustRun`), watch one while it runs
// (`spawnTracked`), or start a long-running one with its output in a log file (`spawnLogged`). Every child
// runs in its own process group (so stopping it takes its children too, n8n's task runner among them), is
// killed if this process ends first (exit.mjs) and is recorded in the install locks this process holds
// (locks.mjs), so a successor can stop it if this process dies.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

import { trackGroup, untrackGroup } from './exit.mjs';
import { lastLines } from './format.mjs';
import { noteChild } from './locks.mjs';
import { within } from './wait.mjs';

const defaultLog = (msg) => process.stderr.write(`[tools] ${msg}\n`);

/**
 * Environment for child npm / n8n processes: drop what `npm run` exports for the project (for instance
 * npm_config_ignore_scripts=true from the repo's .npmrc would silently skip the sqlite3 build). The shell's
 * N8N_*, DB_* and EXECUTIONS_* variables are dropped too: n8n runs with what the tooling sets, and on n8n 2.x
 * that is n8n 3.0's defaults (SSRF protection on with 127.0.0.1 allowed, unverified packages off, filesystem
 * binary data: n8n-defaults.mjs, applied by createInstance), whatever the shell says.
 */
export function cleanEnv(extra = {}) {
	const env = {};
	for (const [k, v] of Object.entries(process.env)) {
		if (/^npm_/i.test(k) || k === 'INIT_CWD' || k === 'NODE_OPTIONS' || k === 'NODE_PATH') continue;
		if (/^N8N_|^DB_|^EXECUTIONS_|^GENERIC_TIMEZONE$/.test(k)) continue;
		env[k] = v;
	}
	return { ...env, ...extra };
}

/**
 * Run a command; resolves with { code, signal, stdout, stderr, ms }. Never rejects for a non-zero exit.
 * opts.echo: forward output lines to log; opts.timeoutMs: SIGKILL the process group after that.
 */
export function run(cmd, args, opts = {}) {
	const { cwd, env, echo, log = defaultLog, timeoutMs, input } = opts;
	return new Promise((resolve, reject) => {
		const started = Date.now();
		const child = spawn(cmd, args, {
			cwd,
			env,
			stdio: [input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
			detached: true,
		});
		noteChild(child.pid);
		trackGroup(child.pid);
		const out = [];
		const err = [];
		let timedOut = false;
		let timer;
		if (timeoutMs) {
			timer = setTimeout(() => {
				timedOut = true;
				try {
					process.kill(-child.pid, 'SIGKILL');
				} catch {
					/* gone */
				}
			}, timeoutMs);
		}
		const lineEcho = (prefix) => {
			let buf = '';
			return (chunk) => {
				if (!echo) return;
				buf += chunk.toString();
				let i;
				while ((i = buf.indexOf('\n')) >= 0) {
					const line = buf.slice(0, i).trimEnd();
					buf = buf.slice(i + 1);
					// npm's peer-dependency warnings run to hundreds of lines: keep them out of the progress
					if (line && !/^npm warn/.test(line)) log(`${prefix}${line}`);
				}
			};
		};
		const eo = lineEcho('  | ');
		const ee = lineEcho('  | ');
		child.stdout.on('data', (c) => {
			out.push(c);
			eo(c);
		});
		child.stderr.on('data', (c) => {
			err.push(c);
			ee(c);
		});
		if (input !== undefined) child.stdin.end(input);
		child.on('error', (e) => {
			clearTimeout(timer);
			reject(e);
		});
		child.on('close', (code, signal) => {
			clearTimeout(timer);
			untrackGroup(child.pid);
			resolve({
				code,
				signal,
				timedOut,
				pid: child.pid,
				stdout: Buffer.concat(out).toString(),
				stderr: Buffer.concat(err).toString(),
				ms: Date.now() - started,
			});
		});
	});
}

/**
 * A command in the foreground, as a terminal runs it: in this process group (a Ctrl-C reaches it), its output
 * straight through; resolves with its exit code (1 when a signal ended it).
 */
export function runAttached(cmd, args, { cwd, env } = {}) {
	return new Promise((resolve, reject) => {
		const child = spawn(cmd, args, { cwd, env, stdio: 'inherit' });
		child.once('error', reject);
		child.once('exit', (code, signal) => resolve(code ?? (signal ? 1 : 0)));
	});
}

/** run(), throwing with the last lines of the output unless the command exits 0. */
export async function mustRun(what, cmd, args, opts) {
	const r = await run(cmd, args, opts);
	if (r.code !== 0) {
		const tail = (r.stderr + '\n' + r.stdout).trim().split('\n').slice(-40).join('\n');
		throw new Error(`${what} failed (exit ${r.code}${r.signal ? `, ${r.signal}` : ''}):\n${tail}`);
	}
	return r;
}

/** Like run(), but returns { pid, done } right away so the caller can watch the process. */
export function spawnTracked(cmd, args, { cwd, env, timeoutMs }) {
	const started = Date.now();
	const child = spawn(cmd, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
	trackGroup(child.pid);
	const out = [];
	const err = [];
	let timedOut = false;
	const timer = timeoutMs
		? setTimeout(() => {
				timedOut = true;
				try {
					process.kill(-child.pid, 'SIGKILL');
				} catch {
					/* gone */
				}
			}, timeoutMs)
		: undefined;
	child.stdout.on('data', (c) => out.push(c));
	child.stderr.on('data', (c) => err.push(c));
	const done = new Promise((resolve, reject) => {
		child.on('error', (e) => {
			clearTimeout(timer);
			reject(e);
		});
		child.on('close', (code, signal) => {
			clearTimeout(timer);
			// the task runner and other helpers share the group: make sure none outlives the command
			try {
				process.kill(-child.pid, 'SIGKILL');
			} catch {
				/* all gone */
			}
			untrackGroup(child.pid);
			resolve({
				code,
				signal,
				timedOut,
				stdout: Buffer.concat(out).toString(),
				stderr: Buffer.concat(err).toString(),
				ms: Date.now() - started,
			});
		});
	});
	return { pid: child.pid, done };
}

/**
 * A long-running command in its own process group, its stdout and stderr appended to `logFile` (a header line
 * names it and its start). Returns { child, pid, logFile, exited (null until it exits, then { code, signal }),
 * done (resolves with exited), tail(n = 40) (the log's last lines), stop(signal, waitMs) (signal the process,
 * not its group; wait; then SIGKILL what is left of the group; resolves { code, signal, leftovers }) }.
 * `uid`/`gid` run it as another user (PostgreSQL refuses root).
 */
export function spawnLogged(
	cmd,
	args,
	{ env, cwd, logFile, uid, gid, label = path.basename(cmd) },
) {
	const fd = fs.openSync(logFile, 'a');
	fs.writeSync(
		fd,
		`\n===== ${new Date().toISOString()} start ${label}: ${path.basename(cmd)} ${args.join(' ')}\n`,
	);
	const child = spawn(cmd, args, {
		cwd,
		env,
		stdio: ['ignore', fd, fd],
		detached: true,
		...(uid !== undefined ? { uid, gid } : {}),
	});
	fs.closeSync(fd);
	trackGroup(child.pid);
	noteChild(child.pid); // in the stack lock's owner.json: a successor stops it if this process dies
	const proc = { label, child, pid: child.pid, logFile, exited: null, startedAt: Date.now() };
	proc.tail = (n = 40) => {
		try {
			return lastLines(fs.readFileSync(logFile, 'utf8'), n);
		} catch {
			return '(no log)';
		}
	};
	proc.done = new Promise((resolve) => {
		child.on('error', (error) => {
			proc.exited = { error: error.message };
			untrackGroup(child.pid);
			resolve(proc.exited);
		});
		child.on('exit', (code, signal) => {
			proc.exited = { code, signal };
			resolve(proc.exited);
		});
	});
	/** Signal the process (not its group), wait for it, then SIGKILL whatever is left of the group. */
	proc.stop = async (signal = 'SIGTERM', waitMs = 30_000) => {
		if (!proc.exited) {
			try {
				process.kill(child.pid, signal);
			} catch {
				/* gone */
			}
			await within(proc.done, waitMs);
		}
		const leftovers = groupPids(child.pid);
		try {
			process.kill(-child.pid, 'SIGKILL');
		} catch {
			/* all gone */
		}
		if (!proc.exited) await within(proc.done, 5000);
		untrackGroup(child.pid);
		return { ...proc.exited, leftovers };
	};
	return proc;
}

/**
 * Every process this user may read in /proc (Linux), with the fields of its stat after the command name:
 * fields[n - 3] is stat field n (fields[0] the state, fields[2] the process group, fields[21] the RSS in
 * pages). A process that ends meanwhile is left out.
 */
export function* processStats() {
	let entries;
	try {
		entries = fs.readdirSync('/proc');
	} catch {
		return;
	}
	for (const e of entries) {
		if (e.charCodeAt(0) < 48 || e.charCodeAt(0) > 57) continue;
		let stat;
		try {
			stat = fs.readFileSync(`/proc/${e}/stat`, 'utf8');
		} catch {
			continue; // ended meanwhile
		}
		yield { pid: Number(e), fields: stat.slice(stat.lastIndexOf(')') + 2).split(' ') };
	}
}

/** pids of the processes whose process group is `pgid`. */
export function groupPids(pgid) {
	const pids = [];
	for (const { pid, fields } of processStats()) if (Number(fields[2]) === pgid) pids.push(pid);
	return pids;
}

/** Sum of RSS over a process group. */
export function groupRss(pgid) {
	return rssByGroup([pgid]).get(pgid);
}

/** RSS (bytes) summed per process group, for every group in `pgids`, in one pass over /proc. */
export function rssByGroup(pgids) {
	const want = new Set(pgids);
	const totals = new Map([...want].map((g) => [g, 0]));
	for (const { fields } of processStats()) {
		const pgid = Number(fields[2]);
		if (want.has(pgid)) totals.set(pgid, totals.get(pgid) + Number(fields[21]) * 4096);
	}
	return totals;
}
