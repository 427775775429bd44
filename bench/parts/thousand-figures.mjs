// The figures and goals of part 7 (a thousand videos) from what a run collected, as pure functions
// (test/tools/bench-thousand.test.mjs): the floor on the key's windows as the emulator counts them, the key's
// windows as the run used them, the referee's records split into a process alone and processes sharing the
// key, each prompt's jobs, the bucket against the jobs, memory per process, the parked executions' resumes,
// and the goals' verdicts with the figures that say why.
import { simulateFloor } from '../floor.mjs';
import { kindCounts } from '../journal.mjs';
import { fmtS, MiB, median } from '../measure.mjs';
import { signed } from '../report.mjs';

/** The rate goal: the last MP4 at most this many times the floor (≥ 95 % of the key's rate). */
export const RATE_GOAL = 1.05;
/**
 * The memory goal's allowance for run-to-run noise: a process's peak RSS added during our run may exceed the
 * baseline's on the same shape and process by this much before the goal counts it as growth.
 */
export const MEMORY_SLACK_BYTES = 32 * MiB;

/**
 * The perfect client's floor (bench/floor.mjs) for `n` jobs of `jobMs` from `t0` (the run's first request on
 * the key, so its phase in the key's fixed windows is the measured one): { t0, floorMs, … }.
 */
export function floorOfRun({ t0, n, jobMs, limit, windowMs, pollMs }) {
	return { t0, ...simulateFloor({ t0, n, jobMs, limit, windowMs, pollMs }) };
}

/**
 * The key's fixed windows (aligned as the emulator counts them) from the run's first request to its last:
 * requests in each, and how much of the key's budget the run left unused in the windows it spanned
 * (the last, partial, one left out): { perWindow, full, unused, usedShare }.
 */
export function windowUse(journal, { windowMs, limit }) {
	if (!journal.length) return { perWindow: [], full: 0, unused: 0, usedShare: NaN };
	const first = Math.floor(journal[0].at / windowMs);
	const last = Math.floor(journal[journal.length - 1].at / windowMs);
	const perWindow = Array.from({ length: last - first + 1 }, () => 0);
	for (const e of journal) perWindow[Math.floor(e.at / windowMs) - first]++;
	const full = perWindow.slice(0, -1);
	const unused = full.reduce((a, c) => a + Math.max(0, limit - c), 0);
	return {
		perWindow,
		full: full.length,
		unused,
		usedShare: full.length ? 1 - unused / (full.length * limit) : NaN,
	};
}

/**
 * The referee's records of the key told apart (queue-measure.mjs judged, tools/lib/soak/judge.mjs): `alone`,
 * the violations a process made by itself (each with its process), `shared`, the collisions of processes
 * sharing the key; counted by kind and by process.
 */
export function refereeSplit({ all, own, collisions }) {
	const byKind = {};
	const byProcess = {};
	for (const v of all) {
		byKind[v.kind] = (byKind[v.kind] ?? 0) + 1;
		byProcess[v.process] = (byProcess[v.process] ?? 0) + 1;
	}
	return { total: all.length, alone: own, shared: collisions, byKind, byProcess };
}

/**
 * Each prompt's jobs on the key (`jobs`: { id, prompt }): how many prompts got exactly one job, those that got
 * none or more than one, and jobs of no prompt of the run.
 */
export function createdOnce({ prompts, jobs }) {
	const perPrompt = new Map(prompts.map((p) => [p, 0]));
	let foreign = 0;
	for (const j of jobs) {
		if (perPrompt.has(j.prompt)) perPrompt.set(j.prompt, perPrompt.get(j.prompt) + 1);
		else foreign++;
	}
	const counts = [...perPrompt.values()];
	return {
		prompts: prompts.length,
		jobs: jobs.length,
		once: counts.filter((c) => c === 1).length,
		none: [...perPrompt].filter(([, c]) => c === 0).map(([p]) => p),
		more: [...perPrompt].filter(([, c]) => c > 1).map(([p, c]) => ({ prompt: p, jobs: c })),
		foreign,
	};
}

/**
 * The bucket against the jobs: a job's MP4 is verified when `<prefix><job id>.mp4` holds its sha256.
 * `objects`: job id → { sha256 } or null; `keys`: every key in the bucket; `created`: `bucket/key` → when
 * it was stored. Returns { verified, missing, badSha, extra (keys of no job), lastAt, storedAts }.
 */
export function verifyBucket({ jobs, objects, keys, created, prefix, bucket = 'videos' }) {
	const out = { verified: 0, missing: [], badSha: [], extra: [], lastAt: NaN, storedAts: [] };
	const wanted = new Set(jobs.map((j) => `${prefix}${j.id}.mp4`));
	out.extra = keys.filter((k) => !wanted.has(k));
	for (const job of jobs) {
		const obj = objects.get(job.id);
		if (!obj) {
			out.missing.push(job.id);
			continue;
		}
		if (obj.sha256 !== job.outputSha256) {
			out.badSha.push(job.id);
			continue;
		}
		out.verified++;
		const at = created.get(`${bucket}/${prefix}${job.id}.mp4`);
		if (Number.isFinite(at)) {
			out.storedAts.push(at);
			out.lastAt = Number.isNaN(out.lastAt) ? at : Math.max(out.lastAt, at);
		}
	}
	return out;
}

/**
 * Memory per n8n process: its RSS (the process and its task runner) when the run started, its peak during
 * the run, and what the run added: { process: { start, peak, added } }; `samples` ([{ at, rss }]) kept too.
 */
export function memoryOf(start, peak, samples = []) {
	const perProcess = Object.fromEntries(
		Object.keys(peak).map((p) => [
			p,
			{ start: start[p] ?? NaN, peak: peak[p], added: peak[p] - (start[p] ?? NaN) },
		]),
	);
	return { perProcess, samples };
}

/**
 * What a run added to the RSS of the main and of the workers, the worker that added most standing for them
 * (which worker runs an execution is n8n's choice): { main, workers } in bytes.
 */
export function addedByRole(memory) {
	const entries = Object.entries(memory.perProcess);
	const workers = entries.filter(([p]) => p !== 'main').map(([, m]) => m.added);
	return {
		main: memory.perProcess.main?.added ?? NaN,
		workers: workers.length ? Math.max(...workers) : NaN,
	};
}

/**
 * The memory goal for one shape: what our run added to the main's RSS and to the most-added worker's, against
 * what the baseline added on the same shape (`MEMORY_SLACK_BYTES` allowed for noise). { met, rows: [{
 * process: 'main' | 'workers', ours, base, over }] } (bytes; `over` = ours − base − slack).
 */
export function memoryVerdict(ours, base, slack = MEMORY_SLACK_BYTES) {
	const o = addedByRole(ours);
	const b = base ? addedByRole(base) : undefined;
	const rows = ['main', 'workers'].map((role) => ({
		process: role,
		ours: o[role],
		base: b?.[role],
		over: Number.isFinite(b?.[role]) ? o[role] - b[role] - slack : NaN,
	}));
	return { met: rows.every((r) => r.over <= 0), rows };
}

/** The node that ran after the Wait node (what a resume starts with) and how the Wait node's target is read. */
const AFTER_WAIT = { ours: 'Wait for Job', base: 'Download' };

/**
 * The parked executions' resumes, from each execution's run data (REST): when the node after the Wait node
 * started against the time the Wait node was to resume (ours: Create's estimatedReadyAt; the baseline: its
 * Wait node's start + `waitS`) and against the job's end. { count, late: { median, max, min },
 * afterEnd: { median, max, min }, estimates: { "<s> s: <from>": count } }, or undefined for runs without a
 * Wait node per execution.
 */
export function resumesOf(executions, { jobs, side, waitS }) {
	const byId = new Map(jobs.map((j) => [j.id, j]));
	const late = [];
	const afterEnd = [];
	const estimates = {};
	for (const x of executions) {
		const run = x.data?.resultData?.runData ?? {};
		const resumedAt = run[AFTER_WAIT[side]]?.[0]?.startTime;
		const created = run.Create?.[0]?.data?.main?.[0]?.[0]?.json ?? {};
		const job = byId.get(side === 'ours' ? created.id : created.data?.id);
		let target;
		if (side === 'ours') {
			target = Date.parse(created.estimatedReadyAt);
			const k = `${created.estimatedSeconds} s: ${created.estimatedFrom}`;
			if (created.estimatedFrom) estimates[k] = (estimates[k] ?? 0) + 1;
		} else {
			// the Wait node's own run data is its resumed run: it started right after Create ended
			const c = run.Create?.[0];
			target = c ? c.startTime + c.executionTime + waitS * 1000 : NaN;
		}
		if (Number.isFinite(resumedAt) && Number.isFinite(target)) late.push(resumedAt - target);
		if (Number.isFinite(resumedAt) && job) afterEnd.push(resumedAt - job.updatedAt);
	}
	const stats = (xs) =>
		xs.length ? { min: Math.min(...xs), median: median(xs), max: Math.max(...xs) } : undefined;
	if (!late.length && !afterEnd.length) return undefined;
	return { count: late.length, late: stats(late), afterEnd: stats(afterEnd), estimates };
}

/**
 * The run's requests (`trace`: [ms from the first request, route, status, process]) counted by route while
 * the creates went out (up to the last create) and after: { creating, after } ({ route: count }; `list+`
 * counts the job list's further pages).
 */
export function requestsByPhase(trace, lastCreateMs) {
	const out = { creating: {}, after: {} };
	for (const [ms, route] of trace) {
		const phase = ms <= lastCreateMs ? out.creating : out.after;
		phase[route] = (phase[route] ?? 0) + 1;
	}
	return out;
}

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
			`${r.journalCount} requests against the floor's ${floorTotal} (+${extra}: ${beyond.join(', ') || 'other routes'}), about ${fmtS((extra / r.limit) * r.windowMs)} of the key's budget`,
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
	if (r.windows.full)
		parts.push(
			`${r.windows.unused} requests of the key's budget left unused in ${r.windows.full} full windows (${pct(r.windows.usedShare)} used; requests per window ${r.windows.perWindow.join('/')})`,
		);
	return parts.join('; ');
}

const allShapes = (results, side) => results.filter((r) => r.side === side);

/**
 * The part's goals over its runs (ours judged; the baselines are what n8n's own nodes cost): { goal, result,
 * met, note } each. `n`: prompts per run.
 */
export function thousandGoals(results, { n }) {
	const ours = allShapes(results, 'ours').filter((r) => !r.failed);
	const failed = allShapes(results, 'ours').filter((r) => r.failed);
	const goals = [];
	const slow = ours.filter((r) => !(r.ratio <= RATE_GOAL));
	goals.push({
		goal: `A thousand videos (${n} prompts, queue mode): every shape at ≥ 95 % of the key's rate (last MP4 ≤ ${RATE_GOAL} × the floor)`,
		result: ours
			.map(
				(r) =>
					`${r.shape}: ${fmtS(r.lastMp4Ms)} / floor ${fmtS(r.floor.floorMs)} = ${r.ratio.toFixed(2)}`,
			)
			.join('; '),
		met: ours.length > 0 && slow.length === 0,
		note: slow.map((r) => `${r.shape}: ${rateWhy(r)}.`).join(' '),
	});
	const alone = ours.filter((r) => r.referee.alone.length > 0);
	goals.push({
		goal: `A thousand videos: 0 referee violations by a process alone`,
		result: ours
			.map(
				(r) =>
					`${r.shape}: ${r.referee.alone.length} by a process alone, ${r.referee.shared.length} collisions of processes sharing the key`,
			)
			.join('; '),
		met: ours.length > 0 && alone.length === 0,
		note: alone
			.map(
				(r) =>
					`${r.shape}: ${JSON.stringify(kindCounts(r.referee.alone))} by ${[...new Set(r.referee.alone.map((v) => v.process))].join(', ')}.`,
			)
			.join(' '),
	});
	const notOnce = ours.filter(
		(r) => r.created.once !== r.created.prompts || r.created.foreign || r.created.jobs !== n,
	);
	goals.push({
		goal: `A thousand videos: each prompt's job created exactly once`,
		result: ours
			.map(
				(r) =>
					`${r.shape}: ${r.created.jobs} jobs for ${r.created.prompts} prompts, ${r.created.once} once`,
			)
			.join('; '),
		met: ours.length > 0 && notOnce.length === 0,
		note: notOnce
			.map(
				(r) =>
					`${r.shape}: ${r.created.none.length} prompts without a job, ${r.created.more.length} with more than one, ${r.created.foreign} jobs of no prompt.`,
			)
			.join(' '),
	});
	const notAll = ours.filter(
		(r) => r.bucket.verified !== n || r.bucket.extra.length || r.bucket.badSha.length,
	);
	goals.push({
		goal: `A thousand videos: ${n}/${n} objects in the bucket with their job's sha256`,
		result: ours
			.map(
				(r) =>
					`${r.shape}: ${r.bucket.verified}/${n}${r.bucket.badSha.length ? `, ${r.bucket.badSha.length} with another sha256` : ''}${r.bucket.extra.length ? `, ${r.bucket.extra.length} objects of no job` : ''}`,
			)
			.join('; '),
		met: ours.length > 0 && notAll.length === 0,
		note: notAll
			.map(
				(r) =>
					`${r.shape}: ${r.bucket.missing.length} missing; executions ${JSON.stringify(r.executions.status)}${r.timedOut ? '; the run timed out' : ''}.`,
			)
			.join(' '),
	});
	const verdicts = ours.map((r) => {
		const base = results.find((b) => b.side === 'base' && b.shape === r.shape);
		return { r, base, v: base && !base.failed ? memoryVerdict(r.memory, base.memory) : undefined };
	});
	const mib = (b) => (Number.isFinite(b) ? `${(b / MiB).toFixed(1)} MiB` : 'n/a');
	goals.push({
		goal: `A thousand videos: no n8n process's memory growing beyond what n8n's own nodes cost on the same shape (RSS added during the run, main and the most-added worker, ≤ the baseline's + ${MEMORY_SLACK_BYTES / MiB} MiB)`,
		result: verdicts
			.map(({ r, v }) =>
				v
					? `${r.shape}: ${v.rows.map((x) => `${x.process} ${signed(x.ours)} vs ${signed(x.base)}`).join(', ')}`
					: `${r.shape}: no baseline run`,
			)
			.join('; '),
		met: verdicts.length > 0 && verdicts.every(({ v }) => v?.met),
		note: verdicts
			.filter(({ v }) => v && !v.met)
			.map(
				({ r, v }) =>
					`${r.shape}: ${v.rows
						.filter((x) => !(x.over <= 0))
						.map((x) => `${x.process} ${mib(x.over)} above`)
						.join(', ')}.`,
			)
			.join(' '),
	});
	// a run of ours that did not complete misses every goal
	if (failed.length)
		for (const g of goals) {
			g.met = false;
			g.note =
				`${failed.map((r) => `${r.shape} did not complete: ${r.failed}.`).join(' ')} ${g.note}`.trim();
		}
	return goals;
}
