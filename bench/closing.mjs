// The closing sections of the report, after the parts': the goals table, the findings (this run's, then
// what the code shows) and how to reproduce the run, with its durations.
import os from 'node:os';
import path from 'node:path';

import { fmtS } from './measure.mjs';
import { goalsTable } from './report.mjs';

/** Observations about our nodes that the code shows (no figures: those are in the findings above). */
const FINDINGS = [
	"**Batches are followed through the job list.** Create with Wait for Completion (and Wait for Job) create or read every item, and one watcher per node run follows the unfinished jobs with one `GET /v1/jobs?limit=100` per poll interval (a lone job: `GET /v1/jobs/{id}`); each job's download starts as soon as a page shows it finished (nodes/shared/jobs/watch.ts, nodes/shared/router.ts).",
	'**One pacer per API key per n8n process** (nodes/shared/service/pacing.ts) decides when each request may leave: it learns the window from `X-RateLimit-*`, counts its own requests in flight, honours every Retry-After for the whole key, gives job reads priority over other requests and transfers the lowest.',
	"**Downloads are one pass**: the response is hashed while n8n's `prepareBinaryData` streams it into the binary store (nodes/shared/service/files.ts); **uploads are two**: a hashing pass for the sha256-derived Idempotency-Key, then the stream as the body (nodes/shared/service/files.ts).",
	'**Wait after Create starts with a full interval**: the first look at a new job comes one poll interval after its create answer (always `queued`), which is right for jobs of ≥ 5 s; for very short jobs it adds up to one interval of latency (never an extra request).',
];

/** Goals, findings and "Reproduce"; `partNames` = every part --only takes, `setupMs`/`totalMs` of this run. */
export function emitClosing(report, { partNames, machine, setupMs, totalMs }) {
	const { emit, goals, findings, durations } = report;
	emit('## Goals');
	emit();
	emit(goalsTable(goals, ['Goal', 'Result (ours)', 'Met?', 'Why / what would fix it']));
	emit();
	emit('## Findings (from these runs and the code)');
	emit();
	for (const f of [...findings, ...FINDINGS]) emit(`- ${f}`);
	emit();
	emit('## Reproduce');
	emit();
	emit('```sh');
	emit('npm install');
	emit('npm run bench                               # all parts; writes docs/benchmarks.md');
	emit(
		`npm run bench -- --only=requests,batch      # some parts (${partNames.join(', ')}); prints only`,
	);
	emit('npm run bench -- --mem-reps=5 --cpu-reps=5  # more repetitions');
	emit('npm run bench -- --only=batch --batch-sizes=10 --previous=<commit>');
	emit(
		'npm run bench -- --only=queue --doc         # one part alone (queue, memory, batch, thousand); replaces only its section, goal rows and findings here',
	);
	emit(
		"npm run bench -- --only=thousand --thousand-jobs=1000 --doc  # part 7 as documented; also writes docs/scale.md's table",
	);
	emit(
		'npm run bench -- --only=thousand --thousand-jobs=1000 --thousand-workers=2,4,8 --thousand-runs=items,executions,items-base,executions-base,items-large --thousand-dump=DIR --thousand-reuse=DIR --doc  # the same at 2, 4, 8 workers and items-large (hours) over several sessions: each run is kept in DIR as it ends, and the same command again runs only what DIR holds no record of (same settings and package sources, not failed)',
	);
	emit('```');
	emit();
	emit(
		`The first run installs n8n ${machine.n8n} into \`~/.cache/n8n-nodes-generation-service\` (about 5 minutes) and builds the previous version into \`${path.join(os.tmpdir(), 'gs-bench-prev')}\`. Durations of this run: setup ${fmtS(setupMs)}${Object.entries(
			durations,
		)
			.map(([k, v]) => `, ${k} ${fmtS(v)}`)
			.join('')}; total ${fmtS(totalMs)}; load average at the end ${os
			.loadavg()
			.map((x) => x.toFixed(2))
			.join(
				' ',
			)} (other work on the machine during the run shows in CPU and wall figures). Parts 1–5 run one n8n process at a time, parts 6 and 7 one queue-mode stack at a time; job timings are real time, so parts 1, 3, 6 and 7 cannot be much shorter than their jobs and rate windows.`,
	);
}
