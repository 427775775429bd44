// What this n8n process knows about each key's jobs, shared by every execution in it — one idea, kept in
// three stores, each learned from every job answer the process gets (rememberJobs: creates, reads, list
// pages) and never asked for here (watch.ts sends the reads and list looks):
// - the last answer about each job: a finished job never changes, an unfinished one is reused for 5 s, the
//   least the service allows between reads of one job;
// - the recent-jobs view of each key: what Create's "Reuse Identical Recent Job" looks through;
// - how long jobs of each kind took: Create's estimate of when its job ends (for n8n's Wait node).
import type { ServiceContext } from '../service/service';
import { now, resolveService } from '../service/service';
import { keepRecent, processStore } from '../processState';
import type { Job } from './job';
import { MIN_POLL_MS, isFinished } from './job';

// ---- The last answer about each job ----

interface JobRead {
	job: Job;
	at: number;
}

/** Bounds of the answers kept: a long-running process must not grow with every job it ever saw. */
export const JOB_READS_MEMORY = {
	/** Answers kept at most; beyond, the least recently answered go first. */
	maxAnswers: 5_000,
	/** Answers of unfinished jobs past their reuse age are dropped once this many were added… */
	sweepEveryAdds: 256,
	/** …or this long after the last sweep (package clock); no timer: checked when answers arrive. */
	sweepEveryMs: 60_000,
};

/**
 * Module state on purpose: the last answer about each job (per service key) that any node run of this
 * process got — from a read, a creation or a list. A finished job never changes, so its answer is
 * reused (until the cap pushes it out); an unfinished one is reused for 5 s, the least the service
 * allows between reads of one job, and forgotten after that. Reads of one job that overlap share one
 * request (`pending` holds only reads on their way).
 */
export const processJobReads = processStore(
	'jobReads',
	{
		/** ≤ JOB_READS_MEMORY.maxAnswers (least recently answered out first); stale unfinished ones swept. */
		answers: new Map<string, JobRead>(),
		/** Only reads on their way (removed when answered): ≤ the job reads in flight in the process. */
		pending: new Map<string, Promise<Job>>(),
		/**
		 * Reads cut off by their execution's cancellation, by when they were sent: the service may have
		 * answered, so the next read of the job waits 5 s from it. Removed by the next answer; swept after
		 * 5 s; ≤ JOB_READS_MEMORY.maxAnswers (the oldest out first).
		 */
		unsure: new Map<string, number>(),
		addedSinceSweep: 0,
		sweptAt: -Infinity,
	},
	(state) => {
		state.answers.clear();
		state.pending.clear();
		state.unsure.clear();
		state.addedSinceSweep = 0;
		state.sweptAt = -Infinity;
	},
);

/** Drops the answers about unfinished jobs that are too old to be reused. */
function sweepAnswers(at: number): void {
	processJobReads.addedSinceSweep = 0;
	processJobReads.sweptAt = at;
	for (const [key, read] of processJobReads.answers) {
		if (!isFinished(read.job) && at - read.at >= MIN_POLL_MS) processJobReads.answers.delete(key);
	}
	for (const [key, sentAt] of processJobReads.unsure) {
		if (at - sentAt >= MIN_POLL_MS) processJobReads.unsure.delete(key);
	}
}

/** A job's entry in the answers: its key's and its own id. */
export function jobKey(serviceKey: string, jobId: string): string {
	return `${serviceKey}|${jobId}`;
}

/**
 * The answer about a job that may stand for a read now: any answer of a finished job (it never changes),
 * an unfinished one younger than 5 s (the least the service allows between reads of one job); else none.
 */
export function reusableAnswer(serviceKey: string, jobId: string): Job | undefined {
	const known = processJobReads.answers.get(jobKey(serviceKey, jobId));
	if (!known) return undefined;
	return isFinished(known.job) || now() - known.at < MIN_POLL_MS ? known.job : undefined;
}

/**
 * Jobs the service just described (a creation answer, a list page, a read): the last answer about each, the
 * key's recent-jobs view, and how long the succeeded ones took (for the estimate).
 */
export async function rememberJobs(ctx: ServiceContext, jobs: Job[]): Promise<void> {
	const { serviceKey } = await resolveService(ctx);
	const at = now();
	const { answers } = processJobReads;
	// stale answers about unfinished jobs go first (the new ones are fresh: the sweep keeps them)
	processJobReads.addedSinceSweep += jobs.length;
	if (
		processJobReads.addedSinceSweep >= JOB_READS_MEMORY.sweepEveryAdds ||
		at - processJobReads.sweptAt >= JOB_READS_MEMORY.sweepEveryMs
	) {
		sweepAnswers(at);
	}
	for (const job of jobs) {
		const key = jobKey(serviceKey, job.id);
		// in order of last answer, the least recently answered out first beyond the bound
		keepRecent(answers, key, { job, at }, JOB_READS_MEMORY.maxAnswers);
		processJobReads.unsure.delete(key);
	}
	noteJobs(serviceKey, jobs, at);
	noteFinished(serviceKey, jobs);
}

/** The end of the 5 s after a read of the job whose answer was lost to a cancellation (0: none). */
export function unsureUntil(key: string): number {
	const sentAt = processJobReads.unsure.get(key);
	return sentAt === undefined ? 0 : sentAt + MIN_POLL_MS;
}

/** A read cut off by its execution's cancellation: the next one waits 5 s from when it was sent. */
export function markUnsure(key: string, sentAt: number): void {
	keepRecent(processJobReads.unsure, key, sentAt, JOB_READS_MEMORY.maxAnswers);
}

// ---- The recent-jobs view of each key ----

/** Bounds of the views: a main that serves many keys for weeks must not grow with every job. */
export const RECENT_JOBS_MEMORY = {
	/** Keys whose view is kept at most; beyond, the least recently used goes first. */
	maxViews: 100,
	/** Jobs kept per view at most (the look-up reads at most 10 pages of 100); the oldest created go first. */
	maxJobs: 1_000,
};

/** A job of the view, and when its state was learned. */
export interface Known {
	job: Job;
	/** When the state was learned (package clock): a list look's sending, another answer's arrival. */
	at: number;
	/** It came from a list look (its state is as of `at` or later) rather than another answer. */
	listed: boolean;
}

export interface RecentView {
	/** Jobs by id, as last answered (a finished answer is never replaced by an older unfinished one). */
	jobs: Map<string, Known>;
	/** When the last list look was sent (package clock): every job created before it is in the view… */
	freshAt: number;
	/** …created after this createdAt (service clock), where the looks stopped; -Infinity: the list's end. */
	reachedBack: number;
	/** The newest createdAt those looks listed (service clock): the view has every job between the two. */
	newestListed: number;
	/** When the key's last first page of the list was answered: looks are spaced from it. */
	lookedAt: number;
	/** When a create of this process last failed without an answer (it may have made a job). */
	uncertainAt: number;
}

/**
 * Module state on purpose: one view per service key, shared by every node run of the process.
 * `views` ≤ RECENT_JOBS_MEMORY.maxViews (least recently used out first); each ≤ maxJobs jobs.
 */
export const processRecentJobs = processStore(
	'recentJobs',
	{ views: new Map<string, RecentView>() },
	(state) => state.views.clear(),
);

function touch(serviceKey: string, view: RecentView): RecentView {
	keepRecent(processRecentJobs.views, serviceKey, view, RECENT_JOBS_MEMORY.maxViews);
	return view;
}

/** The key's view, or undefined when no list of it was looked at (or it was forgotten). */
export function viewOf(serviceKey: string): RecentView | undefined {
	const view = processRecentJobs.views.get(serviceKey);
	return view ? touch(serviceKey, view) : undefined;
}

function newer(known: Job | undefined, job: Job): boolean {
	if (!known) return true;
	if (known.state === job.state) return (job.updatedAt ?? 0) >= (known.updatedAt ?? 0);
	// answers may arrive out of order: an end state is never undone
	return !isFinished(known);
}

function merge(view: RecentView, jobs: readonly Job[], at: number, listed: boolean): void {
	for (const job of jobs) {
		if (newer(view.jobs.get(job.id)?.job, job)) view.jobs.set(job.id, { job, at, listed });
	}
	if (view.jobs.size <= RECENT_JOBS_MEMORY.maxJobs) return;
	const oldestFirst = [...view.jobs.values()].sort((a, b) => a.job.createdAt - b.job.createdAt);
	for (const { job } of oldestFirst.slice(0, view.jobs.size - RECENT_JOBS_MEMORY.maxJobs)) {
		view.jobs.delete(job.id);
		view.reachedBack = Math.max(view.reachedBack, job.createdAt);
	}
}

/**
 * Jobs the process was just told about (a create, a read, any list): kept in the key's view if it has
 * one (a new job of this process is in the view at once; a known one gets its newer state).
 */
function noteJobs(serviceKey: string, jobs: readonly Job[], at: number): void {
	const view = processRecentJobs.views.get(serviceKey);
	if (view) merge(view, jobs, at, false);
}

/**
 * A look at the key's job list: its first page was sent at `sentAt` and answered at `answeredAt`;
 * `jobs` are all the pages it read, newest first; `reachedEnd`: it read to the list's end.
 */
export function noteListLook(
	serviceKey: string,
	look: { sentAt: number; answeredAt: number; jobs: readonly Job[]; reachedEnd: boolean },
): void {
	const view = processRecentJobs.views.get(serviceKey) ?? {
		jobs: new Map<string, Known>(),
		freshAt: -Infinity,
		reachedBack: Infinity,
		newestListed: -Infinity,
		lookedAt: -Infinity,
		uncertainAt: -Infinity,
	};
	touch(serviceKey, view);
	view.lookedAt = Math.max(view.lookedAt, look.answeredAt);
	if (look.sentAt >= view.freshAt) {
		// (an older look answered late tells only its states)
		const first = look.jobs[0];
		const last = look.jobs[look.jobs.length - 1];
		// a look that went down to where the view already had every job (viewFloor) extends what it has
		const joins = !!last && last.createdAt < viewFloorOf(view);
		view.freshAt = look.sentAt;
		view.reachedBack =
			look.reachedEnd || !last
				? -Infinity
				: joins
					? Math.min(view.reachedBack, last.createdAt)
					: last.createdAt;
		view.newestListed = Math.max(
			joins ? view.newestListed : -Infinity,
			first?.createdAt ?? -Infinity,
		);
	}
	merge(view, look.jobs, look.sentAt, true);
}

/**
 * How far back a list look must read for the key's view to have every job it had and every job created
 * since (Reuse Identical Recent Job then sees the key's jobs as a full read would): down to VIEW_OVERLAP_MS
 * before the newest job the view's looks listed, and to the oldest unfinished job of the view (its state
 * may have changed; an ended job's never does). A look that reaches below this createdAt joins the view;
 * -Infinity: the view has nothing to join (no look yet, or it was trimmed to nothing), read as far as wanted.
 *
 * VIEW_OVERLAP_MS re-reads the last seconds, so a job stamped before it became visible in the list (or
 * stamped by a server whose clock runs a little behind) is still seen. The Trigger's walk keeps 5 minutes
 * (cursor.ts): it must emit each job exactly once and walks once a minute; the view is looked at every
 * poll interval while creates go out, and what it could miss is also covered by the intent's
 * Idempotency-Key (reuse.ts).
 */
export const VIEW_OVERLAP_MS = 30_000;

export function viewFloor(serviceKey: string): number {
	const view = processRecentJobs.views.get(serviceKey);
	return view ? viewFloorOf(view) : -Infinity;
}

function viewFloorOf(view: RecentView): number {
	if (!(view.reachedBack < view.newestListed)) return -Infinity;
	let floor = view.newestListed - VIEW_OVERLAP_MS;
	for (const { job } of view.jobs.values()) {
		if (!isFinished(job) && job.createdAt > view.reachedBack)
			floor = Math.min(floor, job.createdAt);
	}
	return floor > view.reachedBack ? floor : -Infinity;
}

/**
 * The view's jobs created since `since`, newest first — when a list look sent at or after `freshAfter`
 * reached back past `since`; undefined otherwise (a new look is needed).
 */
export function recentSince(
	serviceKey: string,
	since: number,
	freshAfter: number,
): Job[] | undefined {
	const view = viewOf(serviceKey);
	if (!view || view.freshAt < freshAfter || view.reachedBack >= since) return undefined;
	return jobsSince(view, since);
}

/** The view's jobs created since `since`, newest first. */
export function jobsSince(view: RecentView, since: number): Job[] {
	return [...view.jobs.values()]
		.map(({ job }) => job)
		.filter((job) => job.createdAt >= since)
		.sort((a, b) => b.createdAt - a.createdAt);
}

/**
 * When the view learned the job's state as it is now: a list look's sending, or another answer's
 * arrival (a list look sent at `at` tells a state as of `at` or later; undefined: not in the view).
 */
export function stateOf(serviceKey: string, jobId: string): Known | undefined {
	return processRecentJobs.views.get(serviceKey)?.jobs.get(jobId);
}

/**
 * A create of this process that failed without an answer at `at` (a reset, a timeout, a 5xx after the
 * service may have committed it): the view cannot show its job until a list look sent after it.
 */
export function noteUncertainCreate(serviceKey: string, at: number): void {
	const view = processRecentJobs.views.get(serviceKey);
	if (view) view.uncertainAt = Math.max(view.uncertainAt, at);
}

/** When a create of this process last failed without an answer (-Infinity: never, or no view). */
export function uncertainCreateAt(serviceKey: string): number {
	return processRecentJobs.views.get(serviceKey)?.uncertainAt ?? -Infinity;
}

/** When the key's last first page of the list was answered by this process (-Infinity: never). */
export function lastLookAt(serviceKey: string): number {
	return processRecentJobs.views.get(serviceKey)?.lookedAt ?? -Infinity;
}

// ---- How long jobs take: the estimate ----

/** Bounds of what is learned: a long-running process must not grow with every job it saw. */
export const ESTIMATE_MEMORY = {
	/** Keys whose durations are kept at most; beyond, the least recently used goes first. */
	maxKeys: 100,
	/** Kinds (mode and duration) per key at most: 3 modes × 30 durations fit. */
	maxKinds: 100,
	/** Durations kept per kind: the most recently seen jobs. */
	samples: 20,
};

/** No job of the same mode and duration seen finished: the guess (a Wait for Job after it polls on). */
const FALLBACK_ESTIMATE_SECONDS = 120;

/** One succeeded job's duration and when it ended. */
interface Sample {
	ms: number;
	endedAt: number;
}

/**
 * Module state on purpose: per service key, per kind (`mode|durationSeconds`), the durations
 * (updatedAt − createdAt) of its last succeeded jobs by id. ≤ maxKeys keys (least recently used out
 * first), each ≤ maxKinds kinds (least recently seen out first), each ≤ samples jobs (the ones that
 * ended first go first).
 */
export const processDurations = processStore(
	'durations',
	{ byKey: new Map<string, Map<string, Map<string, Sample>>>() },
	(state) => state.byKey.clear(),
);

function kindOf(job: Pick<Job, 'input'>): string | undefined {
	const mode = job.input?.mode;
	if (typeof mode !== 'string') return undefined;
	return `${mode}|${Number(job.input?.durationSeconds ?? 5)}`;
}

/** Jobs the process was just told about: the succeeded ones teach how long their kind takes. */
export function noteFinished(serviceKey: string, jobs: readonly Job[]): void {
	for (const job of jobs) {
		const kind = kindOf(job);
		const ms = job.updatedAt - job.createdAt;
		if (job.state !== 'succeeded' || !kind || !(ms > 0)) continue;
		const kinds = processDurations.byKey.get(serviceKey) ?? new Map<string, Map<string, Sample>>();
		keepRecent(processDurations.byKey, serviceKey, kinds, ESTIMATE_MEMORY.maxKeys);
		const samples = kinds.get(kind) ?? new Map<string, Sample>();
		keepRecent(kinds, kind, samples, ESTIMATE_MEMORY.maxKinds);
		if (samples.has(job.id)) continue;
		samples.set(job.id, { ms, endedAt: job.updatedAt });
		if (samples.size <= ESTIMATE_MEMORY.samples) continue;
		let first: [string, Sample] | undefined;
		for (const entry of samples) if (!first || entry[1].endedAt < first[1].endedAt) first = entry;
		samples.delete(first![0]);
	}
}

function median(values: number[]): number {
	const sorted = [...values].sort((a, b) => a - b);
	const mid = Math.floor(sorted.length / 2);
	return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** Create's estimate of when its job ends, and from what. */
export interface Estimate {
	/** Seconds from the job's creation to its end. */
	estimatedSeconds: number;
	/** createdAt + estimatedSeconds, as an ISO date (n8n's Wait node: "At Specified Time"). */
	estimatedReadyAt: string;
	/** What the estimate is based on, in words. */
	estimatedFrom: string;
}

/**
 * The median duration of the last succeeded jobs of the same mode and duration this process saw on the
 * key (up to ESTIMATE_MEMORY.samples), else FALLBACK_ESTIMATE_SECONDS; a finished job: its own.
 */
export function estimateOf(serviceKey: string, job: Job): Estimate {
	const kind = kindOf(job);
	const mode = String(job.input?.mode ?? 'this mode');
	const seconds = Number(job.input?.durationSeconds ?? 5);
	let ms: number;
	let from: string;
	const samples = kind ? processDurations.byKey.get(serviceKey)?.get(kind) : undefined;
	if (isFinished(job)) {
		ms = Math.max(0, job.updatedAt - job.createdAt);
		from = `the job itself (${job.state})`;
	} else if (samples && samples.size > 0) {
		ms = median([...samples.values()].map((sample) => sample.ms));
		from = `the median of ${samples.size} recent ${mode} job(s) of ${seconds} s that succeeded on this account`;
	} else {
		ms = FALLBACK_ESTIMATE_SECONDS * 1000;
		from = `the default of ${FALLBACK_ESTIMATE_SECONDS} s: no ${mode} job of ${seconds} s seen finished by this n8n process yet`;
	}
	return {
		estimatedSeconds: Math.ceil(ms / 1000),
		estimatedReadyAt: new Date(job.createdAt + Math.ceil(ms / 1000) * 1000).toISOString(),
		estimatedFrom: from,
	};
}
