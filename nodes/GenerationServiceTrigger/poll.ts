// The Job Finished trigger's poll: the first activation, a manual test run's sample, and each poll after
// that — the job list walked newest first down to the cursor's floor (a walk a poll has no time to finish
// goes on at the next), the open jobs read by id, which finished jobs to emit, all within the time n8n
// gives the poll. What is remembered between polls is cursor.ts's. Jobs are read through the package's
// jobs/ and service/, like any operation's.
import type { IDataObject, INodeExecutionData, IPollFunctions } from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';

import type { Job } from '../shared/jobs/job';
import { isFinished } from '../shared/jobs/job';
import { jobKey, processJobReads, rememberJobs } from '../shared/jobs/known';
import { downloadJobOutput } from '../shared/jobs/wait';
import { readJob } from '../shared/jobs/watch';
import { processStore } from '../shared/processState';
import type { Page } from '../shared/service/client';
import { listPages } from '../shared/service/client';
import { asNodeError } from '../shared/service/errors';
import { now, pause, resolveService } from '../shared/service/service';
import type { TriggerCursor, WalkSummary } from './cursor';
import { STALE_MS, advanceCursor, firstCursor, readCursor } from './cursor';

/** Pages a manual test run reads at most to find a sample. */
const SAMPLE_PAGES = 3;
/**
 * Share of the poll's time the walk over the job list (and the reads of open jobs) may take when the
 * poll downloads MP4s; the rest is for the downloads. Without Download Output the walk has it all.
 */
const WALK_SHARE = 0.5;
/** The poll's time when n8n does not say (n8n before 2.41, or its legacy poller: PollContext's default). */
export const DEFAULT_BUDGET_MS = 5 * 60_000;

/**
 * Polls of one trigger node running in this process (a slow poll must not overlap the next). Bounded by
 * the polls running at once — at most one per trigger node active in the process: an entry is added when
 * its poll starts and removed when it ends (finally), whatever the outcome.
 */
const inFlight = processStore('triggerPolls', new Set<string>(), (set) => set.clear());

// ---- The poll's time ----

/**
 * How long this poll may take: n8n's poll budget (getPollBudgetMs: under n8n's durable scheduler the poll
 * timeout, N8N_SCHEDULER_POLL_TIMEOUT, less n8n's margin; n8n abandons a poll that takes longer), else
 * DEFAULT_BUDGET_MS.
 */
export function pollBudgetMs(ctx: IPollFunctions): number {
	const getBudget = (ctx as Partial<IPollFunctions>).getPollBudgetMs;
	const value = typeof getBudget === 'function' ? Number(getBudget.call(ctx)) : NaN;
	return Number.isFinite(value) && value > 0 ? value : DEFAULT_BUDGET_MS;
}

/** A deadline of the poll: a context for the requests made before it, and whether it has come. */
interface Deadline {
	ctx: IPollFunctions;
	at: number;
	/** Aborted when the deadline comes, only where n8n abandons a poll that outlasts its budget. */
	signal: AbortSignal;
	/** The deadline has come. */
	passed(): boolean;
}

/**
 * The poll's time, started with the poll. `until(share)` is the deadline startedAt + budget × share.
 *
 * Under n8n's durable scheduler n8n abandons a poll that outlasts its budget (and discards what it would
 * have emitted), so a deadline there cuts off every request of the poll made with its context: its waits
 * for the key's pacer, its retries and its transfer (the package's requests stop on the execution's cancel
 * signal; the deadline's context answers with its own). Whatever the key's rate window or the service
 * make a request wait, the poll ends in time. Without a budget from n8n (its legacy poller, which abandons
 * nothing; PollContext then answers DEFAULT_BUDGET_MS) the deadline only stops the poll from starting
 * more work, and a transfer under way runs to its end, as before.
 */
class PollTime {
	readonly startedAt = now();
	/** n8n abandons the poll at its budget. */
	readonly abandons: boolean;
	/** Stops the deadlines' timers when the poll ends. */
	private readonly ended = new AbortController();

	constructor(readonly budgetMs: number) {
		this.abandons = budgetMs !== DEFAULT_BUDGET_MS;
	}

	until(ctx: IPollFunctions, share: number): Deadline {
		const at = this.startedAt + this.budgetMs * share;
		const reached = new AbortController();
		let bounded = ctx;
		if (this.abandons) {
			const { signal } = this.ended;
			void pause(at - now(), signal).then(() => {
				if (!signal.aborted) reached.abort();
			});
			bounded = Object.create(ctx, {
				getExecutionCancelSignal: { value: () => reached.signal },
			}) as IPollFunctions;
		}
		return {
			ctx: bounded,
			at,
			signal: reached.signal,
			passed: () => reached.signal.aborted || now() >= at,
		};
	}

	end(): void {
		this.ended.abort();
	}
}

// ---- The job list ----

export type ListedJob = Job & { createdAt: number; updatedAt: number; input?: IDataObject };

export interface TriggerSettings {
	states: string[];
	modes: string[];
	download: boolean;
	binaryPropertyName: string;
	maxWaitSeconds?: number;
}

function matches(job: ListedJob, settings: TriggerSettings): boolean {
	if (!settings.states.includes(job.state)) return false;
	return settings.modes.length === 0 || settings.modes.includes(String(job.input?.mode ?? ''));
}

function createdAtOf(job: ListedJob): number {
	const value = Number(job.createdAt);
	return Number.isFinite(value) ? value : 0;
}

function finishOrder(a: ListedJob, b: ListedJob): number {
	return (
		Number(a.updatedAt) - Number(b.updatedAt) ||
		createdAtOf(a) - createdAtOf(b) ||
		a.id.localeCompare(b.id)
	);
}

/**
 * GET /jobs of the trigger: newest first from the top, or from `page` (a nextCursor) on; each page's jobs
 * remembered by the process (known.ts).
 */
function jobPages(
	ctx: IPollFunctions,
	settings: TriggerSettings,
	page?: string,
): AsyncGenerator<Page<ListedJob>> {
	return listPages<ListedJob>(ctx, {
		method: 'GET',
		path: '/jobs',
		qs: page ? { cursor: page } : undefined,
		maxWaitSeconds: settings.maxWaitSeconds,
		priority: 'poll',
	});
}

interface Walked {
	listed: Map<string, ListedJob>;
	summary: WalkSummary;
	/** Pages this poll listed. */
	pages: number;
}

function isClientRefusal(error: unknown): boolean {
	return error instanceof NodeApiError && error.httpCode === '400';
}

/**
 * One poll's part of a pass over the job list: from the top (no `from`), or from where an earlier poll
 * stopped (`from`: its pass), down until a page ends below the floor (`floorFor` gets the newest createdAt
 * of the pass), the list ends, or the walk's deadline comes. A page cursor the service no longer takes
 * (400) ends the pass without going on: the next poll starts at the top.
 */
async function walkJobs(
	deadline: Deadline,
	settings: TriggerSettings,
	floorFor: (top: number) => number,
	from?: TriggerCursor['pass'],
): Promise<Walked> {
	const listed = new Map<string, ListedJob>();
	const summary: WalkSummary = {
		top: from?.top ?? -Infinity,
		low: from?.low ?? Infinity,
		complete: false,
		next: from?.page,
	};
	let pages = 0;
	try {
		for await (const page of jobPages(deadline.ctx, settings, from?.page)) {
			pages++;
			await rememberJobs(deadline.ctx, page.items);
			for (const job of page.items) {
				// A job created while we walk can shift an offset-based page: keep the first copy.
				if (!listed.has(job.id)) listed.set(job.id, job);
				summary.top = Math.max(summary.top, createdAtOf(job));
				summary.low = Math.min(summary.low, createdAtOf(job));
			}
			const last = page.items[page.items.length - 1];
			if (!page.nextCursor || (last && createdAtOf(last) < floorFor(summary.top))) {
				summary.complete = true;
				summary.next = undefined;
				break;
			}
			summary.next = page.nextCursor;
			if (deadline.passed()) break;
		}
	} catch (error) {
		if (deadline.signal.aborted) {
			deadline.ctx.logger.debug(
				'Generation Service Trigger: the poll time for listing jobs is used up; the next poll goes on',
			);
		} else if (pages === 0 && from && isClientRefusal(error)) {
			deadline.ctx.logger.info(
				'Generation Service Trigger: the service no longer takes the page cursor of the last poll; the next poll walks the job list from the top',
			);
			return { listed, pages, summary: { top: -Infinity, low: Infinity, complete: false } };
		} else {
			throw asNodeError(deadline.ctx.getNode(), error);
		}
	}
	return { listed, pages, summary };
}

/**
 * An open job the walk did not reach, read by id (or from a read of it in this process less than 5 s
 * ago); undefined when it no longer exists, or when the deadline came first.
 */
async function readOpenJob(
	deadline: Deadline,
	id: string,
	settings: TriggerSettings,
): Promise<ListedJob | 'gone' | undefined> {
	try {
		return (await readJob(deadline.ctx, id, {
			maxWaitSeconds: settings.maxWaitSeconds,
		})) as ListedJob;
	} catch (error) {
		if (deadline.signal.aborted) return undefined;
		if (error instanceof NodeApiError && error.httpCode === '404') {
			deadline.ctx.logger.info(
				`Generation Service Trigger: job ${id} no longer exists; no longer followed`,
			);
			return 'gone';
		}
		throw asNodeError(deadline.ctx.getNode(), error);
	}
}

/** A job this process has already seen finished (its answers, known.ts), without asking the service. */
function knownFinished(serviceKey: string, id: string): ListedJob | undefined {
	const job = processJobReads.answers.get(jobKey(serviceKey, id))?.job;
	return job && isFinished(job) ? (job as ListedJob) : undefined;
}

// ---- The poll ----

function readSettings(ctx: IPollFunctions): TriggerSettings {
	const jobState = ctx.getNodeParameter('jobState', 'both') as string;
	const modes = ctx.getNodeParameter('modes', []) as string[];
	const options = ctx.getNodeParameter('options', {}) as IDataObject;
	return {
		states: jobState === 'both' ? ['succeeded', 'failed'] : [jobState],
		modes: Array.isArray(modes) ? modes : [],
		download: options.downloadOutput === true,
		binaryPropertyName: String(options.binaryPropertyName || 'data'),
		maxWaitSeconds: options.maxRateLimitWait as number | undefined,
	};
}

async function toItem(
	ctx: IPollFunctions,
	job: ListedJob,
	settings: TriggerSettings,
): Promise<INodeExecutionData> {
	const item: INodeExecutionData = { json: job };
	if (settings.download && job.state === 'succeeded') {
		const binary = await downloadJobOutput(ctx, job, 0, {
			maxWaitSeconds: settings.maxWaitSeconds,
		});
		item.binary = { [settings.binaryPropertyName]: binary };
	}
	return item;
}

/** First activation: remember what exists now (nothing is emitted, history is not replayed). */
async function activate(deadline: Deadline, settings: TriggerSettings): Promise<TriggerCursor> {
	const { listed, summary } = await walkJobs(deadline, settings, (top) => top - STALE_MS);
	const staleBefore = summary.top - STALE_MS;
	const open: Record<string, number> = {};
	const handled: Record<string, number> = {};
	for (const job of listed.values()) {
		if (createdAtOf(job) < staleBefore) continue;
		if (isFinished(job)) handled[job.id] = createdAtOf(job);
		else open[job.id] = createdAtOf(job);
	}
	return firstCursor(summary, open, handled);
}

/** Manual test run: the most recently finished job that passes the filters, as a sample. */
async function sample(
	ctx: IPollFunctions,
	settings: TriggerSettings,
): Promise<INodeExecutionData[][] | null> {
	let best: ListedJob | undefined;
	let pages = 0;
	for await (const listed of jobPages(ctx, settings)) {
		await rememberJobs(ctx, listed.items);
		for (const job of listed.items) {
			if (!isFinished(job) || !matches(job, settings)) continue;
			if (!best || finishOrder(job, best) > 0) best = job;
		}
		if (best || ++pages >= SAMPLE_PAGES) break;
	}
	return best ? [[await toItem(ctx, best, settings)]] : null;
}

/**
 * One poll after activation (see cursor.ts for the cursor): the walk (its share of the poll's time), the
 * open jobs it did not reach, then the finished jobs in the order they ended, each emitted once it is
 * complete (with its MP4 when Download Output is on). What the poll's time does not allow stays open, and
 * the cursor says so: a job is in `done` only when it is emitted (or left out by the filters).
 */
async function pollFinished(
	ctx: IPollFunctions,
	cursor: TriggerCursor,
	settings: TriggerSettings,
	time: PollTime,
): Promise<{ items: INodeExecutionData[]; next: TriggerCursor }> {
	const walking = time.until(ctx, settings.download ? WALK_SHARE : 1);
	const emitting = time.until(ctx, 1);
	const fresh = !cursor.pass;
	const { listed, summary } = await walkJobs(walking, settings, () => cursor.floor, cursor.pass);
	const { serviceKey } = await resolveService(ctx);

	const open: Record<string, number> = {};
	const finished: ListedJob[] = [];
	const consider = (job: ListedJob) => {
		if (job.id in cursor.done) return;
		if (isFinished(job)) finished.push(job);
		else open[job.id] = createdAtOf(job);
	};
	for (const job of listed.values()) {
		if (createdAtOf(job) < cursor.floor && !(job.id in cursor.open)) continue;
		consider(job);
	}
	for (const [id, createdAt] of Object.entries(cursor.open)) {
		if (listed.has(id)) continue;
		// Below the walked range (stale ones), or any a complete pass from the top did not show: read by id.
		// Others are listed by a later pass; one this process already saw end is taken as it is.
		const read = summary.complete && (createdAt < cursor.floor || fresh);
		const known = knownFinished(serviceKey, id);
		if (!read || known || walking.passed()) {
			if (known) consider(known);
			else open[id] = createdAt;
			continue;
		}
		const job = await readOpenJob(walking, id, settings);
		if (job === undefined) open[id] = createdAt;
		else if (job !== 'gone') consider(job);
	}

	const items: INodeExecutionData[] = [];
	const handled: Record<string, number> = {};
	let downloads = 0;
	let outOfTime = false;
	for (const job of finished.sort(finishOrder)) {
		if (!matches(job, settings)) {
			handled[job.id] = createdAtOf(job);
			continue;
		}
		// Only a download takes time. Where n8n abandons nothing, the first one of a poll always runs.
		const takesTime = settings.download && job.state === 'succeeded';
		let item: INodeExecutionData | undefined;
		if (!takesTime) {
			item = await toItem(ctx, job, settings);
		} else if (!emitting.passed() || (!time.abandons && downloads === 0)) {
			downloads++;
			try {
				item = await toItem(emitting.ctx, job, settings);
			} catch (error) {
				if (!emitting.signal.aborted) throw asNodeError(ctx.getNode(), error);
			}
		}
		if (item) {
			items.push(item);
			handled[job.id] = createdAtOf(job);
		} else {
			// Out of time (downloads): the job stays open and comes out in a later poll.
			outOfTime = true;
			open[job.id] = createdAtOf(job);
		}
	}
	if (outOfTime) {
		ctx.logger.debug(
			`Generation Service Trigger: the poll's time is used up after ${items.length} job(s); the next poll goes on`,
		);
	}
	return { items, next: advanceCursor(cursor, summary, open, handled) };
}

function sameCursor(a: unknown, b: TriggerCursor): boolean {
	return JSON.stringify(a) === JSON.stringify(b);
}

/** poll() of the trigger: `[items]` with one item per newly finished job, or null. */
export async function pollJobFinished(
	this: IPollFunctions,
): Promise<INodeExecutionData[][] | null> {
	const settings = readSettings(this);
	if (this.getMode() === 'manual') return await sample(this, settings);

	const key = `${String(this.getWorkflow().id)}:${this.getNode().id}`;
	if (inFlight.has(key)) {
		this.logger.debug('Generation Service Trigger: the previous poll is still running; skipped');
		return null;
	}
	inFlight.add(key);
	const time = new PollTime(pollBudgetMs(this));
	try {
		const staticData = this.getWorkflowStaticData('node');
		const cursor = readCursor(staticData.cursor);
		if (!cursor) {
			const first = await activate(time.until(this, 1), settings);
			staticData.cursor = first as unknown as IDataObject;
			return null;
		}
		// Nothing is stored before the poll ends: a failed poll is simply repeated; one that ran out of time
		// stores exactly what it emitted.
		const { items, next } = await pollFinished(this, cursor, settings, time);
		if (!sameCursor(staticData.cursor, next)) staticData.cursor = next as unknown as IDataObject;
		return items.length > 0 ? [items] : null;
	} finally {
		time.end();
		inFlight.delete(key);
	}
}
