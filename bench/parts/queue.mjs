// Part 6 of `npm run bench`: many long jobs at once in n8n's queue mode, three patterns side by side. A
// queue-mode stack (tools/lib/queue-stack.mjs: PostgreSQL, Redis, a main and 2 workers × concurrency 2 = 4
// slots, database binary mode) is started once for the part; each pattern runs on it in turn, on a fresh 60
// requests/minute key in its own account, only its own workflows published, after no execution of the
// stack is left new, running or waiting. N webhook calls at once (distinct prompts) of jobs lasting
// --queue-job-s; every MP4 is posted by n8n to a sink in this process, which checks its sha256.
//   wait     Webhook → Create with Wait for Completion → deliver (the execution holds a slot while it waits)
//   park     examples/many-long-jobs.json: Create → n8n's Wait node until Create's estimatedReadyAt (parked
//            in the database, slot free) → Wait for Job → deliver
//   trigger  Webhook → Create; the Job Finished trigger (on the main, once a minute) → Download Output → deliver
// The workflows: queue-workflows.mjs; one pattern measured: queue-measure.mjs (collectors: queue-collect.mjs,
// figures: queue-figures.mjs); the section, goals and the hand-measured table: queue-report.mjs.
import { spawnSync } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';

import { startQueueStack } from '../../tools/lib/queue-stack.mjs';
import { findRedisServer } from '../../tools/lib/redis.mjs';
import { startSink } from '../../tools/lib/soak/sink.mjs';
import { ourCredential } from '../context.mjs';
import { UsageError } from '../../tools/lib/cli.mjs';
import { anyValue, names } from '../options.mjs';
import { LIMIT, SLOTS, measurePattern } from './queue-measure.mjs';
import { emitQueue } from './queue-report.mjs';
import { PATTERNS, queueWorkflows } from './queue-workflows.mjs';

export const name = 'queue';
/** Its section of docs/benchmarks.md can be refreshed alone: `npm run bench -- --only=queue --doc`. */
export const docSection = true;
/** How its rows in the closing Goals table start (doc-section.mjs). */
export const goalPrefix = 'Queue mode';

export const options = [
	{
		flags: ['queue-calls'],
		key: 'queueCalls',
		parse: Number,
		default: 12,
		help: 'part 6: webhook calls at once',
	},
	{
		flags: ['queue-job-s'],
		key: 'queueJobS',
		parse: Number,
		default: 120,
		help: 'part 6: job duration in seconds',
	},
	{
		flags: ['queue-patterns'],
		key: 'queuePatterns',
		parse: names,
		default: ['wait', 'park', 'trigger'],
		help: 'part 6: the patterns, of wait, park and trigger',
	},
	// seconds from the trigger's poll second (POLL_SECOND) to the calls: the jobs end about this much plus
	// their duration after a poll, so the poll that sees them comes (60 − (phase + T) mod 60) s after their end
	{
		flags: ['queue-trigger-phase'],
		key: 'queueTriggerPhase',
		parse: Number,
		default: 30,
		help: "part 6: seconds from the Job Finished trigger's poll second to the calls",
	},
	{
		flags: ['queue-sample-ms'],
		key: 'queueSampleMs',
		parse: Number,
		default: 1000,
		help: 'part 6: how often the slots are sampled',
	},
	// where each pattern's collected data goes as JSON (its key's requests with their process, slots, samples)
	{
		flags: ['queue-dump'],
		key: 'queueDump',
		parse: (v) => path.resolve(v),
		fullIf: anyValue,
		value: 'DIR',
		help: "part 6: each pattern's collected data as JSON",
	},
];

/** The Job Finished trigger polls at this second of every minute. */
export const POLL_SECOND = 0;
/** Each job's MP4 (the emulator pads its sample to this size): small, the part measures waiting. */
export const OUTPUT_BYTES = 4096;

export function check(opt) {
	const unknown = opt.queuePatterns.filter((p) => !PATTERNS[p]);
	if (unknown.length)
		throw new UsageError(`--queue-patterns: unknown ${unknown} (${Object.keys(PATTERNS)})`);
	// n8n parks a Wait node of 65 s or more; Create's estimate on a fresh key is 120 s, and a learned one
	// would be the job's duration: jobs shorter than this would not park once learned
	if (!(opt.queueJobS >= 70))
		throw new UsageError('--queue-job-s: at least 70 (n8n parks waits ≥ 65 s)');
	if (!(opt.queueCalls >= 1 && opt.queueCalls <= 100))
		throw new UsageError('--queue-calls: 1 to 100 (the executions are read one page of 100)');
	if (!(opt.queueTriggerPhase >= 0 && opt.queueTriggerPhase < 60))
		throw new UsageError('--queue-trigger-phase: 0 to 59 s');
}

const keyName = (pattern) => `queue_${pattern}`;

/** A fresh 60 requests/minute key per pattern, in its own account; the credentials go to the stack. */
export function prepare({ opt, emu, key, keys }) {
	const credentials = opt.queuePatterns.map((pattern) => {
		const account = `acct_bench_queue_${pattern}`;
		key(keyName(pattern), { requestsPerMinute: LIMIT, accountId: account });
		emu.control.grantCredits(opt.queueCalls * 8 + 100, account);
		return ourCredential(PATTERNS[pattern].cred, keys[keyName(pattern)].secret, emu.baseUrl);
	});
	return { credentials }; // nothing for the bench's own n8n instance
}

const redisVersion = () =>
	/v=(\S+)/.exec(
		spawnSync(findRedisServer(), ['--version'], { encoding: 'utf8' }).stdout ?? '',
	)?.[1];

export async function run(ctx, { credentials }) {
	const { opt, emu, log } = ctx;
	const t0 = Date.now();
	log(
		`part 6: queue mode, ${opt.queueCalls} calls at once of ${opt.queueJobS} s jobs, patterns ${opt.queuePatterns.join(', ')}`,
	);
	emu.control.setJobTiming({ queuedMs: 1000, runningMs: opt.queueJobS * 1000 - 1000 });
	emu.control.setOutputBytes(OUTPUT_BYTES);
	const sink = await startSink();
	const results = [];
	const meta = { loadAtStart: loadAverage(), outputBytes: OUTPUT_BYTES, pollSecond: POLL_SECOND };
	let stack;
	let clean = false;
	try {
		stack = await startQueueStack({
			tarball: ctx.tarball,
			...SLOTS,
			credentials,
			workflows: queueWorkflows(opt.queuePatterns, { sinkUrl: sink.url, pollSecond: POLL_SECOND }),
			env: { N8N_WORKFLOW_PUBLICATION_OUTBOX_POLL_INTERVAL_MS: '1000' },
			log: (m) => log(`  ${m}`),
		});
		Object.assign(meta, {
			postgres: stack.postgres.version,
			redis: redisVersion(),
			stackMs: stack.timings.total,
		});
		for (const pattern of opt.queuePatterns)
			results.push(
				await measurePattern(ctx, {
					stack,
					sink,
					pattern,
					keyName: keyName(pattern),
					pollSecond: POLL_SECOND,
				}),
			);
		clean = results.every((r) => !r.timedOut && r.checked.verified === opt.queueCalls);
	} finally {
		await stack?.stop({ keepLogs: !clean });
		await sink.close();
		emu.control.setJobTiming({ queuedMs: 1000, runningMs: 2000 }); // the bench's default
	}
	emitQueue(ctx, results, { ...meta, partMs: Date.now() - t0, loadAtEnd: loadAverage() });
}

const loadAverage = () =>
	os
		.loadavg()
		.map((x) => x.toFixed(2))
		.join(' ');
