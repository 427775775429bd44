// Follows the unfinished jobs of one node run until each ends: one GET /jobs page per interval for a
// batch, a plain GET /jobs/{id} for a lone job.
import type { IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import type { Page } from '../transport';
import { apiRequest, now, pause, releaseRoom, reserveRoom, wait } from '../transport';
import type { Job } from './job';
import { isFinished } from './job';
import { readJob, rememberJobs } from './reads';

export interface FollowOptions {
	itemIndex: number;
	intervalMs: number;
	timeoutMinutes: number;
	maxWaitSeconds?: number;
	/**
	 * A caller that must answer by then (a tool call): at that time it gets the job as last seen, even
	 * unfinished, and the job is no longer followed for it; no timeout error then.
	 */
	answerBy?: number;
}

interface Follower extends FollowOptions {
	dueAt: number;
	deadline: number;
	resolve: (job: Job) => void;
	reject: (error: Error) => void;
}

interface Followed {
	createdAt?: number;
	state?: string;
	/** The job as last read (or as the caller knew it). */
	last?: Job;
	followers: Follower[];
}

const PAGE_SIZE = 100;

/**
 * What follows a run's unfinished jobs until each ends: all the rest of the domain knows of the watcher
 * (today one JobWatcher per node run).
 */
export interface JobFollower {
	/**
	 * Resolves with the job once it has succeeded or failed (or at `answerBy`, as last seen); `known`:
	 * what the caller already read.
	 */
	follow(jobId: string, options: FollowOptions, known?: Job): Promise<Job>;
	/** The node run ended early: send nothing more. */
	stop(): void;
}

export class JobWatcher implements JobFollower {
	private readonly jobs = new Map<string, Followed>();
	private running = false;
	private stopped = false;
	/** More than one job was followed at once: looks read the list from then on. */
	private batch = false;

	constructor(private readonly ctx: IExecuteFunctions) {}

	/**
	 * Resolves with the job once it has succeeded or failed, or at `options.answerBy` with the job as last
	 * seen. `known` is what the caller already read (e.g. the creation answer): the first look comes one
	 * interval after it.
	 */
	async follow(jobId: string, options: FollowOptions, known?: Job): Promise<Job> {
		if (known && isFinished(known)) return known;
		const bound = new AbortController(); // ends the wait for answerBy once the follower is settled
		return await new Promise<Job>((resolve, reject) => {
			const start = now();
			const followed = this.jobs.get(jobId) ?? { followers: [] };
			if (known) {
				followed.createdAt = known.createdAt;
				followed.state = known.state;
				followed.last = known;
			}
			const follower: Follower = {
				...options,
				dueAt: known ? start + options.intervalMs : start,
				deadline:
					options.answerBy === undefined ? start + options.timeoutMinutes * 60_000 : Infinity,
				resolve: (job) => {
					bound.abort();
					resolve(job);
				},
				reject: (error) => {
					bound.abort();
					reject(error);
				},
			};
			followed.followers.push(follower);
			if (options.answerBy !== undefined) {
				void pause(options.answerBy - start, bound.signal).then((due) => {
					if (due) this.answerNow(jobId, follower);
				});
			}
			this.jobs.set(jobId, followed);
			if (!this.running) {
				this.running = true;
				// before the run's next items are sent: the window keeps room for this look
				this.announce(
					Math.min(...[...this.jobs.values()].flatMap((j) => j.followers.map((f) => f.dueAt))),
				);
				void this.run().finally(() => {
					this.running = false;
				});
			}
		});
	}

	/**
	 * A follower's time to answer came (answerBy): it gets the job as last seen and is dropped; a job
	 * nobody follows any more is not looked at again.
	 */
	private answerNow(jobId: string, follower: Follower): void {
		const followed = this.jobs.get(jobId);
		if (!followed?.followers.includes(follower)) return;
		followed.followers = followed.followers.filter((f) => f !== follower);
		if (followed.followers.length === 0) this.jobs.delete(jobId);
		follower.resolve(followed.last ?? ({ id: jobId, state: followed.state } as Job));
	}

	/** The node run ended early (an item failed): stop looking, send nothing more. */
	stop(): void {
		this.stopped = true;
		this.announce(undefined);
	}

	/**
	 * Reserves room in the key's rate window for the next look (a 'poll' request) at `at` (undefined: no
	 * more looks, the room is released), so that creates and transfers never take the window's last
	 * request while it is due: every job is seen within one interval.
	 */
	private announce(at: number | undefined): void {
		const told =
			at === undefined ? releaseRoom(this.ctx, this) : reserveRoom(this.ctx, this, at, 'poll');
		told.catch(() => undefined); // a credential problem is reported by the look itself
	}

	private async run(): Promise<void> {
		try {
			await this.lookUntilDone();
		} finally {
			this.announce(undefined);
		}
	}

	private async lookUntilDone(): Promise<void> {
		let started = false;
		let looked = false;
		while (this.jobs.size > 0 && !this.stopped) {
			const followers = [...this.jobs.values()].flatMap((j) => j.followers);
			const first = followers[0];
			try {
				if (!started) {
					started = true;
					await wait(this.ctx, 1, first.itemIndex); // a timer tick: the run's other items register first
					continue;
				}
				const dueAt = Math.min(...followers.map((f) => f.dueAt));
				this.announce(dueAt);
				await wait(this.ctx, dueAt - now(), first.itemIndex, 'waiting for a job to finish');
				if (!looked) await this.gatherBurst(dueAt, first);
				// stopped, or every follower answered meanwhile (answerBy): no look
				if (this.stopped || this.jobs.size === 0) return;
				looked = true;
				const ids = [...this.jobs.keys()];
				// a batch stays on the list to its end (also when one job is left): one request per look either way
				this.batch ||= ids.length > 1;
				if (!this.batch) this.update(await readJob(this.ctx, ids[0], first));
				else await this.readBatch(ids, first);
				// the next look one interval after this one's answer: the service counts the 5 s between reads
				// of a job from the previous answer, and readJob reuses an answer younger than that
				this.reschedule(now());
			} catch (error) {
				this.failAll(error as Error);
				return;
			}
		}
	}

	/**
	 * The first look waits for the jobs created just after the first one (a burst of creates), at most one
	 * poll interval more: jobs created a moment apart end a moment apart, and a look due one interval after
	 * the first create would come just before the last ones end and see them one interval late. Later
	 * looks keep the rhythm the first one set.
	 */
	private async gatherBurst(firstDue: number, first: Follower): Promise<void> {
		const latest = firstDue + first.intervalMs;
		for (;;) {
			const at = now();
			const later = [...this.jobs.values()]
				.flatMap((j) => j.followers)
				.map((f) => f.dueAt)
				.filter((due) => due > at && due <= latest);
			if (later.length === 0 || this.stopped) return;
			this.announce(Math.max(...later));
			await wait(this.ctx, Math.max(...later) - at, first.itemIndex, 'waiting for a job to finish');
		}
	}

	/**
	 * One list read tells the state of a whole batch: pages newest first, only as far as needed to see
	 * every job still followed; a job the pages did not show is read by its own GET.
	 */
	private async readBatch(ids: string[], first: Follower): Promise<void> {
		const unseen = new Set(ids);
		const maxPages = Math.ceil(ids.length / PAGE_SIZE) + 1;
		let cursor: string | null = null;
		for (let pages = 1; ; pages++) {
			const qs: Record<string, string | number> = { limit: PAGE_SIZE };
			if (cursor) qs.cursor = cursor;
			const page: Page<Job> = await apiRequest<Page<Job>>(this.ctx, {
				method: 'GET',
				path: '/jobs',
				qs,
				itemIndex: first.itemIndex,
				maxWaitSeconds: first.maxWaitSeconds,
				priority: 'poll',
			});
			await rememberJobs(this.ctx, page.items);
			for (const job of page.items) {
				if (unseen.delete(job.id)) this.update(job);
			}
			const last = page.items[page.items.length - 1];
			const oldestWanted = Math.min(...[...unseen].map((id) => this.jobs.get(id)?.createdAt ?? -1));
			const passedThem = last !== undefined && oldestWanted >= 0 && last.createdAt < oldestWanted;
			if (unseen.size === 0 || !page.nextCursor || passedThem || pages >= maxPages) break;
			cursor = page.nextCursor;
		}
		for (const id of unseen) {
			if (this.jobs.has(id)) this.update(await readJob(this.ctx, id, first));
		}
	}

	private update(job: Job): void {
		const followed = this.jobs.get(job.id);
		if (!followed) return;
		followed.createdAt = job.createdAt;
		followed.last = job;
		if (job.state !== followed.state) {
			this.ctx.logger.info(
				`Generation Service job ${job.id}: ${followed.state ? `${followed.state} → ` : ''}${job.state}`,
				{ jobId: job.id, state: job.state },
			);
			followed.state = job.state;
		}
		if (!isFinished(job)) return;
		this.jobs.delete(job.id);
		for (const follower of followed.followers) follower.resolve(job);
	}

	/** After a look: the next one an interval later; followers past their timeout fail, naming the job. */
	private reschedule(lookedAt: number): void {
		const at = now();
		for (const [jobId, followed] of this.jobs) {
			followed.followers = followed.followers.filter((follower) => {
				follower.dueAt = lookedAt + follower.intervalMs;
				if (at + follower.intervalMs <= follower.deadline) return true;
				const error = new NodeOperationError(
					this.ctx.getNode(),
					`Job ${jobId} has not finished after ${follower.timeoutMinutes} min (state: ${followed.state ?? 'unknown'}). It keeps running on the service and is not lost: use "Get" or "Wait for Job" with job ID ${jobId} later.`,
					{ itemIndex: follower.itemIndex },
				);
				error.context.errorCode = 'wait_timeout';
				error.context.jobId = jobId;
				follower.reject(error);
				return false;
			});
			if (followed.followers.length === 0) this.jobs.delete(jobId);
		}
	}

	/** A look failed for good (refused key, cancellation, …): every follower fails, naming its job. */
	private failAll(error: Error): void {
		for (const [jobId, followed] of this.jobs) {
			for (const follower of followed.followers) {
				const own: Error =
					error instanceof NodeOperationError && /cancelled/.test(error.message)
						? new NodeOperationError(
								this.ctx.getNode(),
								`The execution was cancelled while waiting for job ${jobId}. The job keeps running on the service and is not lost: use "Get" or "Wait for Job" with job ID ${jobId} later.`,
								{ itemIndex: follower.itemIndex },
							)
						: error;
				if (own instanceof NodeOperationError && own !== error) own.context.jobId = jobId;
				follower.reject(own);
			}
		}
		this.jobs.clear();
	}
}
