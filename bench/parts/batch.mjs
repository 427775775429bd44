// Part 3 of `npm run bench`: batches. One Create node (Wait for Completion, download on) fed N prompts of
// jobs lasting --batch-job-s, on a fresh 60 requests/minute key per run, started at chosen seconds of the
// clock minute; ours and the previous version of the package, against the floor of a perfect client under
// the same windows (bench/floor.mjs). Measured here; reported by batch-report.mjs.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { nodeOutput } from '../../tools/lib/run-data.mjs';
import { POLL_S } from '../context.mjs';
import { simulateFloor } from '../floor.mjs';
import { byRoute, kindCounts, perWindow, routeText } from '../journal.mjs';
import { fmtS, median } from '../measure.mjs';
import { UsageError } from '../../tools/lib/cli.mjs';
import { anyValue, names, numbers } from '../options.mjs';
import { ratio2 } from '../report.mjs';
import { loadAverage } from '../setup.mjs';
import * as W from '../workflows.mjs';
import { emitBatch } from './batch-report.mjs';

export const name = 'batch';
/** Its section of docs/benchmarks.md can be refreshed alone: `npm run bench -- --only=batch --doc`. */
export const docSection = true;
/** How its rows in the closing Goals table and its finding start (doc-section.mjs). */
export const goalPrefix = 'Batch of ';
export const findingPrefix = '**Batches (part 3)';

export const options = [
	{
		flags: ['batch-sizes'],
		key: 'batchSizes',
		parse: numbers,
		default: [10, 50, 100],
		help: 'part 3: batch sizes',
	},
	{
		flags: ['batch-job-s'],
		key: 'batchJobS',
		parse: Number,
		default: 30,
		help: 'part 3: job duration in seconds',
	},
	{
		flags: ['batch-sides'],
		key: 'batchSides',
		parse: names,
		default: ['ours', 'prev'],
		fullIf: (sides) => sides.length === 2,
		help: 'part 3: ours, prev (the previous version) or both',
	},
	{
		flags: ['batch-phases', 'batch-phase'],
		key: 'batchPhases',
		parse: numbers,
		default: [5, 30, 55],
		help: 'part 3: ours starts each batch about S s into the clock minute, per S',
	},
	{
		flags: ['dump'],
		key: 'dump',
		parse: (v) => path.resolve(v),
		fullIf: anyValue,
		value: 'DIR',
		help: 'part 3: its journal, jobs and probe data as JSON',
	},
];

export function check(opt) {
	if (new Set(opt.batchSizes).size !== opt.batchSizes.length)
		throw new UsageError('--batch-sizes: each size once');
}

export const needsPrevious = (opt) => opt.batchSides.includes('prev');

/** The phase (second of the minute) the previous version starts at: the middle one of ours. */
const prevPhaseOf = (opt) => opt.batchPhases[Math.floor(opt.batchPhases.length / 2)];

/** A fresh 60 requests/minute key per run, each in its own account (its own job list), and its workflow. */
export function prepare({ opt, emu, files, key, keys, ourCred }) {
	const batchRuns = []; // { n, side, phase, keyName, account, cred, wfId, outDir }
	for (const n of opt.batchSizes) {
		for (const side of opt.batchSides) {
			for (const phase of side === 'ours' ? opt.batchPhases : [prevPhaseOf(opt)]) {
				const tag = `${side}_${n}_p${phase}`;
				const account = `acct_bench_batch_${tag}`;
				const keyName = `batch_${tag}`;
				key(keyName, { requestsPerMinute: 60, accountId: account });
				emu.control.grantCredits(n * 8 + 100, account);
				const cred = `batch${n}p${phase}`;
				ourCred(cred, keys[keyName].secret, side === 'ours' ? 'cur' : 'prev');
				const outDir = path.join(files, `batch-${tag}`);
				fs.mkdirSync(outDir, { recursive: true });
				const wfId = `benchBatch${n}p${phase}`;
				batchRuns.push({ n, side, phase, keyName, account, cred, wfId, outDir });
			}
		}
	}
	const wf = (b) => W.batchWait(b.wfId, b.n, b.cred, b.outDir, b.phase);
	return {
		batchRuns,
		workflows: batchRuns.filter((b) => b.side === 'ours').map(wf),
		prevWorkflows: batchRuns.filter((b) => b.side !== 'ours').map(wf),
	};
}

export async function run(ctx, { batchRuns }) {
	const { opt, emu } = ctx;
	ctx.log(
		`part 3: batches of ${opt.batchSizes.join(', ')} jobs of ${opt.batchJobS} s, 60 requests/minute`,
	);
	emu.control.setJobTiming({ queuedMs: 1000, runningMs: opt.batchJobS * 1000 - 1000 });
	emu.control.setOutputBytes(4096);
	const meta = { t0: Date.now(), loadAtStart: loadAverage(), specs: options };
	const results = [];
	for (const b of batchRuns) results.push(await measureBatch(ctx, b));
	emitBatch(ctx, results, meta);
}

const sha256 = (buf) => createHash('sha256').update(buf).digest('hex');
const load1 = () => os.loadavg()[0].toFixed(2);

/** Every MP4 the workflow wrote, checked against its job's output.sha256. */
function verifyOutputs(jobs, outDir) {
	let verified = 0;
	const problems = [];
	for (const job of jobs) {
		const file = path.join(outDir, `${job.id}.mp4`);
		if (job.state !== 'succeeded') {
			problems.push(`${job.id} ${job.state}`);
			continue;
		}
		if (!fs.existsSync(file)) {
			problems.push(`${job.id}: no file`);
			continue;
		}
		if (sha256(fs.readFileSync(file)) === job.outputSha256) verified++;
		else problems.push(`${job.id}: sha256 differs`);
	}
	return { verified, problems };
}

/** When the run could first see its jobs finished: the last job, and each job's delay after its end. */
function detectionsOf(j, jobs) {
	const lastEnd = Math.max(...jobs.map((x) => x.updatedAt));
	// the first read after the last job ended that could show it: a list poll or a GET of that job
	const lastJob = jobs.reduce((a, x) => (x.updatedAt > (a?.updatedAt ?? -1) ? x : a), undefined);
	const seenLast = j.find(
		(e) =>
			e.at >= lastEnd &&
			e.status === 200 &&
			((e.method === 'GET' && e.path === '/v1/jobs') || e.path === `/v1/jobs/${lastJob?.id}`),
	);
	// per job: the first read that could show it finished (a list poll, or a GET of that job)
	const reads = j.filter(
		(e) => e.status === 200 && e.method === 'GET' && /^\/v1\/jobs(\/[^/]+)?$/.test(e.path),
	);
	const detections = jobs.map((job) => {
		const read = reads.find(
			(e) => e.at >= job.updatedAt && (e.path === '/v1/jobs' || e.path === `/v1/jobs/${job.id}`),
		);
		return read ? read.at - job.updatedAt : NaN;
	});
	return { lastEnd, seenLast, detections };
}

/** One batch run on its instance: the journal of its key against the floor, its jobs and its files. */
async function measureBatch(ctx, b) {
	const { opt, emu, keys, cur, prev, failText, log } = ctx;
	const key = keys[b.keyName];
	const loadAtStart = load1();
	emu.control.clearJournal();
	const r = await ctx.run(
		b.wfId,
		{ timeoutMs: 45 * 60_000, sampleMs: 250 },
		b.side === 'ours' ? cur : prev,
	);
	const j = ctx.journalOf(key.keyId);
	const c = byRoute(j);
	const downloads = j.filter((e) => /^\/v1\/jobs\/[^/]+\/output$/.test(e.path) && e.status === 200);
	const first = j[0];
	const lastDl = downloads[downloads.length - 1];
	const wallMs = first && lastDl ? lastDl.at - first.at : NaN;
	const jobs = emu.control
		.snapshot()
		.jobs.filter((x) => x.keyId === key.keyId)
		.sort((a, b2) => a.createdAt - b2.createdAt);
	const { verified, problems } = verifyOutputs(jobs, b.outDir);
	const floor = first
		? simulateFloor({
				t0: first.at,
				n: b.n,
				jobMs: opt.batchJobS * 1000,
				limit: 60,
				pollMs: POLL_S * 1000,
			})
		: undefined;
	const creates = j.filter((e) => e.method === 'POST' && e.path === '/v1/jobs');
	const lastCreate = creates[creates.length - 1];
	const { lastEnd, seenLast, detections } = detectionsOf(j, jobs);
	const outItems = nodeOutput(r.result, 'Create') ?? [];
	const v = ctx.violationsOf(key.keyId);
	const vCounts = kindCounts(v);
	const rec = {
		...b,
		r,
		c,
		total: j.length,
		r429: j.filter((e) => e.status === 429).length,
		violations: v.length,
		vCounts,
		created: jobs.length,
		verified,
		problems,
		outItems: outItems.filter((x) => x && !x.error).length,
		wallMs,
		// each MP4's download answer and each job's end, from the run's first request (the chart of the batch)
		downloadsMs: first ? downloads.map((e) => e.at - first.at) : [],
		endsMs: first ? jobs.map((x) => x.updatedAt - first.at).sort((a, b2) => a - b2) : [],
		floor,
		ratio: floor ? wallMs / floor.floorMs : NaN,
		phaseS: first ? ((first.at % 60_000) / 1000).toFixed(1) : 'n/a',
		lastCreateMs: lastCreate && first ? lastCreate.at - first.at : NaN,
		lastEndMs: first ? lastEnd - first.at : NaN,
		seenLastMs: seenLast && first ? seenLast.at - first.at : NaN,
		maxDetectionMs: detections.length ? Math.max(...detections) : NaN,
		medianDetectionMs: detections.length ? median(detections) : NaN,
		withinInterval: detections.filter((d) => d <= POLL_S * 1000).length,
		windows: perWindow(j),
		load: loadAtStart,
		ok: r.ok && jobs.length === b.n && verified === b.n && downloads.length >= b.n,
	};
	if (!rec.ok)
		log(
			`  batch ${b.side} ${b.n} not clean: ${failText(r)} created ${jobs.length}, verified ${verified}; ${problems.slice(0, 5).join('; ')}`,
		);
	log(
		`  ${b.side} N=${b.n} phase ${rec.phaseS} s: wall ${fmtS(wallMs)} floor ${fmtS(floor?.floorMs)} ratio ${ratio2(wallMs, floor?.floorMs)}; ${routeText(c)}; 429 ${rec.r429}; violations ${JSON.stringify(vCounts)}; windows ${rec.windows.join('/')}`,
	);
	if (opt.dump) {
		fs.mkdirSync(opt.dump, { recursive: true });
		fs.writeFileSync(
			path.join(opt.dump, `batch-${b.side}-${b.n}-p${b.phase}.json`),
			JSON.stringify({ journal: j, jobs, floor, stderr: r.stderr.slice(-20000) }, null, 1),
		);
	}
	return rec;
}
