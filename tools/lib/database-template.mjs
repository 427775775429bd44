// A migrated, empty SQLite database per n8n version, kept in the cache and copied into each new user folder:
// n8n 2.41.1 spends about 8.5 s of its first command on a fresh folder running its migrations (1.123.81
// about 3 s), and the suites create a few dozen instances. The copy is what that first command would leave:
// the same migrations on the same empty database, under the tooling's one encryption key. Nothing else of
// the folder is copied (n8n writes its own `config`).
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

import { ensureCacheEntry } from './cache.mjs';
import { lastLines } from './format.mjs';
import { ENCRYPTION_KEY } from './hosts.mjs';
import { run } from './process.mjs';

/** SQLite's files of n8n's database in `<user folder>/.n8n` (the WAL ones only while n8n uses it). */
const DATABASE_FILES = ['database.sqlite', 'database.sqlite-wal', 'database.sqlite-shm'];

/** Whether an instance with this environment keeps its data in `<user folder>/.n8n/database.sqlite`. */
export function usesDefaultSqlite(env) {
	return (env.DB_TYPE ?? 'sqlite') === 'sqlite' && !env.DB_SQLITE_DATABASE;
}

/**
 * The cached template of `host` (hosts.mjs ensureHost): built once by `n8n import:credentials` of nothing
 * on an empty user folder, which runs every migration. Returns the folder holding `.n8n/database.sqlite`.
 */
export async function databaseTemplate(host, log) {
	const manifest = {
		name: `gs-n8n-database-${host.n8nVersion}`,
		private: true,
		description: 'migrated empty n8n database for the tooling (generated; safe to delete)',
		n8n: host.n8nVersion,
		encryptionKey: createHash('sha256').update(ENCRYPTION_KEY).digest('hex').slice(0, 16),
	};
	const { dir } = await ensureCacheEntry({
		name: `n8n-${host.n8nVersion}-database`,
		manifest,
		runtime: host.nodeBin,
		log,
		build: async (folder) => {
			const empty = path.join(folder, 'nothing.json');
			fs.writeFileSync(empty, '[]');
			const r = await run(host.nodeBin, [host.n8nBin, 'import:credentials', `--input=${empty}`], {
				cwd: folder,
				env: {
					...host.env,
					N8N_USER_FOLDER: folder,
					N8N_ENCRYPTION_KEY: ENCRYPTION_KEY,
					N8N_DIAGNOSTICS_ENABLED: 'false',
					TMPDIR: folder,
				},
				timeoutMs: 180_000,
			});
			if (r.code !== 0 || !/Successfully imported 0 credentials/i.test(r.stdout + r.stderr)) {
				throw new Error(
					`migrating an empty database for n8n ${host.n8nVersion} failed (exit ${r.code}):\n${lastLines(r.stdout + '\n' + r.stderr, 30)}`,
				);
			}
			fs.rmSync(empty);
			fs.rmSync(path.join(folder, '.n8n', 'config'), { force: true });
		},
		verify: async (folder) => {
			if (!fs.existsSync(path.join(folder, '.n8n', 'database.sqlite')))
				throw new Error(`no database.sqlite in ${folder}/.n8n`);
		},
	});
	return dir;
}

/**
 * Copies the template into `userFolder` unless it already has a database (a lasting folder of `npm start`).
 * Returns true when it copied.
 */
export async function seedDatabase(host, userFolder, log) {
	const target = path.join(userFolder, '.n8n');
	if (fs.existsSync(path.join(target, 'database.sqlite'))) return false;
	const source = path.join(await databaseTemplate(host, log), '.n8n');
	fs.mkdirSync(target, { recursive: true });
	for (const file of DATABASE_FILES) {
		if (fs.existsSync(path.join(source, file)))
			fs.copyFileSync(path.join(source, file), path.join(target, file));
	}
	return true;
}
