// An n8n instance: a user folder (SQLite database, settings, community packages) on a host (hosts.mjs), with
// the CLI commands the tooling needs — install the package as Community Nodes does, import credentials and
// workflows, `n8n execute`. `startServer` (server.mjs) starts `n8n start` on it.
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

import { seedDatabase, usesDefaultSqlite } from './database-template.mjs';
import { trackDir, untrackDir } from './exit.mjs';
import { lastLines } from './format.mjs';
import { ENCRYPTION_KEY, ensureHost } from './hosts.mjs';
import { n8nDefaultsEnv } from './n8n-defaults.mjs';
import { freePort, releasePort } from './net.mjs';
import { cleanEnv, groupRss, mustRun, spawnTracked } from './process.mjs';
import { extractResult, nodeOutput, runError } from './run-data.mjs';

const defaultLog = (msg) => process.stderr.write(`[n8n-host] ${msg}\n`);

/**
 * What every `n8n start` and worker the tooling runs shares: loopback only, plain HTTP cookies, and none of
 * n8n's calls home, banners, onboarding or public API.
 */
export const QUIET_N8N_ENV = {
	N8N_RUNNERS_BROKER_LISTEN_ADDRESS: '127.0.0.1',
	N8N_SECURE_COOKIE: 'false',
	N8N_DIAGNOSTICS_ENABLED: 'false',
	N8N_VERSION_NOTIFICATIONS_ENABLED: 'false',
	N8N_TEMPLATES_ENABLED: 'false',
	N8N_PERSONALIZATION_ENABLED: 'false',
	N8N_HIRING_BANNER_ENABLED: 'false',
	N8N_ONBOARDING_FLOW_DISABLED: 'true',
	N8N_PUBLIC_API_DISABLED: 'true',
};

/**
 * Create an isolated n8n instance (a temp user folder) on host `version`.
 * options: fileAccessDir (N8N_RESTRICT_FILE_ACCESS_TO; default <userFolder>/files), env (extra variables),
 * packageTarball (installed right away), log, keep (do not delete the folder on close, for debugging),
 * userFolder (a lasting folder to use instead of a temp one: never deleted on close; `npm start`).
 * On n8n 2.x the instance runs under n8n 3.0's defaults (n8n-defaults.mjs); `env` overrides them.
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
	if (!keep) trackDir(userFolder); // removed also when this process is stopped before close()
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
		// n8n's own temporary files (data-table uploads, …) stay in the user folder and go with it
		TMPDIR: path.join(userFolder, 'tmp'),
		// SSRF protection on (127.0.0.1 allowed), unverified packages off, filesystem binary data on 2.x
		...n8nDefaultsEnv(host.version),
		...env,
	};
	const tmpFiles = path.join(userFolder, 'tmp');
	fs.mkdirSync(tmpFiles, { recursive: true });
	// n8n's migrations already run on a copy: the first command starts as fast as the later ones
	if (usesDefaultSqlite(instanceEnv)) await seedDatabase(host, userFolder, log);
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
				releasePort(brokerPort);
				return;
			}
			await fsp.rm(userFolder, { recursive: true, force: true });
			untrackDir(userFolder);
			releasePort(brokerPort);
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

/** Unpacks an `npm pack` tarball into the instance's nodes folder as n8n's installer lays it out. */
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
