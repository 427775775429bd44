// The figures of part 7 (a thousand videos) from what a run collected, as pure functions
// (test/tools/bench-thousand.test.mjs): the floor on the key's windows as the emulator counts them, the key's
// windows as the run used them, the referee's records split into a process alone and processes sharing the
// key, each prompt's jobs, the bucket against the jobs, memory per process, the parked executions' resumes,
// and the figures the goals read (thousand-goals.mjs).
import { simulateFloor } from '../floor.mjs';
import { kindCounts } from '../journal.mjs';
import { MiB, median } from '../measure.mjs';

/** The rate goal: the last MP4 at most this many times the floor (≥ 95 % of the key's rate). */
export const RATE_GOAL = 1.05;
/**
 * The memory goal's allowance for run-to-run noise: a process's peak RSS added during our run may exceed the
 * baseline's on the same shape and process by this much before the goal counts it as growth.
 */
export const MEMORY_SLACK_BYTES = 32 * MiB;
/** The executions shape's goal: requests other than creates and downloads at most this share of all. */
export const OTHER_GOAL = 0.05;
/** The items-large run's goal: requests per video at most this (a create and a download each, and looks). */
export const LARGE_REQUESTS_GOAL = 2.05;

/** "1 worker", "4 workers" (a record from before worker counts: "? workers"). */
export const workersText = (w) => `${w ?? '?'} worker${w === 1 ? '' : 's'}`;
/** A run as the goals and tables name it: its name and worker count ("executions, 4 workers"). */
export const runTag = (r) => `${r.name}, ${workersText(r.workers)}`;

/**
 * Requests other than creates and downloads (`route`: byRoute's counts): looks, reads, capabilities, quotes,
 * each a share of the key's budget a perfect client would not spend. { other, total, share }.
 */
export function otherShare(route) {
	const total = Object.values(route).reduce((a, c) => a + c, 0);
	const other = total - route.create - route.download;
	return { other, total, share: total ? other / total : NaN };
}

/** The referee's records by rule, most first: "list_poll_too_soon × 11, retry_after_key × 2" ('—': none). */
export const kindsText = (records) =>
	Object.entries(kindCounts(records))
		.sort((a, b) => b[1] - a[1])
		.map(([kind, c]) => `${kind} × ${c}`)
		.join(', ') || '—';

/**
 * The items-large run's figures (one execution of N items on one worker, the window shortened): the last
 * download and the last MP4 each against the floor (the S3 uploads start only once n8n's Create node has
 * output every item: real time, which a shortened window does not shorten), requests per video, and per
 * 1,000 items the RSS the run added to the worker and to the main and what Postgres grew by.
 */
export function largeFigures(r) {
	const per1000 = (x) => (x / r.n) * 1000;
	const added = addedByRole(r.memory);
	return {
		downloadRatio: r.timeline.lastDownload / r.floor.floorMs,
		mp4Ratio: r.ratio,
		requestsPerVideo: r.journalCount / r.n,
		rssPer1000: { worker: per1000(added.workers), main: per1000(added.main) },
		postgresPer1000: per1000(r.database.end.database - r.database.start.database),
	};
}

/**
 * The runs side by side by worker count (items-large and runs that did not complete left out), in the order
 * side, shape, workers: { r, tag, workers, ratio, other (otherShare), r429, alone, shared (kindsText each),
 * once, verified } each.
 */
export function byWorkerCount(results) {
	const order = (r) => [r.side === 'ours' ? 0 : 1, r.shape, r.workers];
	return results
		.filter((r) => !r.failed && !r.large)
		.sort((a, b) => {
			const [x, y] = [order(a), order(b)];
			return x[0] - y[0] || x[1].localeCompare(y[1]) || x[2] - y[2];
		})
		.map((r) => ({
			r,
			name: r.name,
			workers: r.workers,
			ratio: r.ratio,
			other: otherShare(r.route),
			r429: r.r429,
			alone: { count: r.referee.alone.length, kinds: kindsText(r.referee.alone) },
			shared: { count: r.referee.shared.length, kinds: kindsText(r.referee.shared) },
			once: `${r.created.once}/${r.created.prompts}`,
			verified: `${r.bucket.verified}/${r.n}`,
		}));
}

/**
 * The perfect client's floor (bench/floor.mjs) for `n` jobs of `jobMs` from `t0` (the run's first request on
 * the key, so its phase in the key's fixed windows is the measured one): { t0, floorMs, … }.
 */
export function floorOfRun({ t0, n, jobMs, limit, windowMs, pollMs }) {
	return { t0, ...simulateFloor({ t0, n, jobMs, limit, windowMs, pollMs }) };
}

/**
 * How long from `now` until the next of the key's fixed windows starts (0 on its first millisecond). A run
 * is triggered then, so that its first request comes a fraction of a second into a whole window: begun in
 * a window's last second, the floor, whose requests take no time, would spend that window's whole budget
 * before the executions of the run had even started (a 4-worker run on 3fe0680, begun 0.5 s before a
 * window's end, read 1.50 × its floor, one window of its 240 s).
 */
export function msToWindowStart(now, windowMs) {
	return (windowMs - (now % windowMs)) % windowMs;
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
 * The key's windows as the service counted them (windowUse): every request of the run's trace but the reads
 * of the public capabilities route, which the service does not count (nor the floor, floor.mjs); a record
 * without a trace: its windows as measured.
 */
export function keyWindows(r) {
	if (!r.trace?.length) return r.windows;
	const counted = r.trace
		.filter(([, route]) => route !== 'capabilities')
		.map(([ms]) => ({ at: r.floor.t0 + ms }));
	return windowUse(counted, r);
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

/** Reuse Look-Back of the examples as shipped (the Create node's default): 60 minutes. */
export const LOOK_BACK_SLOT_MS = 60 * 60_000;

/**
 * When one of Reuse Identical Recent Job's look-back slots began while the run's creates went out: ms after
 * the run's first request (`firstRequestAt`, epoch ms), or undefined. The intent's key changes with the slot
 * (whole multiples of the look-back since the epoch: reuse.ts deriveIntentKey). Up to the package sources
 * dadbca40c176e7f4, in a slot's first minute every webhook create wanted a view of the key's jobs no older than
 * one poll interval: each worker looked every 5 s for a minute, not once (in the 2-worker executions run of
 * 1f834fa about 40 of the run's 84 list pages). Since, only a run started in that minute wants a view read
 * after the slot began (reuse.ts intentFreshAfter), and a run's executions all start at its first request.
 * Whether a run meets a slot's start depends on the clock, so the report says so beside its requests.
 */
export function slotBeganDuringCreates(firstRequestAt, lastCreateMs, slotMs = LOOK_BACK_SLOT_MS) {
	const next = Math.ceil(firstRequestAt / slotMs) * slotMs;
	return next - firstRequestAt <= lastCreateMs ? next - firstRequestAt : undefined;
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
