// What the process-wide watcher (keyWatcher.ts) serves: followers, each one node run's wait for one job,
// and wishes for the recent-jobs view; and the errors a follower leaves with.
import type { IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { RETRY_POLICY } from '../../transport';
import type { Job } from '../job';

export interface FollowOptions {
	itemIndex: number;
	intervalMs: number;
	timeoutMinutes: number;
	maxWaitSeconds?: number;
	/**
	 * A caller that must answer by then (a tool call): at that time it gets the job as last seen, even
	 * unfinished, and leaves (the job is no longer followed for it); an answer, never a timeout error.
	 */
	answerBy?: number;
}

/** A follower's cancellation (its execution was cancelled): the job, if any, keeps running. */
export function cancelledError(
	ctx: IExecuteFunctions,
	jobId: string | undefined,
	itemIndex: number,
) {
	const error = new NodeOperationError(
		ctx.getNode(),
		jobId
			? `The execution was cancelled while waiting for job ${jobId}. The job keeps running on the service and is not lost: use "Get" or "Wait for Job" with job ID ${jobId} later.`
			: 'The execution was cancelled while looking for a recent identical job; nothing was created.',
		{ itemIndex },
	);
	if (jobId) error.context.jobId = jobId;
	return error;
}

/** A follower's timeout: the job keeps running. */
export function timeoutError(
	ctx: IExecuteFunctions,
	jobId: string,
	follower: Pick<FollowOptions, 'itemIndex' | 'timeoutMinutes'>,
	state: string | undefined,
) {
	const error = new NodeOperationError(
		ctx.getNode(),
		`Job ${jobId} has not finished after ${follower.timeoutMinutes} min (state: ${state ?? 'unknown'}). It keeps running on the service and is not lost: use "Get" or "Wait for Job" with job ID ${jobId} later.`,
		{ itemIndex: follower.itemIndex },
	);
	error.context.errorCode = 'wait_timeout';
	error.context.jobId = jobId;
	return error;
}

/** The node run a follower belongs to. */
export interface FollowingRun {
	/** It followed more than one job: its looks read the list until its last job ends. */
	readonly batch: boolean;
}

/** One node run's wait for one job; it settles its own promise (end, cancel, timeout). */
export interface Follower extends FollowOptions {
	ctx: IExecuteFunctions;
	/** The node run it belongs to (leaveRun; a batch's looks stay on the list). */
	run: FollowingRun;
	jobId: string;
	dueAt: number;
	deadline: number;
	settle: (outcome: { job: Job } | { error: Error }) => void;
}

export interface Followed {
	createdAt?: number;
	state?: string;
	/** The job as last read (or as a follower knew it), for a follower answered at its answerBy. */
	last?: Job;
	followers: Follower[];
}

/** A run's wish for the recent-jobs view (adoption.ts): a list look sent at or after `freshAfter`. */
export interface ViewWish {
	ctx: IExecuteFunctions;
	itemIndex: number;
	maxWaitSeconds?: number;
	since: number;
	freshAfter: number;
	settle: (outcome: { jobs: Job[] } | { error: Error }) => void;
}

/** A look serves everyone waiting on it: it accepts the longest Max Rate-Limit Wait among them. */
export function patience(values: Array<number | undefined>): number {
	return Math.max(...values.map((v) => v ?? RETRY_POLICY.defaultMaxWaitSeconds));
}
