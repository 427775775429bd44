#!/usr/bin/env node
// `npm run soak`: the seeded chaos soak of the package (tools/lib/soak/: what it runs, how it judges and
// reports) in n8n's queue mode, or with --mode regular in one n8n 1.x process.
//
//   npm run soak -- --minutes 30 --seed 7        (node --import tsx scripts/soak.mjs …)
//   npm run soak -- --minutes 2 --seed 7 --process-faults kills     (worker SIGKILLs only; or none)
//   npm run soak -- --minutes 2 --seed 7 --mode regular   (regular mode: one n8n 1.123.81 process, SQLite,
//                                          filesystem binary mode; same load and service faults, its only
//                                          process fault is restarting that process; no --doc)
//   --json FILE writes the report; --doc writes the soak section of docs/reliability.md; --help: USAGE below
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

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

// ---------------------------------------------------------------------------------------------------------
// CLI: npm run soak -- --minutes M --seed S [--mode queue|regular] [--process-faults all|kills|none] [--json file] [--doc]

export const USAGE = `npm run soak -- [options]      the seeded chaos soak (node --import tsx scripts/soak.mjs …)

  --minutes M                       how long the load runs (default 10)
  --seed S                          the seed of the load and the faults, an integer (default 1)
  --mode queue|regular              queue: n8n 2.x main + 2 workers, PostgreSQL, Redis (default);
                                    regular: one n8n 1.123.81 process, SQLite, filesystem binary mode
                                    (same load and service faults; its only process fault is its restart)
  --process-faults all|kills|none   all kinds (default), the two worker SIGKILLs only, or none
  --json FILE                       write the report as JSON
  --doc                             write the soak section of docs/reliability.md (queue mode only)
  --help                            this text

  e.g. npm run soak -- --minutes 30 --seed 7
       npm run soak -- --minutes 2 --seed 7 --mode regular`;

/** A wrong command line: its message and the usage are printed, without a stack trace. */
export class UsageError extends Error {}

/** --process-faults: every kind (default), the two worker SIGKILLs only (as npm test's short soak), none. */
const PROCESS_FAULT_SETS = {
	all: PROCESS_FAULTS,
	kills: ['SIGKILL a worker mid-wait', 'SIGKILL a worker mid-download'],
	none: [],
};

export function parseArgs(argv) {
	const args = { minutes: 10, seed: 1, processFaults: 'all', mode: 'queue' };
	for (let i = 0; i < argv.length; i++) {
		const a = argv[i];
		if (a === '--help' || a === '-h') args.help = true;
		else if (a === '--minutes') args.minutes = Number(argv[++i]);
		else if (a === '--seed') args.seed = Number(argv[++i]);
		else if (a === '--json') args.json = argv[++i];
		else if (a === '--doc') args.doc = true;
		else if (a === '--process-faults') args.processFaults = argv[++i];
		else if (a === '--mode') args.mode = argv[++i];
		else throw new UsageError(`unknown argument ${a}`);
	}
	if (args.help) return args;
	if (!PROCESS_FAULT_SETS[args.processFaults])
		throw new UsageError('--process-faults must be all, kills or none');
	if (!['queue', 'regular'].includes(args.mode))
		throw new UsageError('--mode must be queue or regular');
	if (!(args.minutes > 0) || !Number.isInteger(args.seed))
		throw new UsageError('--minutes must be > 0 and --seed an integer');
	if (args.mode === 'regular' && args.doc)
		throw new UsageError('--doc writes the queue-mode section: not with --mode regular');
	return args;
}

async function main(argv) {
	const args = parseArgs(argv);
	if (args.help) {
		console.log(USAGE);
		return 0;
	}
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
	main(process.argv.slice(2)).then(
		(code) => process.exit(code),
		(e) => {
			if (e instanceof UsageError) {
				console.error(`${e.message}\n\n${USAGE}`);
				process.exit(2);
			}
			console.error(e?.stack ?? e);
			process.exit(1);
		},
	);
}
