// Follows the unfinished jobs of node runs until each ends. The looks are made by one process-wide
// watcher per service key (keyWatcher.ts), shared by every execution of this n8n process that waits on
// jobs of the key; a node run knows it only through its JobFollower (RunWatcher).
import type { IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import type { ServiceTarget } from '../../transport';
import { resolveService } from '../../transport';
import type { FollowOptions, FollowingRun } from './following';
import type { Job } from '../job';
import { isFinished } from '../job';
import { KeyWatcher } from './keyWatcher';
import { recentSince } from './recent';
import { processStore } from '../../processState';

export type { FollowOptions } from './following';

/**
 * What follows a run's unfinished jobs until each ends: all the rest of the domain knows of the watcher
 * (one RunWatcher per node run, joining the process-wide watcher of its key).
 */
export interface JobFollower {
	/**
	 * Resolves with the job once it has succeeded or failed (or at `answerBy`, as last seen); `known`:
	 * what the caller already read.
	 */
	follow(jobId: string, options: FollowOptions, known?: Job): Promise<Job>;
	/** The node run ended early: its jobs are no longer followed for it. */
	stop(): void;
}

/**
 * Module state on purpose: one watcher per service key that someone in the process follows a job of or
 * waits for the recent-jobs view of. Bounded by the keys in use at once: a watcher is removed as soon as
 * nobody follows or waits (KeyWatcher's onStop), and each holds only its current followers and wishes.
 */
export const processWatchers = processStore('watchers', new Map<string, KeyWatcher>(), (map) =>
	map.clear(),
);

/** The key's watcher (created on first use; synchronous, so a join never finds one that just stopped). */
function watcherFor(service: ServiceTarget): KeyWatcher {
	let watcher = processWatchers.get(service.serviceKey);
	if (!watcher) {
		watcher = new KeyWatcher(service, (stopped) => {
			if (processWatchers.get(service.serviceKey) === stopped) {
				processWatchers.delete(service.serviceKey);
			}
		});
		processWatchers.set(service.serviceKey, watcher);
	}
	return watcher;
}

/** Follows a job with the process-wide watcher of its key (see KeyWatcher.follow). */
export async function followJob(
	ctx: IExecuteFunctions,
	run: FollowingRun,
	jobId: string,
	options: FollowOptions,
	known?: Job,
): Promise<Job> {
	if (known && isFinished(known)) return known;
	const service = await resolveService(ctx, options.itemIndex);
	return await watcherFor(service).follow(ctx, run, jobId, options, known);
}

/**
 * The key's recent jobs created since `since`, newest first, from a list look sent at or after
 * `freshAfter`: the view at once when it is that fresh, else the watcher's next look (at most one list
 * look per interval for the key, shared with the followers' looks).
 */
export async function recentJobsOf(
	ctx: IExecuteFunctions,
	wish: { since: number; freshAfter: number; itemIndex: number; maxWaitSeconds?: number },
): Promise<Job[]> {
	const service = await resolveService(ctx, wish.itemIndex);
	const ready = recentSince(service.serviceKey, wish.since, wish.freshAfter);
	if (ready) return ready;
	return await watcherFor(service).want({ ctx, ...wish });
}

/** One node run's side of the process-wide watchers: its followers join them, and leave when it stops. */
export class RunWatcher implements JobFollower, FollowingRun {
	private stopped = false;
	private follows = 0;

	constructor(private readonly ctx: IExecuteFunctions) {}

	/** More than one job of this run was followed: its looks read the list until its last job ends. */
	get batch(): boolean {
		return this.follows > 1;
	}

	async follow(jobId: string, options: FollowOptions, known?: Job): Promise<Job> {
		if (this.stopped) throw this.stoppedError(jobId, options.itemIndex);
		this.follows++;
		return await followJob(this.ctx, this, jobId, options, known);
	}

	/** The node run ended early (an item failed): its followers leave; the others' looks go on. */
	stop(): void {
		this.stopped = true;
		for (const watcher of [...processWatchers.values()]) {
			watcher.leaveRun(this, (follower) => this.stoppedError(follower.jobId, follower.itemIndex));
		}
	}

	private stoppedError(jobId: string, itemIndex: number): Error {
		return new NodeOperationError(
			this.ctx.getNode(),
			`The node run stopped while waiting for job ${jobId}. The job keeps running on the service and is not lost: use "Get" or "Wait for Job" with job ID ${jobId} later.`,
			{ itemIndex },
		);
	}
}
