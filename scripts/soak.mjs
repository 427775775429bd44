#!/usr/bin/env node
// `npm run soak`: the seeded chaos soak of the package (tools/lib/soak/: what it runs, how it judges and
// reports) in n8n's queue mode, or with --mode regular in one n8n 1.x process.
//
//   npm run soak -- --minutes 30 --seed 7        (node --import tsx scripts/soak.mjs …)
//   npm run soak -- --minutes 2 --seed 7 --process-faults kills     (worker SIGKILLs only; or none)
//   npm run soak -- --minutes 2 --seed 7 --mode regular   (regular mode: one n8n 1.123.81 process, SQLite,
//                                          filesystem binary mode; same load and service faults, its only
//                                          process fault is restarting that process; no --doc)
//   --json FILE writes the report; --doc writes the soak section of docs/reliability.md
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
// CLI: npm run soak -- --minutes M --seed S [--process-faults all|kills|none] [--json file] [--doc]

/** --process-faults: every kind (default), the two worker SIGKILLs only (as npm test's short soak), none. */
const PROCESS_FAULT_SETS = {
	all: PROCESS_FAULTS,
	kills: ['SIGKILL a worker mid-wait', 'SIGKILL a worker mid-download'],
	none: [],
};

function parseArgs(argv) {
	const args = { minutes: 10, seed: 1, processFaults: 'all', mode: 'queue' };
	for (let i = 0; i < argv.length; i++) {
		const a = argv[i];
		if (a === '--minutes') args.minutes = Number(argv[++i]);
		else if (a === '--seed') args.seed = Number(argv[++i]);
		else if (a === '--json') args.json = argv[++i];
		else if (a === '--doc') args.doc = true;
		else if (a === '--process-faults') args.processFaults = argv[++i];
		else if (a === '--mode') args.mode = argv[++i];
		else
			throw new Error(
				`unknown argument ${a} (use --minutes M --seed S [--process-faults all|kills|none] [--json file] [--doc])`,
			);
	}
	if (!PROCESS_FAULT_SETS[args.processFaults])
		throw new Error('--process-faults must be all, kills or none');
	if (!['queue', 'regular'].includes(args.mode)) throw new Error('--mode must be queue or regular');
	if (!(args.minutes > 0) || !Number.isInteger(args.seed))
		throw new Error('--minutes must be > 0 and --seed an integer');
	return args;
}

async function main(argv) {
	const args = parseArgs(argv);
	const log = (msg) => process.stderr.write(`[soak] ${msg}\n`);
	const regular = args.mode === 'regular';
	if (regular && args.doc)
		throw new Error('--doc writes the queue-mode section: not with --mode regular');
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
			console.error(e?.stack ?? e);
			process.exit(1);
		},
	);
}
