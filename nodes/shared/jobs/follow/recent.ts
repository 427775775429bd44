// The recent jobs of each key as this n8n process last saw them: what Create's "Reuse Identical Recent
// Job" looks through, shared by every execution of the process instead of one GET /jobs per create. Fed
// by the key's list looks (the process-wide watcher's, keyWatcher.ts) and by every job answer the
// process gets (rememberJobs in reads.ts: its own creates, reads and lists).
import type { ViewWish } from './following';
import type { Job } from '../job';
import { processStore } from '../../processState';

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
	/** …created after this createdAt (service clock), where that look stopped; -Infinity: the list's end. */
	reachedBack: number;
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
	const { views } = processRecentJobs;
	views.delete(serviceKey); // re-insert: the map stays in order of last use
	views.set(serviceKey, view);
	while (views.size > RECENT_JOBS_MEMORY.maxViews) {
		views.delete(views.keys().next().value as string);
	}
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
	return known.state !== 'succeeded' && known.state !== 'failed';
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
export function noteJobs(serviceKey: string, jobs: readonly Job[], at: number): void {
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
		lookedAt: -Infinity,
		uncertainAt: -Infinity,
	};
	touch(serviceKey, view);
	view.lookedAt = Math.max(view.lookedAt, look.answeredAt);
	if (look.sentAt >= view.freshAt) {
		// (an older look answered late tells only its states)
		const last = look.jobs[look.jobs.length - 1];
		view.freshAt = look.sentAt;
		view.reachedBack = look.reachedEnd || !last ? -Infinity : last.createdAt;
	}
	merge(view, look.jobs, look.sentAt, true);
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

/**
 * Wishes for the view (adoption.ts) a list look answered: every wish whose `freshAfter` the last list look
 * meets, when it reached back past the wish's `since` — and the wishes it was made for (`asked`) in any
 * case, with what it could read (at most MAX_VIEW_PAGES pages). `wishes` is read as it is now (a wish
 * removes itself from its watcher's list as it settles).
 */
export function grantWishes(
	serviceKey: string,
	wishes: readonly ViewWish[],
	asked: readonly ViewWish[],
): void {
	const view = viewOf(serviceKey);
	if (!view) return;
	for (const wish of [...wishes]) {
		if (view.freshAt < wish.freshAfter) continue;
		const covered = recentSince(serviceKey, wish.since, wish.freshAfter);
		if (covered) wish.settle({ jobs: covered });
		else if (asked.includes(wish)) wish.settle({ jobs: jobsSince(view, wish.since) });
	}
}
