// A local npm registry (verdaccio 6) on loopback, for tests that install this package the way users do
// (n8n's Settings → Community Nodes → Install runs its own `npm pack` / `npm install` against a registry) and
// for the release rehearsal (release.mjs), which publishes to it.
//
// Why not a devDependency: verdaccio-audit (a verdaccio dependency) asks for `node-fetch@cjs`, a dist-tag the
// registry reachable here does not serve; only an `overrides` entry fixes that, and n8n's strict lint forbids
// `overrides` in the package's own package.json. So verdaccio lives in <cache>/registry-tools with its own
// package.json (the override included) and lockfile (scripts/n8n-host/registry-tools.package-lock.json), the
// way hosts.mjs installs the n8n hosts. verdaccio 6 needs Node >= 22: it runs on the cached Node 24.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { ensureCacheEntry, npmInstall } from './cache.mjs';
import { trackDir, untrackDir, untrackGroup } from './exit.mjs';
import { NODE24, ensureNode24 } from './hosts.mjs';
import { freePort } from './net.mjs';
import { cleanEnv, run, spawnLogged } from './process.mjs';
import { pause } from './wait.mjs';

export const VERDACCIO_VERSION = '6.10.4';

const defaultLog = (msg) => process.stderr.write(`[registry] ${msg}\n`);

function node24Env(node, extra = {}) {
	const env = cleanEnv(extra);
	env.PATH = `${path.dirname(node.bin)}${path.delimiter}${env.PATH}`;
	return env;
}

/** verdaccio in <cache>/registry-tools (installed once, from the kept lockfile); returns { dir, bin, node }. */
export async function ensureRegistryTools({ log = defaultLog } = {}) {
	const node = await ensureNode24(log);
	const manifest = {
		name: 'gs-registry-tools',
		private: true,
		description:
			'local npm registry for the Community Nodes install test of n8n-nodes-generation-service (generated; safe to delete)',
		dependencies: { verdaccio: VERDACCIO_VERSION },
		overrides: { 'verdaccio-audit': { 'node-fetch': '2.7.0' } },
	};
	const { dir } = await ensureCacheEntry({
		name: 'registry-tools',
		manifest,
		runtime: `node-${NODE24.version}`,
		log,
		build: async (d) => {
			log(`installing verdaccio ${VERDACCIO_VERSION} into ${d}`);
			await npmInstall(d, ['--ignore-scripts'], {
				log,
				label: 'verdaccio',
				env: node24Env(node),
			});
		},
		verify: async (d) => {
			const pkg = JSON.parse(
				fs.readFileSync(path.join(d, 'node_modules', 'verdaccio', 'package.json'), 'utf8'),
			);
			if (pkg.version !== VERDACCIO_VERSION)
				throw new Error(`verdaccio ${pkg.version} installed, want ${VERDACCIO_VERSION}`);
			const r = await run(
				node.bin,
				[path.join(d, 'node_modules', 'verdaccio', 'bin', 'verdaccio'), '--version'],
				{
					env: node24Env(node),
					timeoutMs: 60_000,
				},
			);
			if (r.code !== 0 || !r.stdout.includes(VERDACCIO_VERSION))
				throw new Error(`verdaccio --version: exit ${r.code}\n${r.stdout}${r.stderr}`);
		},
	});
	return { dir, bin: path.join(dir, 'node_modules', 'verdaccio', 'bin', 'verdaccio'), node };
}

/**
 * n8n 2.41.1 allows a registry other than the public npm registry only with an Enterprise licence feature
 * (feat:communityNodes:customRegistry; without it an install fails with "feature not licensed"). No licence
 * exists here, so n8n is started with this preload (--require in NODE_OPTIONS) that answers that single licence
 * question with yes; everything else runs unchanged. Users install from the public registry, where that check
 * does not apply. Writes the file into `dir` and returns its path.
 */
export function writeLicensePreload(dir) {
	const file = path.join(dir, 'custom-registry-licence.cjs');
	fs.writeFileSync(
		file,
		`'use strict';
// Loaded with --require into n8n only for the tests that install from a local registry: n8n allows a custom npm
// registry only with the Enterprise feature feat:communityNodes:customRegistry. Answer that one question with yes.
const Module = require('node:module');
const load = Module._load;
Module._load = function (...args) {
	const exported = load.apply(this, args);
	const License = exported && exported.License;
	if (typeof License === 'function' && License.prototype && typeof License.prototype.isCustomNpmRegistryEnabled === 'function' && !License.__gsCustomRegistry) {
		License.__gsCustomRegistry = true;
		License.prototype.isCustomNpmRegistryEnabled = function () { return true; };
	}
	return exported;
};
`,
	);
	return file;
}

/**
 * Start an empty registry on a free loopback port: no uplinks (nothing is fetched from elsewhere), anyone may
 * publish. Returns { url, port, storage, publish(tarball), view(name), n8nEnv(), stop(), tail() }.
 */
export async function startRegistry({ log = defaultLog } = {}) {
	const tools = await ensureRegistryTools({ log });
	const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gs-registry-'));
	trackDir(dir);
	const port = await freePort();
	const url = `http://127.0.0.1:${port}`;
	const storage = path.join(dir, 'storage');
	const config = path.join(dir, 'config.yaml');
	fs.writeFileSync(
		config,
		[
			`storage: ${JSON.stringify(storage)}`,
			`self_path: ${JSON.stringify(dir)}`,
			'uplinks: {}',
			'packages:',
			"  '**':",
			'    access: $all',
			'    publish: $all',
			'    unpublish: $all',
			'web:',
			'  enable: false',
			'max_body_size: 50mb',
			'log: { type: stdout, format: json, level: warn }',
			'',
		].join('\n'),
	);
	const proc = spawnLogged(
		tools.node.bin,
		[tools.bin, '--config', config, '--listen', `127.0.0.1:${port}`],
		{ cwd: dir, env: node24Env(tools.node), logFile: path.join(dir, 'verdaccio.log') },
	);
	const tail = () => proc.tail(30);
	const t0 = Date.now();
	for (;;) {
		if (proc.exited)
			throw new Error(`verdaccio exited (${JSON.stringify(proc.exited)}):\n${tail()}`);
		try {
			if ((await fetch(`${url}/-/ping`)).ok) break;
		} catch {
			/* not listening yet */
		}
		if (Date.now() - t0 > 120_000)
			throw new Error(`verdaccio did not answer within 120 s:\n${tail()}`);
		await pause(200);
	}
	log(
		`verdaccio ${VERDACCIO_VERSION} on ${url} (ready in ${((Date.now() - t0) / 1000).toFixed(1)} s)`,
	);
	// an .npmrc of our own: the token is a dummy (verdaccio is configured with publish: $all)
	const npmrc = path.join(dir, '.npmrc');
	fs.writeFileSync(npmrc, `registry=${url}/\n//127.0.0.1:${port}/:_authToken=local-test-token\n`);
	const preload = writeLicensePreload(dir);
	const npmEnv = cleanEnv({
		npm_config_userconfig: npmrc,
		npm_config_cache: path.join(dir, 'npm-cache'),
	});

	return {
		url,
		port,
		storage,
		npmEnv,
		tail,
		/** `npm publish <tarball>` to this registry; `tag` defaults to npm's "latest". */
		async publish(tarball, { tag } = {}) {
			const r = await run(
				'npm',
				[
					'publish',
					path.resolve(tarball),
					'--registry',
					`${url}/`,
					'--ignore-scripts',
					...(tag ? ['--tag', tag] : []),
				],
				{ cwd: dir, env: npmEnv, timeoutMs: 120_000 },
			);
			if (r.code !== 0)
				throw new Error(`npm publish ${tarball} failed (exit ${r.code}):\n${r.stdout}${r.stderr}`);
		},
		/**
		 * Variables for an n8n process that installs community packages from this registry, offline: installs
		 * and updates (N8N_COMMUNITY_PACKAGES_REGISTRY), its `npm outdated` update check (npm_config_registry,
		 * run without --registry), no "verified packages" list, a private npm cache, and the licence preload
		 * (writeLicensePreload). n8n's package-status lookup on its own server fails here; n8n treats that as
		 * "not banned", as it does for every user offline.
		 */
		n8nEnv() {
			return {
				N8N_COMMUNITY_PACKAGES_REGISTRY: url,
				N8N_VERIFIED_PACKAGES_ENABLED: 'false',
				npm_config_registry: `${url}/`,
				npm_config_cache: path.join(dir, 'n8n-npm-cache'),
				npm_config_update_notifier: 'false',
				NODE_OPTIONS: `--require ${preload}`,
			};
		},
		/** The registry's document for a package (versions, dist-tags), or undefined. */
		async view(name) {
			const res = await fetch(`${url}/${encodeURIComponent(name).replace('%40', '@')}`);
			return res.ok ? res.json() : undefined;
		},
		async stop() {
			if (!proc.exited) {
				try {
					process.kill(-proc.pid, 'SIGTERM');
				} catch {
					/* gone */
				}
				for (let i = 0; i < 50 && !proc.exited; i++) await pause(100);
				try {
					process.kill(-proc.pid, 'SIGKILL');
				} catch {
					/* gone */
				}
			}
			untrackGroup(proc.pid);
			fs.rmSync(dir, { recursive: true, force: true });
			untrackDir(dir);
		},
	};
}
