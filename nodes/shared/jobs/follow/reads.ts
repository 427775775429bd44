// Reads of a job, shared by every node run of this n8n process: one job is read at most once per 5 s.
import { asNodeError } from '../../settle';
import type { ServiceContext } from '../../transport';
import { apiRequest, cancelSignal, now, resolveService, wait } from '../../transport';
import { noteFinished } from './estimate';
import type { Job } from '../job';
import { MIN_POLL_MS, isFinished } from '../job';
import { noteJobs } from './recent';
import { processStore } from '../../processState';

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

function keyOf(serviceKey: string, jobId: string): string {
	return `${serviceKey}|${jobId}`;
}

/** Records jobs the service just described (creation answers, list pages, reads). */
export async function rememberJobs(ctx: ServiceContext, jobs: Job[]): Promise<void> {
	const { serviceKey } = await resolveService(ctx);
	const at = now();
	const { answers } = processJobReads;
	for (const job of jobs) {
		const key = keyOf(serviceKey, job.id);
		answers.delete(key); // re-insert: the map stays in order of last answer
		answers.set(key, { job, at });
		processJobReads.unsure.delete(key);
	}
	noteJobs(serviceKey, jobs, at);
	noteFinished(serviceKey, jobs);
	processJobReads.addedSinceSweep += jobs.length;
	if (
		processJobReads.addedSinceSweep >= JOB_READS_MEMORY.sweepEveryAdds ||
		at - processJobReads.sweptAt >= JOB_READS_MEMORY.sweepEveryMs
	) {
		sweepAnswers(at);
	}
	while (answers.size > JOB_READS_MEMORY.maxAnswers) {
		answers.delete(answers.keys().next().value as string);
	}
}

/** When this process may read the job again without breaking the 5 s rule (0: now). */
export async function nextReadAt(ctx: ServiceContext, jobId: string): Promise<number> {
	const { serviceKey } = await resolveService(ctx);
	const key = keyOf(serviceKey, jobId);
	const known = processJobReads.answers.get(key);
	return Math.max(known ? known.at + MIN_POLL_MS : 0, unsureUntil(key));
}

/** The end of the 5 s after a read of the job whose answer was lost to a cancellation (0: none). */
function unsureUntil(key: string): number {
	const sentAt = processJobReads.unsure.get(key);
	return sentAt === undefined ? 0 : sentAt + MIN_POLL_MS;
}

/**
 * GET /jobs/{id}, or the answer this process got less than 5 s ago (or any time for a finished job).
 * `fresh`: the caller polls and has waited its interval, so a finished answer is the only one reused
 * beyond the 5 s.
 */
export async function readJob(
	ctx: ServiceContext,
	jobId: string,
	options: { itemIndex?: number; maxWaitSeconds?: number },
): Promise<Job> {
	const { serviceKey } = await resolveService(ctx, options.itemIndex);
	const key = keyOf(serviceKey, jobId);
	const pending = processJobReads.pending.get(key);
	if (pending) {
		try {
			return await pending;
		} catch {
			// the read it joined failed (e.g. its execution was cancelled): try on its own
		}
	}
	const known = processJobReads.answers.get(key);
	if (known && (isFinished(known.job) || now() - known.at < MIN_POLL_MS)) return known.job;
	// a read another execution sent and then lost to its cancellation may have reached the service
	await wait(ctx, unsureUntil(key) - now(), options.itemIndex, 'waiting to read a job');
	const sentAt = now();
	const request = apiRequest<Job>(ctx, {
		method: 'GET',
		path: `/jobs/${jobId}`,
		itemIndex: options.itemIndex,
		maxWaitSeconds: options.maxWaitSeconds,
		priority: 'poll',
	}).then(
		(job) => job,
		// marked before anyone who joined this read tries on their own
		async (error: unknown) => {
			if (cancelSignal(ctx)?.aborted) markUnsure(key, sentAt);
			throw asNodeError(ctx.getNode(), error, options.itemIndex);
		},
	);
	processJobReads.pending.set(key, request);
	try {
		const job = await request;
		await rememberJobs(ctx, [job]);
		return job;
	} finally {
		if (processJobReads.pending.get(key) === request) processJobReads.pending.delete(key);
	}
}

/** A read cut off by its execution's cancellation: the next one waits 5 s from when it was sent. */
function markUnsure(key: string, sentAt: number): void {
	const { unsure } = processJobReads;
	unsure.set(key, sentAt);
	while (unsure.size > JOB_READS_MEMORY.maxAnswers) {
		unsure.delete(unsure.keys().next().value as string);
	}
}
