// The section of part 7 (a thousand videos) in docs/benchmarks.md, between its markers (doc-section.mjs:
// `npm run bench -- --only=thousand --doc` replaces only it, its goal rows and its chart): how it was run and
// measured (and, when some runs were taken from earlier sessions' records, which, from when and at which
// commit: thousand-reuse.mjs), a table per run of what reached the bucket and what it cost the key, the runs by
// worker count, the items-large run, a table of what it cost n8n, requests by process, the goals; and, from a
// run of DOCUMENTED_JOBS prompts or more, the block of docs/scale.md ("A thousand videos") with the same figures.
import os from 'node:os';

import { thousandChart } from '../charts.mjs';
import { sectionEnd, sectionStart } from '../doc-section.mjs';
import { routeText } from '../journal.mjs';
import { MiB, fmtS } from '../measure.mjs';
import { goalsTable, signed, table } from '../report.mjs';
import { partRunNote } from '../setup.mjs';
import { simulateFloor } from '../floor.mjs';
import {
	OTHER_GOAL,
	RATE_GOAL,
	byWorkerCount,
	keyWindows,
	largeFigures,
	runTag,
	slotBeganDuringCreates,
	workersText,
} from './thousand-figures.mjs';
import { thousandGoals } from './thousand-goals.mjs';
import { sessionsText } from './thousand-reuse.mjs';

/** The run whose figures docs/scale.md's "A thousand videos" shows (smaller runs leave it alone). */
export const DOCUMENTED_JOBS = 1000;
/** The block of docs/scale.md the bench writes (between its markers). */
export const SCALE_DOC = 'scale.md';
export const SCALE_BLOCK = 'thousand';

/** The key's budget used in the windows a run spanned, with the requests counted in each. */
const keyUse = (w) =>
	Number.isFinite(w.usedShare)
		? `${(w.usedShare * 100).toFixed(1)} % (${w.perWindow.join('/')})`
		: w.perWindow.join('/');

const mib = (b) => (Number.isFinite(b) ? `${(b / MiB).toFixed(1)} MiB` : 'n/a');
const perJob = (r) => (r.journalCount / r.n).toFixed(2);
const late = (s) => (s ? `${fmtS(s.median)}; ${fmtS(s.max)}` : 'n/a');
/** A run's row label: the shape's and its worker count. */
const rowLabel = (r) => `${r.label} (${workersText(r.workers)})`;
const regularOf = (results) => results.filter((r) => !r.large);
const pct = (x) => (Number.isFinite(x) ? `${(x * 100).toFixed(1)} %` : 'n/a');

function mainTable(results) {
	return table(
		[
			'Run',
			'Last MP4 after',
			'Floor',
			'÷ floor',
			'Requests per job',
			'Requests by route',
			"Key's budget used (requests it counted per window)",
			'429',
			'Referee: by a process alone / processes sharing the key',
			'Jobs for prompts (once)',
			'MP4s in the bucket with their sha256',
			'Wall time',
		],
		regularOf(results).map((r) => [
			rowLabel(r),
			fmtS(r.lastMp4Ms),
			fmtS(r.floor.floorMs),
			r.ratio.toFixed(2),
			perJob(r),
			routeText(r.route),
			keyUse(keyWindows(r)),
			r.r429,
			`${r.referee.alone.length} / ${r.referee.shared.length}${r.referee.total ? ` ${JSON.stringify(r.referee.byKind)}` : ''}`,
			`${r.created.jobs} for ${r.created.prompts} (${r.created.once})`,
			`${r.bucket.verified}/${r.n}${r.bucket.badSha.length ? `, ${r.bucket.badSha.length} other sha256` : ''}${r.bucket.extra.length ? `, ${r.bucket.extra.length} of no job` : ''}`,
			fmtS(r.endAt - r.t0),
		]),
	);
}

const growth = (db, table) => (db.end.tables[table] ?? 0) - (db.start.tables[table] ?? 0);

function costTable(results) {
	return table(
		[
			'Run',
			'Peak RSS per n8n process (added during the run)',
			'Postgres growth (database; execution_data; binary_data)',
			'Worker slot-seconds (queue jobs)',
			'Executions',
			'Parked',
			'Resumed after the time asked (median; max)',
			'Resumed after the job ended (median; max)',
			'Stack start',
		],
		results.map((r) => [
			runTag(r),
			Object.entries(r.memory.perProcess)
				.map(([p, m]) => `${p} ${mib(m.peak)} (${signed(m.added)})`)
				.join(', '),
			`${mib(r.database.end.database - r.database.start.database)}; ${mib(growth(r.database, 'execution_data'))}; ${mib(growth(r.database, 'binary_data'))}`,
			`${r.slots.seconds.toFixed(0)} (${r.slots.queueJobs}${r.slots.open ? `, ${r.slots.open} never finished` : ''})`,
			JSON.stringify(r.executions.status),
			r.slots.parked,
			late(r.resumes?.late),
			late(r.resumes?.afterEnd),
			fmtS(r.stackMs),
		]),
	);
}

function processTable(results) {
	const rows = [];
	for (const r of results)
		for (const [p, x] of Object.entries(r.perProcess))
			rows.push([
				runTag(r),
				p,
				routeText(x),
				x.looks,
				Number.isFinite(r.slots.busy[p]) ? fmtS(r.slots.busy[p]) : '—',
			]);
	return table(
		[
			'Run',
			'n8n process',
			'Requests by route',
			'Looks (first list pages + job reads)',
			'Ran executions for',
		],
		rows,
	);
}

const counts = (c) =>
	Object.entries(c ?? {})
		.map(([route, k]) => `${k} ${route}`)
		.join(' + ') || '—';

/** Where a look-back slot began while the creates went out (thousand-figures.mjs slotBeganDuringCreates). */
function slotCell(r) {
	if (r.side !== 'ours' || r.firstRequestAt === undefined || !r.timeline) return '—';
	const at = slotBeganDuringCreates(r.firstRequestAt, r.timeline.lastCreate);
	return at === undefined ? 'no' : `at ${fmtS(at)}`;
}

function phaseTable(results) {
	return table(
		[
			'Run',
			'While the creates went out',
			'After the last create',
			'A look-back slot began during the creates',
		],
		results.map((r) => [
			runTag(r),
			counts(r.phases?.creating),
			counts(r.phases?.after),
			slotCell(r),
		]),
	);
}

/**
 * The runs side by side by worker count (thousand-figures.mjs byWorkerCount): the rate, the requests and the
 * share beyond creates and downloads, 429s, the referee's records with their rules, jobs once, MP4s.
 */
export function workerCountTable(results) {
	return table(
		[
			'Run',
			'Workers',
			'Last MP4 ÷ floor',
			'Requests by route',
			`Other than creates and downloads (goal ≤ ${OTHER_GOAL * 100} % for executions)`,
			'429',
			'Referee: by a process alone / processes sharing the key (rules)',
			'Jobs once',
			'MP4s in the bucket',
		],
		byWorkerCount(results).map((x) => [
			x.name,
			x.workers,
			x.ratio.toFixed(2),
			routeText(x.r.route),
			`${x.other.other} (${pct(x.other.share)})`,
			x.r429,
			`${x.alone.count}${x.alone.count ? ` (${x.alone.kinds})` : ''} / ${x.shared.count}${x.shared.count ? ` (${x.shared.kinds})` : ''}`,
			x.once,
			x.verified,
		]),
	);
}

/**
 * The items-large run(s) (thousand-figures.mjs largeFigures), with what its shortened window means for the
 * figures beside them: a table and the sentence that goes with it.
 */
export function largeTable(results) {
	const large = results.filter((r) => r.large);
	if (!large.length) return undefined;
	const rows = large.map((r) => {
		const f = largeFigures(r);
		return [
			`${r.n} items, ${workersText(r.workers)}, window ${fmtS(r.windowMs)}, jobs ${fmtS(r.jobS * 1000)}`,
			`${fmtS(r.timeline.lastDownload)} / ${fmtS(r.floor.floorMs)} = ${f.downloadRatio.toFixed(2)}`,
			`${fmtS(r.lastMp4Ms)} = ${f.mp4Ratio.toFixed(2)}`,
			f.requestsPerVideo.toFixed(2),
			`${mib(f.rssPer1000.worker)}; ${mib(f.rssPer1000.main)}`,
			mib(f.postgresPer1000),
			r.r429,
			`${r.bucket.verified}/${r.n}`,
			fmtS(r.endAt - r.t0),
		];
	});
	const w = [...new Set(large.map((r) => fmtS(r.windowMs)))].join(', ');
	return [
		`One execution of ${large.map((r) => r.n).join(', ')} items on one worker (items-large), with the emulator's rate window shortened from the service's minute to ${w} (the key's ${large[0].limit} requests a window), and its jobs shortened with it, so that it takes minutes, not hours: the ratio to the floor on the same windows is what counts, not the seconds. The last download and the last MP4 are against the floor apart: n8n's S3 node uploads only once the Create node has output every item, in real time that a shortened window does not shorten (at a minute's window the same seconds weigh about ${Math.round(60_000 / large[0].windowMs)} times less). Peak RSS and Postgres per 1,000 items: what the run added (its peak minus its start; the database's size at the end minus at the start) ÷ N × 1,000.`,
		'',
		table(
			[
				'Run',
				'Last download / floor',
				'Last MP4 / floor',
				'Requests per video',
				'RSS added per 1,000 items (worker; main)',
				'Postgres growth per 1,000 items',
				'429',
				'MP4s in the bucket',
				'Wall time',
			],
			rows,
		),
	].join('\n');
}

/**
 * The command of a documented run as given (`opt`, the part's option `specs`): --thousand-jobs and each option
 * of the part not at its default.
 */
export function documentedCommand(opt, specs) {
	const value = (v) => (Array.isArray(v) ? v.join(',') : String(v));
	const changed = specs.filter(
		(s) =>
			s.default !== undefined &&
			(s.key === 'thousandJobs' || value(opt[s.key]) !== value(s.default)),
	);
	return `npm run bench -- --only=thousand ${changed.map((s) => `--${s.flags[0]}=${value(opt[s.key])}`).join(' ')} --doc`;
}

/**
 * How long a run of `jobs` prompts would take, from this run: its floor for that many (bench/floor.mjs, from
 * second 0 of a window) stretched by the larger of this run's requests over the floor's (when the key's budget
 * is what bounds it) or plus this run's time beyond its own floor (when it is not), and its stack's start, its
 * time before the first request and after the last MP4.
 */
export function estimateMs(results, { jobs, limit, windowMs, pollMs }) {
	return results.reduce((total, r) => {
		const floor = simulateFloor({ t0: 0, n: jobs, jobMs: r.jobS * 1000, limit, windowMs, pollMs });
		const f = r.floor.requests;
		const requestsRatio = r.journalCount / (f.capabilities + f.creates + f.polls + f.downloads);
		const run = Math.max(
			floor.floorMs * Math.max(1, requestsRatio),
			floor.floorMs + (r.lastMp4Ms - r.floor.floorMs),
		);
		const before = r.floor.t0 - r.t0;
		const after = r.endAt - r.bucket.lastAt;
		return total + r.stackMs + before + run + (Number.isFinite(after) ? after : 0);
	}, 0);
}

const minutes = (ms) => `${Math.round(ms / 60_000)} min`;

/** Part 7's section (between its markers) and its goals; the docs/scale.md block from a documented run. */
export function emitThousand(ctx, all, meta) {
	const { opt, emit, report } = ctx;
	const results = all.filter((r) => !r.failed);
	const n = opt.thousandJobs;
	report.keep(sectionStart('thousand'));
	emit(`## 7. A thousand videos: ${n} prompts through n8n's queue mode on one key`);
	emit();
	emit(partRunNote(meta, opt));
	emit();
	// runs taken from the records of earlier sessions (--thousand-reuse): which, from when, at which commit
	const sessions = sessionsText(all, { sources: meta.sources, baseSources: meta.baseSources });
	if (sessions) {
		emit(
			all.every((r) => r.reused)
				? `${sessions} No run was measured in this session: the line above (its date, load averages and the part's time) is this render's of the records.`
				: `${sessions} The date, load averages and time of the line above are this session's.`,
		);
		emit();
	}
	const w =
		meta.windowMs === 60_000
			? 'a minute'
			: `${meta.windowMs / 1000} s (shortened from the service's minute)`;
	emit(
		`n8n 2.41.1 in queue mode (tools/lib/queue-stack.mjs), a fresh stack for each run: a main and ${opt.thousandWorkers.join(', ')} workers (each run once per count) × concurrency ${opt.thousandConcurrency}, PostgreSQL ${meta.postgres ?? '?'}, Redis, database binary mode; ${os.cpus().length} cores shared by all of it and the bench (the emulator and the S3 server run in the bench process). Each run has its own key at ${meta.limit} requests per window of ${w}, in its own account, and its own bucket on a local S3 server (s3rver, tools/lib/s3.mjs) that n8n's S3 node of examples/publish-to-s3.json writes to, as \`generated/<job id>.mp4\`. Jobs on the emulator: ${opt.thousandJobS} s for the items shape and ${opt.thousandParkJobS} s for the executions shape (queued 1 s, then running; MP4s of ${meta.outputBytes} bytes): n8n parks a Wait node only for waits of 65 s or more, so the executions shape's jobs are longer, and not 120 s, the package's estimate before a worker has seen a job of the kind end.`,
	);
	emit();
	emit(
		`- **items** (ours): a manual run (the editor's "Execute workflow", through n8n's REST API; on a worker, \`OFFLOAD_MANUAL_EXECUTIONS_TO_WORKERS=true\` as n8n 3.0 always does) → Code (${n} prompts) → the publish example's Create and Wait (Wait for Completion, download on) → its Upload to S3: one execution. A manual run creates without looking for a recent identical job (Reuse Identical Recent Job looks in webhook calls and n8n's Retry).`,
	);
	emit(
		`- **executions** (ours): ${n} webhook calls at once (${n} executions, one row each, answered at once) → examples/many-long-jobs.json's Create → n8n's Wait node until Create's \`estimatedReadyAt\` → Wait for Job → the publish example's Upload to S3, spread over the workers. Webhook calls are runs in which Create first looks for a recent job of the same input (Reuse Identical Recent Job, by default over the last 60 minutes), so a caller that calls again after a crash does not pay twice.`,
	);
	emit(
		"- **items-base**, **executions-base**: the same shapes and triggers with n8n's own nodes only: HTTP Request creates (an Idempotency-Key per row), n8n's Wait node for the job's duration + 5 s (parked from 65 s), HTTP Request downloads the output as a file, the same S3 node (key `<job id>.mp4`). One execution: HTTP Request's Batching, 1 item every 510 ms (≤ 120 a minute); one execution per row: Retry On Fail, 5 tries 5 s apart (n8n's maximums), since nothing paces executions across a worker.",
	);
	if (results.some((r) => r.large))
		emit(
			`- **items-large** (ours): the items shape's workflow at ${opt.thousandLargeJobs} prompts, on a stack of one worker (once, whatever the worker counts), the emulator's window shortened to ${fmtS(opt.thousandLargeWindowMs)}: where n8n itself (an execution's items and binary references, its Postgres rows) becomes the limit.`,
		);
	emit();
	emit(
		"The examples' Max Credits options are off in every run: Max Credits quotes each job before creating it (one request more per job), and the publish example's run budget of 40 credits is for its four prompts.",
	);
	emit();
	emit(
		`**How it is measured.** *Last MP4 after*: from the run's first request on its key to the moment the S3 server stored the last job's MP4 (its ObjectCreated event). *Floor* (bench/floor.mjs, as in parts 3 and 6): a perfect client starting at that first request, in the key's fixed windows aligned as the emulator counts them (each run is triggered as one of those windows starts, so that its first request comes a fraction of a second into a whole window, as the floor's does; bench/parts/thousand-figures.mjs msToWindowStart says why): the ${n} creates as fast as the windows allow, one list look every 5 s, each download as soon as a look shows its job finished (looks first, then creates, then downloads), requests taking no time. *Requests*: the emulator's journal of the run's key, by route (cap = \`GET /v1/capabilities\`, list = \`GET /v1/jobs\` pages, get = \`GET /v1/jobs/{id}\`); *key's budget used*: the requests the service counted against the key in each of its windows the run spanned (all but the reads of the public capabilities route, which it does not count, nor does the floor), the last (partial) one left out of the share. *Referee*: the emulator's records on the key, told apart as the soak does (tools/lib/soak/judge.mjs): a violation by a process alone, or a collision of processes sharing the key, each within the rule when judged alone; the process behind each request is found from its TCP port while it is open. *Jobs for prompts*: the jobs on the key against the run's prompts, and how many prompts got exactly one. *MP4s in the bucket*: objects \`generated/<job id>.mp4\` whose sha256 is the job's. *Peak RSS*: each n8n process with its task runner, sampled from /proc every 0.5 s; added = the peak minus its RSS when the run started. *Postgres growth*: \`pg_database_size\` and the tables' sizes (indexes and TOAST included) at the end minus at the start. *Worker slot-seconds*: from the workers' logs, each queue job from "Worker started execution" to "Worker finished execution" (a parked execution is two queue jobs; *parked* counts those). *Resumed after*: when the node after the Wait node started (its run data) against the time the Wait node was to resume (Create's \`estimatedReadyAt\`, or the baseline's fixed wait) and against the job's end. *Wall time*: from the trigger to the last sample with no execution of the run left (counted in n8n's database every second, not through its REST API, which grew the main's memory when polled).`,
	);
	emit();
	emit(mainTable(results));
	emit();
	for (const r of all.filter((x) => x.failed)) {
		emit(`**${r.name}** did not complete: ${r.failed}`);
		emit();
	}
	emit('By worker count (a fresh stack each; items-large below):');
	emit();
	emit(workerCountTable(results));
	emit();
	const large = largeTable(results);
	if (large) {
		emit(large);
		emit();
	}
	const chart = thousandChart(
		regularOf(results).map((r) => ({ ...r, name: runTag(r) })),
		n,
	);
	report.charts.push(chart);
	emit(`![${chart.alt}](images/${chart.file})`);
	emit();
	emit('What n8n paid:');
	emit();
	emit(costTable(results));
	emit();
	emit(
		"Requests while the creates went out (up to the last create) and after (`list+`: the job list's further pages):",
	);
	emit();
	emit(phaseTable(results));
	emit();
	emit('Requests by n8n process (a look = a first page of the job list or a job read):');
	emit();
	emit(processTable(results));
	emit();
	const estimates = results.filter(
		(r) => r.resumes?.estimates && Object.keys(r.resumes.estimates).length,
	);
	for (const r of estimates)
		emit(
			`Create's estimates in ${runTag(r)}: ${Object.entries(r.resumes.estimates)
				.map(([k, c]) => `${c} × "${k}"`)
				.join(', ')}.`,
		);
	if (estimates.length) emit();
	const goals = thousandGoals(all, { n });
	emit('Goals of this part (also in the Goals table at the end of a full run):');
	emit();
	emit(goalsTable(goals));
	emit();
	if (n < DOCUMENTED_JOBS) {
		const est = estimateMs(regularOf(results), { jobs: DOCUMENTED_JOBS, ...meta });
		emit(
			`At ${DOCUMENTED_JOBS} prompts these runs would take about ${minutes(est)}: each run's floor for ${DOCUMENTED_JOBS} prompts, stretched by its requests over the floor's here or plus its time beyond its floor here (the larger), plus its stack's start, its time before the first request and after the last MP4. An estimate: what grows with the number of jobs otherwise (n8n's own costs per execution, a read per resumed job) shows only in a larger run.`,
		);
		emit();
	}
	report.keep(sectionEnd('thousand'));
	report.goals.push(...goals);
	if (n >= DOCUMENTED_JOBS)
		report.blocks.push({
			doc: SCALE_DOC,
			name: SCALE_BLOCK,
			text: scaleBlock(results, { n, command: documentedCommand(opt, meta.specs), sessions }),
		});
}

/**
 * docs/scale.md's block of the documented run (between its markers): each shape of ours beside its baseline
 * at each worker count; the table by worker count when the run had more than one; the items-large run's
 * table when it ran. `command`: the run's command line (documentedCommand); `sessions`: where the runs came
 * from when some were reused (thousand-reuse.mjs sessionsText).
 */
export function scaleBlock(results, { n, command, sessions }) {
	const regular = regularOf(results);
	const rows = regular.map((r) => [
		rowLabel(r),
		fmtS(r.lastMp4Ms),
		fmtS(r.floor.floorMs),
		r.ratio.toFixed(2),
		perJob(r),
		r.r429,
		`${r.bucket.verified}/${n}`,
		r.slots.seconds.toFixed(0),
		Object.values(r.memory.perProcess)
			.map((m) => mib(m.peak))
			.join(', '),
	]);
	return [
		`Written by \`${command}\` (part 7 of [docs/benchmarks.md](benchmarks.md)); the last MP4 within ${RATE_GOAL} × the floor is ≥ 95 % of the key's rate.${sessions ? ` ${sessions}` : ''}`,
		'',
		table(
			[
				'Run',
				'Last MP4 after',
				'Floor',
				'÷ floor',
				'Requests per job',
				'429',
				'MP4s in the bucket',
				'Worker slot-seconds',
				'Peak RSS (main, workers)',
			],
			rows,
		),
		...(new Set(regular.map((r) => r.workers)).size > 1
			? ['', 'By worker count:', '', workerCountTable(regular)]
			: []),
		...(results.some((r) => r.large) ? ['', largeTable(results)] : []),
	].join('\n');
}
