// The cache outside the clone where the tooling installs what is too big or too slow to install each time
// (n8n hosts, Node 24, verdaccio): one folder per entry, built in <name>.partial under a lock, checked, marked
// and renamed, so a fresh clone on the same machine (CI) reuses it and a half-done install is thrown away.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { fmtMs } from './format.mjs';
import { withLock } from './locks.mjs';
import { mustRun, run } from './process.mjs';

/** Lockfiles kept in the repo for cold installs (scripts/n8n-host/README.md). */
const KEPT_LOCKS = path.resolve(
	path.dirname(fileURLToPath(import.meta.url)),
	'..',
	'..',
	'scripts',
	'n8n-host',
);

/** ~/.cache/n8n-nodes-generation-service, or $GS_N8N_CACHE. */
export function cacheDir() {
	return path.resolve(
		process.env.GS_N8N_CACHE || path.join(os.homedir(), '.cache', 'n8n-nodes-generation-service'),
	);
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
		const keptLock = path.join(KEPT_LOCKS, `${name}.package-lock.json`);
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
