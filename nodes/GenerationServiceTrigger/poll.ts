// The Job Finished trigger's poll: the first activation, a manual test run's sample, and each poll after
// that — the job list walked newest first down to the cursor's floor, the open jobs the walk did not reach
// read by id, which finished jobs to emit, within n8n's poll budget. What is remembered between polls is
// cursor.ts's. Jobs are read through the package's jobs/ and service/, like any operation's.
import type { IDataObject, INodeExecutionData, IPollFunctions } from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';

import type { Job } from '../shared/jobs/job';
import { isFinished } from '../shared/jobs/job';
import { rememberJobs } from '../shared/jobs/known';
import { downloadJobOutput } from '../shared/jobs/wait';
import { readJob } from '../shared/jobs/watch';
import { processStore } from '../shared/processState';
import type { Page } from '../shared/service/client';
import { listPages } from '../shared/service/client';
import { asNodeError } from '../shared/service/errors';
import { now } from '../shared/service/service';
import type { TriggerCursor, WalkSummary } from './cursor';
import { STALE_MS, advanceCursor, readCursor } from './cursor';

/** Pages a manual test run reads at most to find a sample. */
const SAMPLE_PAGES = 3;
/** Share of n8n's poll budget spent listing, then spent downloading, before leaving the rest. */
const WALK_SHARE = 0.4;
const EMIT_SHARE = 0.7;
const DEFAULT_BUDGET_MS = 5 * 60_000;

/**
 * Polls of one trigger node running in this process (a slow poll must not overlap the next). Bounded by
 * the polls running at once — at most one per trigger node active in the process: an entry is added when
 * its poll starts and removed when it ends (finally), whatever the outcome.
 */
const inFlight = processStore('triggerPolls', new Set<string>(), (set) => set.clear());

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

/** GET /jobs of the trigger: newest first, each page's jobs remembered by the process (known.ts). */
function jobPages(ctx: IPollFunctions, settings: TriggerSettings): AsyncGenerator<Page<ListedJob>> {
	return listPages<ListedJob>(ctx, {
		method: 'GET',
		path: '/jobs',
		maxWaitSeconds: settings.maxWaitSeconds,
		priority: 'poll',
	});
}

/**
 * Reads GET /jobs newest first until a page ends below the floor (`floorFor` gets the newest
 * createdAt listed), the list ends, or the time for listing is used up.
 */
async function walkJobs(
	ctx: IPollFunctions,
	settings: TriggerSettings,
	floorFor: (newestListed: number) => number,
	deadline: number,
): Promise<{ listed: Map<string, ListedJob>; summary: WalkSummary }> {
	const listed = new Map<string, ListedJob>();
	const summary: WalkSummary = {
		newestListed: -Infinity,
		lowestListed: Infinity,
		complete: false,
	};
	for await (const page of jobPages(ctx, settings)) {
		await rememberJobs(ctx, page.items);
		for (const job of page.items) {
			// A job created while we walk can shift an offset-based page: keep the first copy.
			if (!listed.has(job.id)) listed.set(job.id, job);
			summary.newestListed = Math.max(summary.newestListed, createdAtOf(job));
			summary.lowestListed = Math.min(summary.lowestListed, createdAtOf(job));
		}
		const last = page.items[page.items.length - 1];
		if (!page.nextCursor || (last && createdAtOf(last) < floorFor(summary.newestListed))) {
			summary.complete = true;
			break;
		}
		if (now() >= deadline) {
			ctx.logger.debug(
				'Generation Service Trigger: poll time budget reached while listing jobs; the next poll continues',
			);
			break;
		}
	}
	return { listed, summary };
}

/**
 * An open job the walk did not reach, read by id (or from a read of it in this process less than 5 s
 * ago); undefined when it no longer exists.
 */
async function readOpenJob(
	ctx: IPollFunctions,
	id: string,
	settings: TriggerSettings,
): Promise<ListedJob | undefined> {
	try {
		return (await readJob(ctx, id, { maxWaitSeconds: settings.maxWaitSeconds })) as ListedJob;
	} catch (error) {
		if (error instanceof NodeApiError && error.httpCode === '404') {
			ctx.logger.info(`Generation Service Trigger: job ${id} no longer exists; no longer followed`);
			return undefined;
		}
		throw asNodeError(ctx.getNode(), error);
	}
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

function pollBudgetMs(ctx: IPollFunctions): number {
	const getBudget = (ctx as Partial<IPollFunctions>).getPollBudgetMs;
	const value = typeof getBudget === 'function' ? Number(getBudget.call(ctx)) : NaN;
	return Number.isFinite(value) && value > 0 ? value : DEFAULT_BUDGET_MS;
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
async function activate(
	ctx: IPollFunctions,
	settings: TriggerSettings,
	deadline: number,
): Promise<TriggerCursor> {
	const { listed, summary } = await walkJobs(ctx, settings, (n) => n - STALE_MS, deadline);
	const staleBefore = summary.newestListed - STALE_MS;
	const open: Record<string, number> = {};
	const handled: Record<string, number> = {};
	for (const job of listed.values()) {
		if (createdAtOf(job) < staleBefore) continue;
		if (isFinished(job)) handled[job.id] = createdAtOf(job);
		else open[job.id] = createdAtOf(job);
	}
	return advanceCursor({ newest: 0, floor: 0, done: {} }, summary, open, handled);
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

/** One poll after activation: see cursor.ts for the design. */
async function pollFinished(
	ctx: IPollFunctions,
	cursor: TriggerCursor,
	settings: TriggerSettings,
	startedAt: number,
	budgetMs: number,
): Promise<{ items: INodeExecutionData[]; next: TriggerCursor }> {
	const walkDeadline = startedAt + budgetMs * WALK_SHARE;
	const emitDeadline = startedAt + budgetMs * EMIT_SHARE;
	const { listed, summary } = await walkJobs(ctx, settings, () => cursor.floor, walkDeadline);

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
		// Open jobs below the walked range (stale ones, or any the list no longer shows) are read by
		// id; after a walk cut short, the others are simply kept for the next poll.
		const reachable = summary.complete || createdAt < cursor.floor;
		if (!reachable || now() >= walkDeadline) {
			open[id] = createdAt;
			continue;
		}
		const job = await readOpenJob(ctx, id, settings);
		if (job) consider(job);
	}

	const items: INodeExecutionData[] = [];
	const handled: Record<string, number> = {};
	for (const job of finished.sort(finishOrder)) {
		if (!matches(job, settings)) {
			handled[job.id] = createdAtOf(job);
		} else if (items.length > 0 && now() >= emitDeadline) {
			// Out of time (downloads): the job stays open and comes out in the next poll.
			open[job.id] = createdAtOf(job);
		} else {
			items.push(await toItem(ctx, job, settings));
			handled[job.id] = createdAtOf(job);
		}
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
	try {
		const staticData = this.getWorkflowStaticData('node');
		const startedAt = now();
		const budgetMs = pollBudgetMs(this);
		const cursor = readCursor(staticData.cursor);
		if (!cursor) {
			const first = await activate(this, settings, startedAt + budgetMs * WALK_SHARE);
			staticData.cursor = first as unknown as IDataObject;
			return null;
		}
		// Nothing is stored before every download has succeeded: a failed poll is simply repeated.
		const { items, next } = await pollFinished(this, cursor, settings, startedAt, budgetMs);
		if (!sameCursor(staticData.cursor, next)) staticData.cursor = next as unknown as IDataObject;
		return items.length > 0 ? [items] : null;
	} finally {
		inFlight.delete(key);
	}
}
