// Every look this n8n process sends at a key's jobs — one idea, in two sizes:
// - the read of one job (readJob): never more often than every 5 s for a job, however many node runs ask
//   (an answer younger than that, or any answer of a finished job, is reused; overlapping reads share one
//   request). Get, Download Output and the Trigger read a job this way, and so does the watcher below;
// - the watcher: one per service key, making the looks for every execution that waits on the key's jobs —
//   one list look per poll interval (the job list's pages as far as needed, then a read of each followed job
//   they did not show; a lone job is read by readJob; deeper pages instead of reads when the process often
//   asks for jobs it knows nothing of, e.g. executions resumed one by one: ASK_WALK), however many executions
//   wait — and the same looks keep
//   the key's recent-jobs view (known.ts) fresh for Create's look-up of a recent identical job. Looks are
//   sent with a follower's context but belong to none: a follower that is cancelled or times out leaves, and
//   the next one sends. A node run joins them with followJob and leaves them with stopFollowing.
// What the looks learn is kept in known.ts, which never sends.
import type { IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { keepRecent, processStore, sharedRead } from '../processState';
import { PAGE_SIZE, RETRY_POLICY, apiRequest, listPages } from '../service/client';
import { asNodeError } from '../service/errors';
import { pacerFor } from '../service/pacing';
import type { ServiceContext, ServiceTarget } from '../service/service';
import { cancelSignal, now, pause, resolveService, wait } from '../service/service';
import type { Job } from './job';
import { MIN_POLL_MS, isFinished } from './job';
import {
	jobKey,
	lastLookAt,
	markUnsure,
	noteListLook,
	processJobReads,
	recentSince,
	rememberJobs,
	reusableAnswer,
	unsureUntil,
	viewOf,
	jobsSince,
	viewFloor,
} from './known';

// ---- Who waits: followers of a job, wishes for the recent-jobs view ----

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
function cancelledError(ctx: IExecuteFunctions, jobId: string | undefined, itemIndex: number) {
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
function timeoutError(
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

/**
 * The node run a follower belongs to (the Job node's JobRun): how many jobs it followed (more than one: a
 * batch, whose looks read the list until its last job ends), and whether it stopped (stopFollowing).
 */
export interface FollowingRun {
	followed: number;
	stopped: boolean;
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

/** A run's wish for the recent-jobs view (reuse.ts): a list look sent at or after `freshAfter`. */
export interface ViewWish {
	ctx: IExecuteFunctions;
	itemIndex: number;
	maxWaitSeconds?: number;
	since: number;
	freshAfter: number;
	settle: (outcome: { jobs: Job[] } | { error: Error }) => void;
}

/** A look serves everyone waiting on it: it accepts the longest Max Rate-Limit Wait among them. */
function patience(values: Array<number | undefined>): number {
	return Math.max(...values.map((v) => v ?? RETRY_POLICY.defaultMaxWaitSeconds));
}

// ---- Reads of one job: at most one per 5 s in the process ----

/**
 * GET /jobs/{id}, or the answer this process got less than 5 s ago (or any time for a finished job); reads of
 * one job that overlap share one request.
 */
export async function readJob(
	ctx: ServiceContext,
	jobId: string,
	options: { itemIndex?: number; maxWaitSeconds?: number },
): Promise<Job> {
	const { serviceKey } = await resolveService(ctx, options.itemIndex);
	const reusable = reusableAnswer(serviceKey, jobId);
	if (reusable) return reusable;
	const key = jobKey(serviceKey, jobId);
	return await sharedRead(processJobReads.pending, key, async () => {
		// a read another execution sent and then lost to its cancellation may have reached the service
		await wait(ctx, unsureUntil(key) - now(), options.itemIndex, 'waiting to read a job');
		const sentAt = now();
		let job: Job;
		try {
			job = await apiRequest<Job>(ctx, {
				method: 'GET',
				path: `/jobs/${jobId}`,
				itemIndex: options.itemIndex,
				maxWaitSeconds: options.maxWaitSeconds,
				priority: 'poll',
			});
		} catch (error) {
			// marked before anyone who joined this read reads on their own
			if (cancelSignal(ctx)?.aborted) markUnsure(key, sentAt);
			throw asNodeError(ctx.getNode(), error, options.itemIndex);
		}
		await rememberJobs(ctx, [job]);
		return job;
	});
}

// ---- A look: the job list as far as needed, then the followed jobs it did not show ----

/** Pages a look reads at most for the recent-jobs view (the look-back of Reuse Identical Recent Job). */
export const MAX_VIEW_PAGES = 10;

export interface LookRequest {
	/** The followed jobs, with their createdAt where known: pages stop once past the oldest unseen. */
	followed: ReadonlyMap<string, number | undefined>;
	/** For the recent-jobs view: read back past this createdAt (up to MAX_VIEW_PAGES). */
	since?: number;
	itemIndex: number;
	maxWaitSeconds?: number;
	/** Whether a job is still followed when the pages are read (its followers may have left meanwhile). */
	stillFollowed: (jobId: string) => boolean;
	/**
	 * Pages the look may walk for followed jobs nobody has shown (ASK_WALK), when more than its usual: one
	 * per hundred followed jobs, and one more. Past them, a page more only while more of them are unseen
	 * than the pages added (lookAtList).
	 */
	walkPages?: number;
}

/**
 * The job list's pages, newest first, as far as the request needs; the followed jobs the pages did not
 * show are read by their own GET. Every job seen is remembered (rememberJobs), and the list look is
 * noted for the key's recent-jobs view (noteListLook). Returns the followed jobs it saw.
 */
async function lookAtList(ctx: IExecuteFunctions, request: LookRequest): Promise<Job[]> {
	const { followed, since, itemIndex, maxWaitSeconds, stillFollowed } = request;
	const { serviceKey } = await resolveService(ctx, itemIndex);
	const unseen = new Set(followed.keys());
	const seen: Job[] = [];
	const listed: Job[] = [];
	const maxFollowPages = Math.max(Math.ceil(followed.size / PAGE_SIZE) + 1, request.walkPages ?? 0);
	// the view has every job created before this (viewFloor): the pages for it stop there
	const floor = since === undefined ? -Infinity : Math.max(since, viewFloor(serviceKey));
	const sentAt = now();
	let answeredAt = sentAt;
	let reachedEnd = false;
	let pages = 0;
	const list = {
		method: 'GET' as const,
		path: '/jobs',
		itemIndex,
		maxWaitSeconds,
		priority: 'poll' as const,
	};
	for await (const page of listPages<Job>(ctx, list)) {
		if (++pages === 1) answeredAt = now();
		await rememberJobs(ctx, page.items);
		listed.push(...page.items);
		for (const job of page.items) {
			if (unseen.delete(job.id)) seen.push(job);
		}
		const last = page.items[page.items.length - 1];
		reachedEnd = !page.nextCursor || !last;
		if (reachedEnd) break;
		const oldestWanted = Math.min(...[...unseen].map((id) => followed.get(id) ?? -1));
		const passedThem = oldestWanted >= 0 && last.createdAt < oldestWanted;
		// past its pages, a page more while more followed jobs are unseen than the pages it added: each would
		// be a read of its own (at most MAX_VIEW_PAGES; so a walk never costs more than twice their reads)
		const added = pages - maxFollowPages;
		const worthAPage = added < 0 || (added < unseen.size && pages < MAX_VIEW_PAGES);
		const forFollowers = unseen.size > 0 && !passedThem && worthAPage;
		const forView = since !== undefined && last.createdAt >= floor && pages < MAX_VIEW_PAGES;
		if (!(forFollowers || forView)) break;
	}
	noteListLook(serviceKey, { sentAt, answeredAt, jobs: listed, reachedEnd });
	for (const id of unseen) {
		if (stillFollowed(id)) seen.push(await readJob(ctx, id, { itemIndex, maxWaitSeconds }));
	}
	return seen;
}

// ---- Jobs the process knows nothing of, asked for often: a walk down the list instead of a read each ----

/**
 * Executions that wait for one job each and come one at a time (an execution per row: n8n's Wait node
 * parks each until its job's estimate, then Wait for Job) would read their job each: a request per
 * video beyond its create and download. A page of the job list shows up to a hundred jobs, and a finished
 * job's answer is kept for good, so when this process has asked for jobs it knew nothing of more than
 * `asksBeforeWalk` times in the last minute (an ask: a look for a followed job no look of its watcher has
 * shown yet, and no unfinished answer younger than 5 s stands for — counted also when an earlier walk's
 * known end answers it, so that the walks go on while they serve the asks), its looks walk down the list to them instead — as
 * far as they are (at most MAX_VIEW_PAGES pages; a job the walk did not reach is read by itself) — and the
 * executions that come next find their jobs' ends already known. A walk costs a page per hundred jobs
 * created since its job; it is made only when asks come often, so that its pages serve the asks to come.
 * A lone job's walk comes no sooner than one poll interval after the key's last list look (its follower
 * waits for it), so that walks are no more frequent than a batch's looks; a job a walk showed unfinished is
 * read after that (a walk would show its end no sooner).
 */
export const ASK_WALK = { windowMs: 60_000, asksBeforeWalk: 3, maxKeys: 1_000 };

/**
 * Module state on purpose: per service key, when this process last asked for a job its watcher had not shown (the
 * rhythm of its executions, which no one of them sees). Bounded: ≤ ASK_WALK.maxKeys keys (least recently
 * used first), each ≤ asksBeforeWalk + 1 times within the last windowMs.
 */
export const processAsks = processStore('asks', new Map<string, number[]>(), (map) => map.clear());

/** Notes an ask (see ASK_WALK); the pages the look may walk for its jobs (0: none past the usual). */
function noteAsk(serviceKey: string): number {
	const at = now();
	const times = (processAsks.get(serviceKey) ?? []).filter((t) => at - t < ASK_WALK.windowMs);
	times.push(at);
	const kept = times.slice(-(ASK_WALK.asksBeforeWalk + 1));
	keepRecent(processAsks, serviceKey, kept, ASK_WALK.maxKeys);
	return kept.length > ASK_WALK.asksBeforeWalk ? MAX_VIEW_PAGES : 0;
}

/**
 * Wishes for the view (reuse.ts) a list look answered: every wish whose `freshAfter` the last list look
 * meets, when it reached back past the wish's `since` — and the wishes it was made for (`asked`) in any
 * case, with what it could read (at most MAX_VIEW_PAGES pages). `wishes` is read as it is now (a wish
 * removes itself from its watcher's list as it settles).
 */
function grantWishes(
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

// ---- The watcher of one key ----

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
		const { serviceKey } = this.service;
		// jobs no look of this watcher has shown yet, and no recent unfinished answer stands for: an ask
		// (ASK_WALK), also when a known end answers it — the asks' rhythm is counted, not who answers them
		const asked = [...this.jobs.keys()].some((id) => {
			const answer = reusableAnswer(serviceKey, id);
			return this.jobs.get(id)?.state === undefined && (!answer || isFinished(answer));
		});
		const walk = asked ? noteAsk(serviceKey) : 0;
		// followed jobs this process already knows ended (e.g. from another execution's walk): no request
		for (const id of [...this.jobs.keys()]) {
			const known = reusableAnswer(serviceKey, id);
			if (known && isFinished(known)) this.update(known);
		}
		if (this.idle()) return;
		const sender = this.sender();
		const ids = [...this.jobs.keys()];
		const wishes = [...this.wishes];
		const forView = wishes.length > 0;
		// a batch stays on the list to its end (also when one job is left, or when its jobs come one at a
		// time): one request per look either way
		this.batch ||= ids.length > 1;
		const batch = this.batch || this.followers().some((f) => f.run.followed > 1);
		const request = {
			itemIndex: sender.itemIndex,
			maxWaitSeconds: patience([...this.followers(), ...wishes].map((p) => p.maxWaitSeconds)),
		};
		try {
			let seen: Job[];
			if (!batch && !forView) {
				seen = await this.lookAtLone(sender.ctx, ids[0], request, walk);
			} else {
				const followed = new Map(ids.map((id) => [id, this.jobs.get(id)?.createdAt]));
				const since = forView ? Math.min(...wishes.map((w) => w.since)) : undefined;
				const stillFollowed = (id: string) => this.jobs.has(id);
				const look = { ...request, followed, since, stillFollowed, walkPages: walk };
				seen = await lookAtList(sender.ctx, look);
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

	/**
	 * A lone followed job: its read, or a walk of `walk` pages down the list to it (ASK_WALK) — not sooner
	 * than one poll interval after the key's last list look: until then nothing is sent, and the follower's
	 * next look comes one interval later (with any follower that joined meanwhile).
	 */
	private async lookAtLone(
		ctx: IExecuteFunctions,
		jobId: string,
		request: { itemIndex: number; maxWaitSeconds: number },
		walk: number,
	): Promise<Job[]> {
		if (walk <= 0) return [await readJob(ctx, jobId, request)];
		if (now() - lastLookAt(this.service.serviceKey) < MIN_POLL_MS) return [];
		const followed = new Map([[jobId, this.jobs.get(jobId)?.createdAt]]);
		const stillFollowed = (id: string) => this.jobs.has(id);
		return await lookAtList(ctx, { ...request, followed, stillFollowed, walkPages: walk });
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

// ---- The watchers of the process ----

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

/**
 * Follows a job of node run `run` with the process-wide watcher of its key (see KeyWatcher.follow): resolves
 * with the job once it has succeeded or failed (or at `answerBy`, as last seen); `known`: what the caller
 * already read.
 */
export async function followJob(
	ctx: IExecuteFunctions,
	run: FollowingRun,
	jobId: string,
	options: FollowOptions,
	known?: Job,
): Promise<Job> {
	if (run.stopped) throw stoppedError(ctx, jobId, options.itemIndex);
	run.followed++;
	if (known && isFinished(known)) return known;
	const service = await resolveService(ctx, options.itemIndex);
	return await watcherFor(service).follow(ctx, run, jobId, options, known);
}

/** The node run ended early (an item failed): its followers leave; the others' looks go on. */
export function stopFollowing(run: FollowingRun): void {
	run.stopped = true;
	for (const watcher of [...processWatchers.values()]) {
		watcher.leaveRun(run, (follower) =>
			stoppedError(follower.ctx, follower.jobId, follower.itemIndex),
		);
	}
}

function stoppedError(ctx: IExecuteFunctions, jobId: string, itemIndex: number): Error {
	return new NodeOperationError(
		ctx.getNode(),
		`The node run stopped while waiting for job ${jobId}. The job keeps running on the service and is not lost: use "Get" or "Wait for Job" with job ID ${jobId} later.`,
		{ itemIndex },
	);
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
