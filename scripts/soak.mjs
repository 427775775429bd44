#!/usr/bin/env node
// `npm run soak`: the seeded chaos soak of the package (tools/lib/soak/: what it runs, how it judges and
// reports) in n8n's queue mode, or with --mode regular in one n8n 1.x process.
//
//   npm run soak -- --minutes 30 --seed 7        (node --import tsx scripts/soak.mjs …)
//   npm run soak -- --minutes 2 --seed 7 --process-faults kills     (worker SIGKILLs only; or none)
//   npm run soak -- --minutes 2 --seed 7 --mode regular   (regular mode: one n8n 1.123.81 process, SQLite,
//                                          filesystem binary mode; same load and service faults, its only
//                                          process fault is restarting that process; no --doc)
//   --json FILE writes the report; --doc writes the soak section of docs/reliability.md; --help: SOAK_COMMAND below
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { UsageError, integer, oneOf, runCommand } from '../tools/lib/cli.mjs';
import { startEmulator } from '../tools/lib/emulator.mjs';
import { ensureHost } from '../tools/lib/hosts.mjs';
import { packOnce } from '../tools/lib/pack.mjs';
import { startQueueStack } from '../tools/lib/queue-stack.mjs';
import { findRedisServer } from '../tools/lib/redis.mjs';
import { startRegularStack } from '../tools/lib/regular-stack.mjs';
import { REPO } from '../tools/lib/repo.mjs';
import {
	PROCESS_FAULTS,
	SOAK_EMULATOR,
	formatReport,
	publishSoak,
	runSoak,
	setupSoak,
	writeDocSection,
} from '../tools/lib/soak/index.mjs';

/** --process-faults: every kind (default), the two worker SIGKILLs only (as npm test's short soak), none. */
const PROCESS_FAULT_SETS = {
	all: PROCESS_FAULTS,
	kills: ['SIGKILL a worker mid-wait', 'SIGKILL a worker mid-download'],
	none: [],
};

export const SOAK_COMMAND = {
	command: 'npm run soak',
	summary:
		'The seeded chaos soak of the package (tools/lib/soak/): load, service faults and process faults against\n' +
		'n8n in queue mode (n8n 2.x main + 2 workers, PostgreSQL, Redis), or with --mode regular one n8n 1.123.81\n' +
		'process (SQLite, filesystem binary mode; same load and service faults, its only process fault is its\n' +
		'restart). Prints a report; exit 1 on any problem.',
	options: {
		minutes: {
			type: 'string',
			value: 'M',
			default: 10,
			parse: (text, flag) => {
				const n = Number(text);
				if (!(n > 0)) throw new UsageError(`${flag} takes a number of minutes > 0, not "${text}"`);
				return n;
			},
			help: 'how long the load runs',
		},
		seed: {
			type: 'string',
			value: 'S',
			default: 1,
			parse: integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }),
			help: 'the seed of the load and the faults, an integer',
		},
		mode: {
			type: 'string',
			value: 'queue|regular',
			default: 'queue',
			parse: oneOf(['queue', 'regular']),
			help: 'queue mode, or one n8n 1.123.81 process',
		},
		'process-faults': {
			type: 'string',
			value: 'all|kills|none',
			default: 'all',
			parse: oneOf(Object.keys(PROCESS_FAULT_SETS)),
			help: 'all kinds, the two worker SIGKILLs only, or none',
		},
		json: { type: 'string', value: 'FILE', help: 'write the report as JSON' },
		doc: {
			type: 'boolean',
			help: 'write the soak section of docs/reliability.md (queue mode only)',
		},
	},
	notes: [
		'e.g. npm run soak -- --minutes 30 --seed 7',
		'     npm run soak -- --minutes 2 --seed 7 --mode regular',
	],
};

async function main({ options }) {
	const args = { ...options, processFaults: options['process-faults'] };
	if (args.mode === 'regular' && args.doc)
		throw new UsageError('--doc writes the queue-mode section: not with --mode regular');
	const log = (msg) => process.stderr.write(`[soak] ${msg}\n`);
	const regular = args.mode === 'regular';
	await ensureHost({ version: regular ? '1' : '2' });
	const tarball = await packOnce();
	const emu = await startEmulator(SOAK_EMULATOR);
	let stack;
	let prepared;
	let report;
	try {
		prepared = await setupSoak(emu);
		stack = regular
			? await startRegularStack({
					tarball,
					log,
					credentials: prepared.credentials,
					workflows: prepared.workflows,
				})
			: await startQueueStack({
					tarball,
					workers: 2,
					concurrency: 3,
					queueSettings: { lockDuration: 20_000, lockRenewTime: 5_000, stalledInterval: 5_000 },
					env: { N8N_WORKFLOW_PUBLICATION_OUTBOX_POLL_INTERVAL_MS: '1000' },
					log,
					credentials: prepared.credentials,
					workflows: prepared.workflows,
				});
		await publishSoak(stack, log);
		report = await runSoak({
			stack,
			emu,
			prepared,
			minutes: args.minutes,
			seed: args.seed,
			// regular mode: one process, whose only process fault is its restart
			processFaultKinds: regular
				? args.processFaults === 'none'
					? []
					: ['restart the main']
				: PROCESS_FAULT_SETS[args.processFaults],
			log,
			video: fs.readFileSync(path.join(REPO, 'examples', 'samples', 'sample-video.mp4')),
		});
		console.log(formatReport(report));
		if (args.json) fs.writeFileSync(args.json, JSON.stringify(report, null, 2));
		if (args.doc) {
			const redis = /v=(\S+)/.exec(
				spawnSync(findRedisServer(), ['--version'], { encoding: 'utf8' }).stdout,
			)?.[1];
			writeDocSection(report, {
				date: new Date().toISOString().slice(0, 16).replace('T', ' ') + ' UTC',
				cpus: os.cpus().length,
				processFaults: args.processFaults,
				postgres: stack.postgres.version,
				redis,
			});
			log('wrote the soak section of docs/reliability.md');
		}
	} finally {
		await stack?.stop({ keepLogs: !report || failed(report) });
		await prepared?.sink.close();
		emu.control.clearViolations(); // judged in the report above
		await emu.close();
	}
	return failed(report) ? 1 : 0;
}

/** The soak fails on any problem (violations among them); collisions are reported (see the header). */
const failed = (report) => report.problems.length > 0;

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
	runCommand(SOAK_COMMAND, main);
}
