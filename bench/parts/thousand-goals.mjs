// The goals of part 7 (a thousand videos) over its runs' records (thousand-measure.mjs), as pure functions
// (test/tools/bench-thousand.test.mjs): ours judged at every worker count, each goal one verdict naming the
// runs that miss it, and why a run missed the rate goal in its own figures. The figures they read:
// thousand-figures.mjs.
import { kindCounts } from '../journal.mjs';
import { fmtS, MiB } from '../measure.mjs';
import { signed } from '../report.mjs';
import {
	LARGE_REQUESTS_GOAL,
	MEMORY_SLACK_BYTES,
	OTHER_GOAL,
	RATE_GOAL,
	keyWindows,
	kindsText,
	largeFigures,
	memoryVerdict,
	otherShare,
	runTag,
} from './thousand-figures.mjs';

const pct = (x) => `${(x * 100).toFixed(1)} %`;

/**
 * Why a run missed the rate goal, in its own figures: requests beyond the floor's (and which routes), when
 * its last job was created and ended against the floor, the key's budget it left unused in the windows it
 * spanned.
 */
export function rateWhy(r) {
	const f = r.floor.requests;
	const floorTotal = f.capabilities + f.creates + f.polls + f.downloads;
	const extra = r.journalCount - floorTotal;
	const parts = [];
	const routes = r.route;
	// the key's budget counts every request but the reads of the public capabilities route (nor does the floor)
	const counted = r.journalCount - (routes.capabilities ?? 0);
	const floorCounted = f.creates + f.polls + f.downloads;
	const beyond = [
		routes.capabilities > f.capabilities &&
			`${routes.capabilities - f.capabilities} capabilities reads more`,
		routes.quote && `${routes.quote} quotes`,
		routes.get && `${routes.get} job reads`,
		routes.list > f.polls &&
			`${routes.list - f.polls} list pages more than the floor's ${f.polls} looks`,
		routes.create > f.creates && `${routes.create - f.creates} creates more`,
		routes.download > f.downloads && `${routes.download - f.downloads} downloads more`,
		r.r429 && `${r.r429} answered 429`,
	].filter(Boolean);
	if (extra > 0)
		parts.push(
			`${r.journalCount} requests against the floor's ${floorTotal} (+${extra}: ${beyond.join(', ') || 'other routes'}), about ${fmtS((Math.max(0, counted - floorCounted) / r.limit) * r.windowMs)} of the key's budget (the capabilities reads cost it none)`,
		);
	const p = r.phases;
	const pagesWhileCreating = (p?.creating.list ?? 0) + (p?.creating['list+'] ?? 0);
	if (pagesWhileCreating)
		parts.push(
			`${pagesWhileCreating} job list pages (${p.creating['list+'] ?? 0} of them further pages) went out with the ${p.creating.create ?? 0} creates, before the last one`,
		);
	const after = r.resumes?.afterEnd;
	if (after && r.slots?.parked)
		parts.push(
			`the parked executions resumed a median ${fmtS(after.median)} (at most ${fmtS(after.max)}) after their job ended (${Object.entries(
				r.resumes.estimates ?? {},
			)
				.map(([k, c]) => `${c} × Create's estimate ${k.split(':')[0]}`)
				.join(', ')})`,
		);
	const t = r.timeline;
	if (t)
		parts.push(
			`the last job created ${fmtS(t.lastCreate)} after the first request (the floor's ${fmtS(r.floor.lastCreateAt - r.floor.t0)}), the last job ended at ${fmtS(t.lastEnd)}, the last download answered at ${fmtS(t.lastDownload)} (the floor's ${fmtS(r.floor.floorMs)}), the last MP4 stored ${fmtS(r.lastMp4Ms - t.lastDownload)} after it`,
		);
	// the key's budget as a bound: the requests it counted need whole windows, and the last download cannot
	// leave before the last of them opens
	const need = Math.ceil(counted / r.limit);
	const floorNeed = Math.ceil(floorCounted / r.limit);
	if (need > floorNeed && r.floor.t0 !== undefined) {
		const opens =
			Math.floor(r.floor.t0 / r.windowMs) * r.windowMs + (need - 1) * r.windowMs - r.floor.t0;
		parts.push(
			`the key counted ${counted} requests (all but ${routes.capabilities ?? 0} reads of the public capabilities): ${need} windows of ${r.limit} at the least, where the floor's ${floorCounted} fit in ${floorNeed}, so the last download leaves no sooner than window ${need} opens, ${fmtS(opens)} after the first request, ${(opens / r.floor.floorMs).toFixed(2)} × the floor`,
		);
	}
	const pagesBy = {};
	for (const [, route, , process] of r.trace ?? [])
		if (route === 'list' || route === 'list+') pagesBy[process] = (pagesBy[process] ?? 0) + 1;
	if (routes.list > f.polls && Object.keys(pagesBy).length > 1)
		parts.push(
			`job list pages by process: ${Object.entries(pagesBy)
				.sort(([a], [b]) => a.localeCompare(b, 'en', { numeric: true }))
				.map(([process, pages]) => `${process} ${pages}`)
				.join(', ')}`,
		);
	const w = keyWindows(r);
	if (w.full)
		parts.push(
			`${w.unused} requests of the key's budget left unused in ${w.full} full windows (${pct(w.usedShare)} used; requests the key counted per window ${w.perWindow.join('/')})`,
		);
	return parts.join('; ');
}

const allShapes = (results, side) => results.filter((r) => r.side === side);
const tagged = (runs, text) => runs.map((r) => `${runTag(r)}: ${text(r)}`).join('; ');

/**
 * The part's goals over its runs (ours judged, at every worker count; the baselines are what n8n's own nodes
 * cost): { goal, result, met, note } each, a failing run named in the note. `n`: prompts per run (the
 * items-large run has its own, `r.n`).
 */
export function thousandGoals(results, { n }) {
	const ours = allShapes(results, 'ours').filter((r) => !r.failed);
	const failed = allShapes(results, 'ours').filter((r) => r.failed);
	const regular = ours.filter((r) => !r.large);
	const goals = [];
	const slow = regular.filter((r) => !(r.ratio <= RATE_GOAL));
	goals.push({
		goal: `A thousand videos (${n} prompts, queue mode): every shape at every worker count at ≥ 95 % of the key's rate (last MP4 ≤ ${RATE_GOAL} × the floor)`,
		result: tagged(
			regular,
			(r) => `${fmtS(r.lastMp4Ms)} / floor ${fmtS(r.floor.floorMs)} = ${r.ratio.toFixed(2)}`,
		),
		met: regular.length > 0 && slow.length === 0,
		note: slow.map((r) => `${runTag(r)}: ${rateWhy(r)}.`).join(' '),
	});
	const alone = ours.filter((r) => r.referee.alone.length > 0);
	goals.push({
		goal: `A thousand videos: 0 referee violations by a process alone`,
		result: tagged(
			ours,
			(r) =>
				`${r.referee.alone.length} by a process alone, ${r.referee.shared.length} collisions of processes sharing the key${r.referee.shared.length ? ` (${kindsText(r.referee.shared)})` : ''}`,
		),
		met: ours.length > 0 && alone.length === 0,
		note: alone
			.map(
				(r) =>
					`${runTag(r)}: ${JSON.stringify(kindCounts(r.referee.alone))} by ${[...new Set(r.referee.alone.map((v) => v.process))].join(', ')}.`,
			)
			.join(' '),
	});
	const notOnce = ours.filter(
		(r) => r.created.once !== r.created.prompts || r.created.foreign || r.created.jobs !== r.n,
	);
	goals.push({
		goal: `A thousand videos: each prompt's job created exactly once`,
		result: tagged(
			ours,
			(r) => `${r.created.jobs} jobs for ${r.created.prompts} prompts, ${r.created.once} once`,
		),
		met: ours.length > 0 && notOnce.length === 0,
		note: notOnce
			.map(
				(r) =>
					`${runTag(r)}: ${r.created.none.length} prompts without a job, ${r.created.more.length} with more than one, ${r.created.foreign} jobs of no prompt.`,
			)
			.join(' '),
	});
	const notAll = ours.filter(
		(r) => r.bucket.verified !== r.n || r.bucket.extra.length || r.bucket.badSha.length,
	);
	// each run's own size (an items-large run has its own; it may be the only run)
	const sizes = [...new Set((ours.length ? ours : [{ n }]).map((r) => r.n))];
	goals.push({
		goal: `A thousand videos: every job's MP4 in the bucket with its sha256 (${sizes.map((k) => `${k}/${k}`).join(' or ')} a run)`,
		result: tagged(
			ours,
			(r) =>
				`${r.bucket.verified}/${r.n}${r.bucket.badSha.length ? `, ${r.bucket.badSha.length} with another sha256` : ''}${r.bucket.extra.length ? `, ${r.bucket.extra.length} objects of no job` : ''}`,
		),
		met: ours.length > 0 && notAll.length === 0,
		note: notAll
			.map(
				(r) =>
					`${runTag(r)}: ${r.bucket.missing.length} missing; executions ${JSON.stringify(r.executions.status)}${r.timedOut ? '; the run timed out' : ''}.`,
			)
			.join(' '),
	});
	const verdicts = regular.map((r) => {
		const base = results.find(
			(b) => b.side === 'base' && b.shape === r.shape && b.workers === r.workers,
		);
		return { r, base, v: base && !base.failed ? memoryVerdict(r.memory, base.memory) : undefined };
	});
	const mib = (b) => (Number.isFinite(b) ? `${(b / MiB).toFixed(1)} MiB` : 'n/a');
	goals.push({
		goal: `A thousand videos: no n8n process's memory growing beyond what n8n's own nodes cost on the same shape (RSS added during the run, main and the most-added worker, ≤ the baseline's + ${MEMORY_SLACK_BYTES / MiB} MiB)`,
		result: verdicts
			.map(({ r, v }) =>
				v
					? `${runTag(r)}: ${v.rows.map((x) => `${x.process} ${signed(x.ours)} vs ${signed(x.base)}`).join(', ')}`
					: `${runTag(r)}: no baseline run`,
			)
			.join('; '),
		met: verdicts.length > 0 && verdicts.every(({ v }) => v?.met),
		note: verdicts
			.filter(({ v }) => v && !v.met)
			.map(
				({ r, v }) =>
					`${runTag(r)}: ${v.rows
						.filter((x) => !(x.over <= 0))
						.map((x) => `${x.process} ${mib(x.over)} above`)
						.join(', ')}.`,
			)
			.join(' '),
	});
	const withExecutions = allShapes(results, 'ours').some((r) => r.shape === 'executions');
	goals.push(...keyGoals(ours, regular, withExecutions));
	const large = allShapes(results, 'ours').filter((r) => r.large);
	if (large.length)
		goals.push(
			largeGoal(
				ours.filter((r) => r.large),
				large[0],
			),
		);
	// a run of ours that did not complete misses every goal
	if (failed.length)
		for (const g of goals) {
			g.met = false;
			g.note =
				`${failed.map((r) => `${runTag(r)} did not complete: ${r.failed}.`).join(' ')} ${g.note}`.trim();
		}
	return goals;
}

/**
 * The goals of the key as the service sees it (issue 48): no 429 on it in any run, and (when the executions
 * shape ran) its requests other than creates and downloads at most OTHER_GOAL of all, at every worker count.
 */
function keyGoals(ours, regular, withExecutions) {
	const with429 = ours.filter((r) => r.r429 > 0);
	const executions = regular.filter((r) => r.shape === 'executions');
	const chatty = executions.filter((r) => !(otherShare(r.route).share <= OTHER_GOAL));
	const shareText = (r) => {
		const o = otherShare(r.route);
		return `${o.other} of ${o.total} = ${pct(o.share)}`;
	};
	const goals = [
		{
			goal: `A thousand videos: 0 × 429 on the key at every worker count (no process sends inside a Retry-After the key was given, whichever process it was given to)`,
			result: tagged(ours, (r) => `${r.r429}`),
			met: ours.length > 0 && with429.length === 0,
			note: with429
				.map(
					(r) =>
						`${runTag(r)}: ${r.r429} × 429; referee records of processes sharing the key: ${kindsText(r.referee.shared)}.`,
				)
				.join(' '),
		},
	];
	if (withExecutions)
		goals.push({
			goal: `A thousand videos: the executions shape's requests other than creates and downloads ≤ ${OTHER_GOAL * 100} % of all at every worker count`,
			result: tagged(executions, shareText),
			met: executions.length > 0 && chatty.length === 0,
			note: chatty.map((r) => `${runTag(r)}: ${routeBeyond(r.route)}.`).join(' '),
		});
	return goals;
}

/** The requests a run made beside its creates and downloads, by route ("92 list, 11 get, 4 capabilities"). */
const routeBeyond = (route) =>
	Object.entries(route)
		.filter(([k, c]) => c && k !== 'create' && k !== 'download')
		.map(([k, c]) => `${c} ${k}`)
		.join(', ');

/**
 * The items-large run's goal: its last download ≤ RATE_GOAL × the floor on the same (shortened) windows and
 * ≤ LARGE_REQUESTS_GOAL requests per video; the last MP4's ratio is shown beside it, not judged (the uploads'
 * real time after Create has output every item is not shortened with the window). `first`: the run, failed or not.
 */
function largeGoal(done, first) {
	const miss = done.filter((r) => {
		const f = largeFigures(r);
		return !(f.downloadRatio <= RATE_GOAL && f.requestsPerVideo <= LARGE_REQUESTS_GOAL);
	});
	return {
		goal: `A thousand videos: ${first.n} videos in one execution (items, one worker, the key's window shortened to ${fmtS(first.windowMs)}): last download ≤ ${RATE_GOAL} × the floor on the same windows, ≤ ${LARGE_REQUESTS_GOAL} requests per video`,
		result: tagged(done, (r) => {
			const f = largeFigures(r);
			return `last download ${fmtS(r.timeline.lastDownload)} / floor ${fmtS(r.floor.floorMs)} = ${f.downloadRatio.toFixed(2)} (last MP4 ${f.mp4Ratio.toFixed(2)}), ${f.requestsPerVideo.toFixed(2)} requests per video`;
		}),
		met: done.length > 0 && miss.length === 0,
		note: miss.map((r) => `${runTag(r)}: ${rateWhy(r)}.`).join(' '),
	};
}
