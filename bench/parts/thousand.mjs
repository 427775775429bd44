// Part 7 of `npm run bench`: a thousand videos through n8n's queue mode on one key (issue 43). Each run on a
// fresh queue-mode stack (tools/lib/queue-stack.mjs: PostgreSQL, Redis, a main and workers, database binary
// mode), its own key, its own bucket on a local S3 server; N prompts, every MP4 uploaded by n8n's S3 node:
//   items             one execution of N items (Code → Create with Wait for Completion → S3), on a worker
//   executions        N executions (a webhook call per row → Create → n8n's Wait node until Create's
//                     estimatedReadyAt → Wait for Job → S3), spread over the workers
//   items-base, executions-base   the same shapes with n8n's own nodes (HTTP Request + Wait)
// each once per worker count of --thousand-workers (2,4,8: a fresh stack per run), and
//   items-large       the items shape at --thousand-large-jobs (10,000) on one worker, once, the emulator's
//                     window shortened to --thousand-large-window-ms (runPlan)
// Each against the perfect client's floor (bench/floor.mjs) on the same key's windows. The workflows:
// thousand-workflows.mjs; one run: thousand-measure.mjs; figures: thousand-figures.mjs; goals:
// thousand-goals.mjs; the section (and docs/scale.md's block from a run of 1,000): thousand-report.mjs; a part
// over several sessions (--thousand-reuse, records of --thousand-dump taken again): thousand-reuse.mjs. Not in
// `npm test`.
import fs from 'node:fs';
import path from 'node:path';

import { REPO } from '../../tools/lib/repo.mjs';
import { POLL_S } from '../context.mjs';
import { replaceBlock } from '../doc-section.mjs';
import { UsageError } from '../../tools/lib/cli.mjs';
import { anyValue, names, numbers } from '../options.mjs';
import { commitOf, loadAverage } from '../setup.mjs';
import { measureRun } from './thousand-measure.mjs';
import { DOCUMENTED_JOBS, SCALE_BLOCK, SCALE_DOC, emitThousand } from './thousand-report.mjs';
import { baseSourcesHash, reusable, sourcesHash, writeRecord } from './thousand-reuse.mjs';
import { RUNS } from './thousand-workflows.mjs';

export const name = 'thousand';
/** Its section of docs/benchmarks.md can be refreshed alone: `npm run bench -- --only=thousand --doc`. */
export const docSection = true;
/** How its rows in the closing Goals table start (doc-section.mjs). */
export const goalPrefix = 'A thousand videos';
/** It runs only when --only names it (an hour and more at 1,000 prompts); a full run keeps its section. */
export const optIn = true;

/** Each job's MP4 (the emulator pads its sample to this size): small, the part measures the key's rate. */
export const OUTPUT_BYTES = 4096;

export const options = [
	// prompts per run; the run documented in docs/benchmarks.md and docs/scale.md: --thousand-jobs=1000
	{
		flags: ['thousand-jobs'],
		key: 'thousandJobs',
		parse: Number,
		default: 200,
		help: 'part 7: prompts per run (1000 for the documented run, which also writes docs/scale.md)',
	},
	{
		flags: ['thousand-job-s'],
		key: 'thousandJobS',
		parse: Number,
		default: 30,
		help: "part 7: job duration in seconds (the items shape's)",
	},
	// the executions shape parks in n8n's Wait node, which parks only waits of 65 s or more
	{
		flags: ['thousand-park-job-s'],
		key: 'thousandParkJobS',
		parse: Number,
		default: 90,
		help: 'part 7: job duration in seconds of the executions shape (parked: at least 70)',
	},
	{
		flags: ['thousand-runs'],
		key: 'thousandRuns',
		parse: names,
		default: ['items', 'executions', 'items-base', 'executions-base'],
		help: 'part 7: the runs, of items, executions, items-base, executions-base (each once per worker count) and items-large (once, on one worker)',
	},
	{
		flags: ['thousand-limit'],
		key: 'thousandLimit',
		parse: Number,
		default: 120,
		help: "part 7: the key's requests a minute",
	},
	// the emulator's rate window (the service's is a minute); shorter only to try the part quickly
	{
		flags: ['thousand-window-ms'],
		key: 'thousandWindowMs',
		parse: Number,
		default: 60_000,
		help: "part 7: the emulator's rate window (shorter only to try the part quickly)",
	},
	// a list runs each run once per count, each on a fresh stack: --thousand-workers=2,4,8
	{
		flags: ['thousand-workers'],
		key: 'thousandWorkers',
		parse: numbers,
		default: [2],
		help: 'part 7: n8n workers, or a list of counts (each run once per count, a fresh stack each)',
	},
	// the items-large run (issue 48's 10,000 videos in one execution): its size and the emulator's window
	{
		flags: ['thousand-large-jobs'],
		key: 'thousandLargeJobs',
		parse: Number,
		default: 10_000,
		help: 'part 7: prompts of the items-large run (one execution, one worker)',
	},
	{
		flags: ['thousand-large-window-ms'],
		key: 'thousandLargeWindowMs',
		parse: Number,
		default: 6000,
		help: "part 7: the emulator's rate window during the items-large run (shortened: a minute's would take hours)",
	},
	// its jobs shortened with its window, or each look during creates meets that many times the running jobs
	{
		flags: ['thousand-large-job-s'],
		key: 'thousandLargeJobS',
		parse: (v) => (v === 'auto' ? v : Number(v)),
		default: 'auto',
		help: "part 7: job duration in seconds of the items-large run (auto: the items shape's, shortened as the window is, at least 2)",
	},
	// n8n's own default for `n8n worker`
	{
		flags: ['thousand-concurrency'],
		key: 'thousandConcurrency',
		parse: Number,
		default: 10,
		help: "part 7: each worker's concurrency",
	},
	{
		flags: ['thousand-sample-ms'],
		key: 'thousandSampleMs',
		parse: Number,
		default: 1000,
		help: 'part 7: how often executions, slots and memory are sampled',
	},
	// where each run's record goes as JSON (everything the section is computed from), with what it was
	// measured with (thousand-reuse.mjs): its settings, the package's sources hash, the commit, the date
	{
		flags: ['thousand-dump'],
		key: 'thousandDump',
		parse: (v) => path.resolve(v),
		fullIf: anyValue,
		value: 'DIR',
		help: "part 7: each run's record as JSON, with its settings, sources hash, commit and date",
	},
	// the documented run over several sessions: the same command each session with
	// --thousand-reuse=DIR --thousand-dump=DIR runs only what DIR does not already hold
	{
		flags: ['thousand-reuse'],
		key: 'thousandReuse',
		parse: (v) => path.resolve(v),
		fullIf: anyValue,
		value: 'DIR',
		help: "part 7: a run whose record in DIR (of --thousand-dump) has this run's settings and package sources (a run of n8n's own nodes: the publish example) and did not fail is taken from there, not run again (with --thousand-dump=DIR: a long part over several sessions)",
	},
];

export function check(opt) {
	const unknown = opt.thousandRuns.filter((r) => !RUNS[r]);
	if (unknown.length)
		throw new UsageError(`--thousand-runs: unknown ${unknown} (${Object.keys(RUNS)})`);
	if (!(Number.isInteger(opt.thousandJobs) && opt.thousandJobs >= 1))
		throw new UsageError('--thousand-jobs: a whole number of prompts, e.g. --thousand-jobs=1000');
	if (!(opt.thousandParkJobS >= 70))
		throw new UsageError('--thousand-park-job-s: at least 70 (n8n parks waits ≥ 65 s)');
	if (!(opt.thousandJobS >= 2)) throw new UsageError('--thousand-job-s: at least 2');
	if (!(opt.thousandLimit >= 1 && opt.thousandLimit <= 120))
		throw new UsageError('--thousand-limit: 1 to 120 (the emulator clamps a key to that)');
	if (!opt.thousandWorkers.every((w) => Number.isInteger(w) && w >= 2))
		throw new UsageError('--thousand-workers: whole numbers of at least 2, e.g. 2 or 2,4,8');
	if (!(Number.isInteger(opt.thousandLargeJobs) && opt.thousandLargeJobs >= 1))
		throw new UsageError('--thousand-large-jobs: a whole number of prompts, e.g. 10000');
	if (!(opt.thousandLargeWindowMs >= 1000))
		throw new UsageError('--thousand-large-window-ms: at least 1000');
	if (opt.thousandLargeJobS !== 'auto' && !(opt.thousandLargeJobS >= 2))
		throw new UsageError('--thousand-large-job-s: at least 2');
	// a folder not there yet is fine: the first session of a part over several has nothing to reuse
	if (opt.thousandReuse && fs.statSync(opt.thousandReuse, { throwIfNoEntry: false })?.isFile())
		throw new UsageError(`--thousand-reuse: ${opt.thousandReuse} is a file, not a folder`);
	// a documented run writes docs/scale.md's block at its end: find out now, not after hours, if it cannot
	if (opt.doc && opt.thousandJobs >= DOCUMENTED_JOBS)
		replaceBlock(fs.readFileSync(path.join(REPO, 'docs', SCALE_DOC), 'utf8'), SCALE_BLOCK, '');
}

/**
 * The runs in the order they run, each { name, workers, n, jobS, windowMs }: every run of --thousand-runs but
 * items-large at each worker count (the counts in turn, so a cut-short part has whole counts), then
 * items-large once, on one worker, at its own size and window.
 */
export function runPlan(opt) {
	const step = (name, workers) => {
		const large = RUNS[name].large;
		const jobS = RUNS[name].shape === 'executions' ? opt.thousandParkJobS : opt.thousandJobS;
		return {
			name,
			workers,
			n: large ? opt.thousandLargeJobs : opt.thousandJobs,
			jobS: large ? largeJobS(opt) : jobS,
			windowMs: large ? opt.thousandLargeWindowMs : opt.thousandWindowMs,
		};
	};
	const runs = opt.thousandRuns;
	return [
		...opt.thousandWorkers.flatMap((w) =>
			runs.filter((r) => !RUNS[r].large).map((r) => step(r, w)),
		),
		...runs.filter((r) => RUNS[r].large).map((r) => step(r, 1)),
	];
}

/**
 * The items-large run's job duration in seconds: --thousand-large-job-s, or the items shape's shortened as its
 * window is (30 s at a minute's window → 3 s at 6 s), at least 2. A shortened window with jobs of full length
 * would give each look during creates as many times the running jobs to read as the window was shortened.
 */
export const largeJobS = (opt) =>
	opt.thousandLargeJobS === 'auto'
		? Math.max(2, (opt.thousandJobS * opt.thousandLargeWindowMs) / opt.thousandWindowMs)
		: opt.thousandLargeJobS;

/** Where a run's record goes under --thousand-dump: a worker count in the name when the part has several. */
export const dumpName = (step, plan) =>
	new Set(plan.map((s) => s.workers)).size > 1
		? `thousand-${step.name}-w${step.workers}.json`
		: `thousand-${step.name}.json`;

/**
 * What a run's record must have been measured with to stand for `step` (thousand-reuse.mjs): the step's run,
 * workers, prompts, job duration and window, and the part's settings each run has.
 */
export const stepSettings = (step, opt) => ({
	name: step.name,
	workers: step.workers,
	n: step.n,
	jobS: step.jobS,
	windowMs: step.windowMs,
	limit: opt.thousandLimit,
	concurrency: opt.thousandConcurrency,
	sampleMs: opt.thousandSampleMs,
	pollMs: POLL_S * 1000,
	outputBytes: OUTPUT_BYTES,
});

/**
 * The runs of `plan` in turn, each as `measure(step)` returns its record (a failed run as its error), or taken
 * from a record of --thousand-reuse's folder of the same settings and `sources` (never a failed one);
 * `commit` and `session` (this session's start) go into each record measured here, with the settings,
 * `sources` and the time it started (`provenance`); --thousand-dump writes each record as it ends (a reused
 * one only into another folder than it came from). Returns the records in the plan's order, a reused one
 * with `reused` (its file).
 */
export async function runSteps({ opt, plan, log, measure, sources, baseSources, commit, session }) {
	const results = [];
	for (const step of plan) {
		const file = dumpName(step, plan);
		const settings = stepSettings(step, opt);
		const tag = `${step.name} (${step.workers} workers)`;
		const found = opt.thousandReuse
			? reusable(path.join(opt.thousandReuse, file), {
					settings,
					sources,
					baseSources,
					base: RUNS[step.name].side === 'base',
				})
			: {};
		if (found.record) {
			const from = path.join(opt.thousandReuse, file);
			const p = found.record.provenance;
			log(`  ${tag}: reused from ${from}, measured ${p.measuredAt} at commit ${p.commit}`);
			results.push({ ...found.record, reused: from });
			if (opt.thousandDump && opt.thousandDump !== opt.thousandReuse)
				writeRecord(opt.thousandDump, file, found.record);
			continue;
		}
		if (found.why)
			log(`  ${tag}: not reused from ${path.join(opt.thousandReuse, file)}: ${found.why}`);
		const measuredAt = new Date().toISOString();
		// a run that fails is reported as such; the others still run (a 1,000-job part takes hours)
		const r = await measure(step).catch((error) => {
			log(`  ${tag} failed: ${error.stack ?? error}`);
			return { ...step, ...RUNS[step.name], failed: String(error.message).split('\n')[0] };
		});
		const record = {
			...r,
			provenance: { settings, sources, baseSources, commit, session, measuredAt },
		};
		results.push(record);
		if (opt.thousandDump) writeRecord(opt.thousandDump, file, record);
	}
	return results;
}

/**
 * Before the bench's own n8n starts, nothing but what this session measures: the package's sources hash and
 * commit, taken once, near the packing of the tarball every run installs. Each run makes its key and stack
 * when it runs.
 */
export function prepare() {
	return { sources: sourcesHash(), baseSources: baseSourcesHash(), commit: commitOf(REPO) };
}

export async function run(ctx, prepared) {
	const { opt, emu, log } = ctx;
	const t0 = Date.now();
	const meta = {
		t0,
		specs: options,
		loadAtStart: loadAverage(),
		outputBytes: OUTPUT_BYTES,
		limit: opt.thousandLimit,
		windowMs: opt.thousandWindowMs,
		pollMs: POLL_S * 1000,
	};
	const plan = runPlan(opt);
	log(
		`part 7: a thousand videos, ${opt.thousandJobs} prompts per run, runs ${plan.map((s) => `${s.name} × ${s.workers}`).join(', ')}`,
	);
	const settingsBefore = emu.control.settings();
	emu.control.setOutputBytes(OUTPUT_BYTES);
	let results;
	try {
		results = await runSteps({
			opt,
			plan,
			log,
			sources: prepared.sources,
			baseSources: prepared.baseSources,
			commit: prepared.commit,
			session: new Date(t0).toISOString(),
			measure: async (step) => {
				emu.control.setSettings({ rateWindowMs: step.windowMs });
				return measureRun(ctx, step.name, {
					...step,
					limit: opt.thousandLimit,
					pollMs: POLL_S * 1000,
					concurrency: opt.thousandConcurrency,
					sampleMs: opt.thousandSampleMs,
					log,
				});
			},
		});
		for (const r of results) meta.postgres ??= r.postgres;
	} finally {
		emu.control.setSettings({ rateWindowMs: settingsBefore.rateWindowMs });
		emu.control.setJobTiming({ queuedMs: 1000, runningMs: 2000 }); // the bench's default
	}
	emitThousand(ctx, results, {
		...meta,
		sources: prepared.sources,
		baseSources: prepared.baseSources,
	});
}
