// The section, goals and finding of part 3 (batches, batch.mjs) from its measured runs.

import { sectionEnd, sectionStart } from '../doc-section.mjs';
import { partRunNote } from '../setup.mjs';
import { DOWNLOAD_CONCURRENCY } from '../../nodes/shared/jobs/run.ts';
import { POLL_S } from '../context.mjs';
import { routeText } from '../journal.mjs';
import { fmtS } from '../measure.mjs';
import { batchChart } from '../charts.mjs';
import { ratio2, table } from '../report.mjs';

const floorLastCreate = (floor) => fmtS(floor.lastCreateAt - (floor.finishAt - floor.floorMs));

/** meta: { t0, loadAtStart, specs } (the part's options), for the line that says how the section was run. */
export function emitBatch(ctx, results, meta) {
	ctx.report.keep(sectionStart('batch'));
	emitSection(ctx, results, meta);
	ctx.report.keep(sectionEnd('batch'));
	const ours = results.filter((x) => x.side === 'ours');
	const prevR = results.filter((x) => x.side === 'prev');
	ctx.report.goals.push(...batchGoals(ctx.opt, ours, prevR));
	if (ours.length && prevR.length) ctx.report.findings.push(batchFinding(ours, prevR));
}

function emitSection(ctx, results, meta) {
	const { opt, emit, previous } = ctx;
	const prevName = previous ? previous.commit.slice(0, 7) : 'n/a';
	const label = (side) =>
		side === 'ours' ? 'ours (list poll)' : `previous ${prevName} (per-job polls)`;
	emit(
		`## 3. Batch: ${opt.batchSizes.join(', ')} jobs created, waited for and downloaded by one node, from seconds ${opt.batchPhases.join(', ')} of the minute`,
	);
	emit();
	emit(partRunNote(meta, opt));
	emit();
	emit(
		`One Job node **Create** (text to video, Wait for Completion with its defaults: ${POLL_S} s poll, download on) fed N prompts, then Read/Write Files writes each MP4 to disk. Jobs last ${opt.batchJobS} s on the emulator (queued 1 s, then running), outputs 4 KiB. Each run uses a fresh key of 60 requests/minute in its own account, and starts near second ${opt.batchPhases.join(', ')} of the minute for ours, near ${opt.batchPhases[Math.floor(opt.batchPhases.length / 2)]} for the previous version: a Wait node after the trigger waits for that second of the clock minute (the emulator's windows are fixed clock minutes, so the phase decides how much of the first window a batch finds). **Wall** = from the run's first request to the answer of its last download (emulator journal). **Floor** = the perfect client under the same fixed one-minute windows, starting at the same second of the minute as the measured run (bench/floor.mjs): 1 capabilities (public, not counted against the key) + N creates as fast as the windows allow, one list poll every ${POLL_S} s while jobs are unfinished, each download as soon as a list poll shows its job done, polls first, then creates, then downloads; requests take no time; floor = its last download. Ours follows a batch with one \`GET /v1/jobs?limit=100\` per poll interval and starts downloads as soon as a job is seen finished (${DOWNLOAD_CONCURRENCY} at a time); the previous version (${prevName}, built and packed by the bench, installed into a separate n8n instance) creates every job, then follows them 5 at a time with one \`GET /v1/jobs/{id}\` per job per interval. Every MP4 on disk is checked against its job's \`output.sha256\` on the emulator. Violations = the emulator referee's records for the run's key.`,
	);
	emit();
	emit(
		table(
			[
				'N',
				'Version',
				'Wall',
				'Floor',
				'Wall / floor',
				'Requests by route',
				'Floor requests',
				'429',
				'Violations',
				'MP4s verified',
				'Start (s into minute)',
				'Requests per window',
				'Last create',
				'Last job ended',
				'Last job seen',
				'Detection: longest, median, jobs ≤ 5 s',
				'Floor: longest detection',
				'Floor: last create',
				'Load (1 min) at start',
				'Run',
			],
			results.map((x) => [
				x.n,
				label(x.side),
				fmtS(x.wallMs),
				fmtS(x.floor?.floorMs),
				ratio2(x.wallMs, x.floor?.floorMs),
				routeText(x.c),
				x.floor
					? `${x.floor.requests.creates} create + ${x.floor.requests.polls} list + ${x.floor.requests.downloads} download`
					: 'n/a',
				x.r429,
				x.violations ? JSON.stringify(x.vCounts) : 0,
				`${x.verified}/${x.n}`,
				x.phaseS,
				x.windows.join(' / '),
				fmtS(x.lastCreateMs),
				fmtS(x.lastEndMs),
				fmtS(x.seenLastMs),
				`${fmtS(x.maxDetectionMs)}, ${fmtS(x.medianDetectionMs)}, ${x.withinInterval}/${x.created}`,
				x.floor ? fmtS(x.floor.maxDetectionMs) : 'n/a',
				x.floor ? floorLastCreate(x.floor) : 'n/a',
				x.load,
				x.ok
					? 'ok'
					: `FAILED${x.r.ok ? '' : ` (${(x.r.error?.message ?? 'no result').slice(0, 120)})`}`,
			]),
		),
	);
	emit();
	emit(
		`"Last create", "Last job ended", "Last job seen" (the first read after that end that could show it) are times from the run's first request; the rest of the wall after "Last job seen" is the download tail. "Detection" = for each job, from its end (\`updatedAt\`) to the first read that could show it (a list poll, or a GET of that job): the longest over the batch, and how many jobs were seen within one poll interval (${POLL_S} s); the floor's is the same for the perfect client, whose polls also wait when a window has no budget left.`,
	);
	emit();
	// the picture: the largest batch of ours (the first of its phases) against its floor
	const big = results
		.filter((x) => x.side === 'ours' && x.floor && x.downloadsMs.length)
		.sort((a, b) => b.n - a.n)[0];
	if (big) {
		const chart = batchChart(big, 'ours');
		ctx.report.charts.push(chart);
		emit(`![${chart.alt}](images/${chart.file})`);
		emit();
	}
}

/** Why a batch of ours missed "wall ≤ 1.05 × floor, 0 × 429, 0 violations, every MP4 verified". */
function wallMiss(x) {
	const why = [];
	if (!x.ok)
		why.push(
			`the run was not clean (${x.problems.slice(0, 3).join('; ') || (x.r.error?.message ?? 'see log')})`,
		);
	if (x.ratio > 1.05 && x.lastCreateMs > 1000)
		why.push(
			`the ${x.n} creates took ${fmtS(x.lastCreateMs)} (the floor's requests take no time; n8n's request latency on this machine, load ${x.load} at the start), so the last jobs ended that much later than the floor's`,
		);
	if (x.ratio > 1.05)
		why.push(
			`wall ${fmtS(x.wallMs)} vs floor ${fmtS(x.floor?.floorMs)}: last create at ${fmtS(x.lastCreateMs)} (floor ${floorLastCreate(x.floor)}), last job seen at ${fmtS(x.seenLastMs)}, requests per window ${x.windows.join('/')} (${routeText(x.c)})`,
		);
	if (x.r429) why.push(`${x.r429} × 429`);
	if (x.violations) why.push(`violations ${JSON.stringify(x.vCounts)}`);
	if (x.verified !== x.n) why.push(`${x.verified}/${x.n} MP4s verified`);
	return why.join('; ');
}

/** Why a batch saw some job later than one poll interval after its end, from the run's own figures. */
function detectionMiss(x, limitMs) {
	const floorMax = x.floor?.maxDetectionMs ?? NaN;
	const full = x.windows.filter((w) => w >= 60).length;
	const budget = `${full} of its ${x.windows.length} windows were used up (requests per window ${x.windows.join('/')}, the public capabilities request included)`;
	const cause =
		'between looks, creates and the downloads of jobs already seen spend the budget; the pacer keeps the last request of a window for a look that is due (nodes/shared/jobs/watch.ts), but a window already spent on creates has none left, and the look waits for the next window';
	if (floorMax > limitMs) {
		const later = x.maxDetectionMs - floorMax;
		const than =
			later < 50 ? 'Ours is no later than that' : `Ours is ${fmtS(later)} later than that`;
		return `Partly the key's budget: the perfect client under the same windows also sees a job ${fmtS(floorMax)} after its end. ${than}: ${budget}; ${cause}. No client under these windows can look sooner without holding back creates, which would lengthen the batch.`;
	}
	return `Not the key's budget as such (the perfect client sees every job within ${fmtS(floorMax)}): ${budget}; ${cause}.`;
}

function batchGoals(opt, ours, prevR) {
	const goals = [];
	for (const x of ours) {
		const p = prevR.find((y) => y.n === x.n);
		const met = x.ok && x.ratio <= 1.05 && x.r429 === 0 && x.violations === 0 && x.verified === x.n;
		goals.push({
			goal: `Batch of ${x.n} from second ${x.phaseS} (${opt.batchJobS} s jobs, 60 req/min): wall ≤ 1.05 × floor, 0 × 429, 0 violations, every MP4 verified`,
			result: `wall ${fmtS(x.wallMs)} / floor ${fmtS(x.floor?.floorMs)} = ${ratio2(x.wallMs, x.floor?.floorMs)}; ${x.r429} × 429; ${x.violations} violations; ${x.verified}/${x.n} MP4s${p ? ` (previous version: ${ratio2(p.wallMs, p.floor?.floorMs)}, ${p.r429} × 429, ${p.violations} violations, ${p.verified}/${p.n})` : ''}`,
			met,
			note: met ? '' : wallMiss(x),
		});
	}
	for (const x of ours) {
		const limitMs = POLL_S * 1000;
		const met = x.withinInterval === x.created && x.created === x.n;
		goals.push({
			goal: `Batch of ${x.n} from second ${x.phaseS}: every job's completion detected ≤ one poll interval (${POLL_S} s) after it happens`,
			result: `longest ${fmtS(x.maxDetectionMs)}, median ${fmtS(x.medianDetectionMs)}; ${x.withinInterval}/${x.n} jobs within ${POLL_S} s (floor's longest: ${fmtS(x.floor?.maxDetectionMs)})`,
			met,
			note: met ? '' : detectionMiss(x, limitMs),
		});
	}
	return goals;
}

function batchFinding(ours, prevR) {
	return `**Batches (part 3): list polling against per-job polling.** ${ours
		.map((x) => {
			const p = prevR.find((y) => y.n === x.n);
			return `N = ${x.n} from second ${x.phaseS}: ours ${x.total} requests in ${fmtS(x.wallMs)}${p ? `, previous ${p.total} in ${fmtS(p.wallMs)} (${p.c.get} GET /jobs/{id})` : ''}`;
		})
		.join('; ')}.`;
}
