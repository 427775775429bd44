// One watcher per service key in this n8n process: every execution and batch waiting on jobs of the key
// is served by its looks — one list look per poll interval (a GET /jobs/{id} while a single job is
// followed), however many executions wait — and the same looks keep the key's recent-jobs view fresh
// for Create's look-up (recent.ts). Looks are sent with a follower's context but belong to none: a
// follower that is cancelled or times out leaves, and the next one sends. watcher.ts keeps the watchers.
import type { IExecuteFunctions } from 'n8n-workflow';

import type { ServiceTarget } from '../../transport';
import { cancelSignal, now, pacerFor, pause } from '../../transport';
import type { FollowOptions, Followed, Follower, FollowingRun, ViewWish } from './following';
import { cancelledError, patience, timeoutError } from './following';
import type { Job } from '../job';
import { MIN_POLL_MS, isFinished } from '../job';
import { lookAtList } from './looks';
import { readJob } from './reads';
import { grantWishes, lastLookAt } from './recent';

export class KeyWatcher {
	private readonly jobs = new Map<string, Followed>();
	private wishes: ViewWish[] = [];
	private running = false;
	/** More than one job was followed at once: looks read the list until the watcher stops. */
	private batch = false;
	/** A look for followers was made: the burst gathering of the first look is over. */
	private looked = false;
	private gatherUntil: number | undefined;
	private wake = new AbortController();

	constructor(
		private readonly service: ServiceTarget,
		/** Called once it stopped: nobody follows a job of its key or waits for its view. */
		private readonly onStop: (watcher: KeyWatcher) => void,
	) {}

	/** Joins: resolves with the job once it has ended; rejects on its own cancellation or timeout. */
	async follow(
		ctx: IExecuteFunctions,
		run: FollowingRun,
		jobId: string,
		options: FollowOptions,
		known?: Job,
	): Promise<Job> {
		return await new Promise<Job>((resolve, reject) => {
			const start = now();
			const signal = cancelSignal(ctx);
			const timer = new AbortController();
			const follower: Follower = {
				...options,
				ctx,
				run,
				jobId,
				dueAt: known ? start + options.intervalMs : start,
				deadline: start + options.timeoutMinutes * 60_000,
				settle: (outcome) => {
					timer.abort();
					signal?.removeEventListener('abort', onCancel);
					if ('job' in outcome) resolve(outcome.job);
					else reject(outcome.error);
				},
			};
			const onCancel = () => this.leave(follower, cancelledError(ctx, jobId, options.itemIndex));
			if (signal?.aborted) {
				reject(cancelledError(ctx, jobId, options.itemIndex));
				return;
			}
			signal?.addEventListener('abort', onCancel);
			// its own timeout (or answer time), also while looks are held back (e.g. by a long Retry-After)
			const endsAt = Math.min(follower.deadline, options.answerBy ?? Infinity);
			void pause(endsAt - start, timer.signal).then(() => {
				if (!timer.signal.aborted) this.end(follower);
			});
			const followed = this.jobs.get(jobId) ?? { followers: [] };
			if (known)
				Object.assign(followed, { createdAt: known.createdAt, state: known.state, last: known });
			followed.followers.push(follower);
			this.jobs.set(jobId, followed);
			this.poke();
		});
	}

	/** Waits for a list look sent at or after `wish.freshAfter`; resolves with the view since `wish.since`. */
	async want(wish: Omit<ViewWish, 'settle'>): Promise<Job[]> {
		return await new Promise<Job[]>((resolve, reject) => {
			const signal = cancelSignal(wish.ctx);
			const own: ViewWish = {
				...wish,
				settle: (outcome) => {
					signal?.removeEventListener('abort', onCancel);
					this.wishes = this.wishes.filter((w) => w !== own);
					if ('jobs' in outcome) resolve(outcome.jobs);
					else reject(outcome.error);
				},
			};
			const onCancel = () => {
				own.settle({ error: cancelledError(wish.ctx, undefined, wish.itemIndex) });
				this.poke();
			};
			if (signal?.aborted) {
				reject(cancelledError(wish.ctx, undefined, wish.itemIndex));
				return;
			}
			signal?.addEventListener('abort', onCancel);
			this.wishes.push(own);
			this.poke();
		});
	}

	/**
	 * A follower leaves (cancelled, timed out, answered at its answerBy, its run stopped): only it; the
	 * watcher goes on for the rest, and a job nobody follows any more is not looked at again.
	 */
	leave(follower: Follower, outcome: Error | 'answer'): void {
		const followed = this.jobs.get(follower.jobId);
		if (!followed || !followed.followers.includes(follower)) return;
		followed.followers = followed.followers.filter((f) => f !== follower);
		if (followed.followers.length === 0) this.jobs.delete(follower.jobId);
		if (outcome !== 'answer') follower.settle({ error: outcome });
		else
			follower.settle({
				job: followed.last ?? ({ id: follower.jobId, state: followed.state } as Job),
			});
		this.poke();
	}

	/** A follower's time is up: a tool call is answered with the job as last seen, others time out. */
	private end(follower: Follower): void {
		if (follower.answerBy !== undefined) return this.leave(follower, 'answer');
		const state = this.jobs.get(follower.jobId)?.state;
		this.leave(follower, timeoutError(follower.ctx, follower.jobId, follower, state));
	}

	/** The followers of a node run leave (the run failed early: its background work stops). */
	leaveRun(run: FollowingRun, errorOf: (follower: Follower) => Error): void {
		for (const follower of this.followers()) {
			if (follower.run === run) this.leave(follower, errorOf(follower));
		}
	}

	private followers(): Follower[] {
		return [...this.jobs.values()].flatMap((followed) => followed.followers);
	}

	private idle(): boolean {
		return this.jobs.size === 0 && this.wishes.length === 0;
	}

	/** Something changed (a join, a leave, a wish): the loop looks at its schedule again. */
	private poke(): void {
		if (!this.running) {
			this.running = true;
			void this.run();
			return;
		}
		this.wake.abort();
	}

	/** When the next look is due: the earliest follower's, or for a wish one interval after the last list look. */
	private nextLookAt(): number {
		const followersDue = Math.min(...this.followers().map((f) => f.dueAt));
		const viewDue =
			this.wishes.length > 0
				? Math.max(lastLookAt(this.service.serviceKey) + MIN_POLL_MS, now())
				: Infinity;
		return Math.min(followersDue, viewDue);
	}

	/**
	 * Reserves room in the key's rate window for the next look (a 'poll' request) at `at` (undefined: no
	 * more looks, the room is released), so that creates and transfers never take the window's last
	 * request while it is due: every job is seen within one interval.
	 */
	private reserve(at: number | undefined): void {
		const pacer = pacerFor(this.service.serviceKey, this.service.baseUrl);
		if (at === undefined || !Number.isFinite(at)) pacer.release(this);
		else pacer.reserve(this, at, 'poll');
	}

	private async sleepUntil(at: number): Promise<void> {
		this.wake = new AbortController();
		await pause(at - now(), this.wake.signal);
	}

	private async run(): Promise<void> {
		try {
			this.reserve(this.nextLookAt()); // before the run's next items are sent
			await pause(1); // a timer tick: the other items and executions of this moment join first
			while (!this.idle()) {
				const at = this.nextLookAt();
				this.reserve(at);
				if (at > now()) {
					await this.sleepUntil(at);
					continue;
				}
				if (this.wishes.length === 0 && (await this.gatherBurst(at))) continue;
				await this.look();
			}
		} finally {
			this.running = false;
			this.reserve(undefined);
			this.onStop(this);
		}
	}

	/**
	 * The first look waits for the jobs created just after the first one (a burst of creates), at most one
	 * poll interval more: jobs created a moment apart end a moment apart, and a look due one interval after
	 * the first create would come just before the last ones end and see them one interval late. Later
	 * looks keep the rhythm the first one set. True when it waited (the schedule is looked at again).
	 */
	private async gatherBurst(firstDue: number): Promise<boolean> {
		if (this.looked) return false;
		const first = this.followers().find((f) => f.dueAt === firstDue);
		this.gatherUntil ??= firstDue + (first?.intervalMs ?? MIN_POLL_MS);
		const at = now();
		const later = this.followers()
			.map((f) => f.dueAt)
			.filter((due) => due > at && due <= (this.gatherUntil as number));
		if (later.length === 0) return false;
		this.reserve(Math.max(...later));
		await this.sleepUntil(Math.max(...later));
		return true;
	}

	/** The context a look is sent with: the longest-waiting follower's, else the first wish's. */
	private sender(): { ctx: IExecuteFunctions; itemIndex: number } {
		return this.followers()[0] ?? this.wishes[0];
	}

	private async look(): Promise<void> {
		const sender = this.sender();
		const ids = [...this.jobs.keys()];
		const wishes = [...this.wishes];
		const forView = wishes.length > 0;
		// a batch stays on the list to its end (also when one job is left, or when its jobs come one at a
		// time): one request per look either way
		this.batch ||= ids.length > 1;
		const batch = this.batch || this.followers().some((f) => f.run.batch);
		const request = {
			itemIndex: sender.itemIndex,
			maxWaitSeconds: patience([...this.followers(), ...wishes].map((p) => p.maxWaitSeconds)),
		};
		try {
			let seen: Job[];
			if (!batch && !forView) {
				seen = [await readJob(sender.ctx, ids[0], request)];
			} else {
				const followed = new Map(ids.map((id) => [id, this.jobs.get(id)?.createdAt]));
				const since = forView ? Math.min(...wishes.map((w) => w.since)) : undefined;
				const stillFollowed = (id: string) => this.jobs.has(id);
				seen = await lookAtList(sender.ctx, { ...request, followed, since, stillFollowed });
			}
			if (ids.length > 0) this.looked = true;
			for (const job of seen) this.update(job);
			// the next look one interval after this one's answer: the service counts the 5 s between reads
			// of a job from the previous answer, and readJob reuses an answer younger than that
			this.reschedule(now());
			grantWishes(this.service.serviceKey, this.wishes, wishes);
		} catch (error) {
			// its execution was cancelled (it left): the next follower looks again at once
			if (cancelSignal(sender.ctx)?.aborted) return;
			this.failAll(error as Error);
		}
	}

	private update(job: Job): void {
		const followed = this.jobs.get(job.id);
		if (!followed) return;
		followed.createdAt = job.createdAt;
		followed.last = job;
		if (job.state !== followed.state) {
			followed.followers[0]?.ctx.logger.info(
				`Generation Service job ${job.id}: ${followed.state ? `${followed.state} → ` : ''}${job.state}`,
				{ jobId: job.id, state: job.state },
			);
			followed.state = job.state;
		}
		if (!isFinished(job)) return;
		this.jobs.delete(job.id);
		for (const follower of followed.followers) follower.settle({ job });
	}

	/** After a look: the next one an interval later; followers past their timeout leave, naming the job. */
	private reschedule(lookedAt: number): void {
		const at = now();
		for (const follower of this.followers()) {
			follower.dueAt = lookedAt + follower.intervalMs;
			if (at + follower.intervalMs > follower.deadline) this.end(follower);
		}
	}

	/** A look failed for good (refused key, a wait beyond Max Rate-Limit Wait, …): everyone fails with it. */
	private failAll(error: Error): void {
		for (const follower of this.followers()) this.leave(follower, error);
		for (const wish of [...this.wishes]) wish.settle({ error });
	}
}
