// The Job Finished trigger's poll: the first activation, a manual test run's sample, and each poll after
// that — which finished jobs to emit, within n8n's poll budget. The list is read in jobList.ts; what is
// remembered between polls is cursor.ts's.
import type { IDataObject, INodeExecutionData, IPollFunctions } from 'n8n-workflow';

import { downloadJobOutput } from '../shared/jobs';
import { processStore } from '../shared/processState';
import { now, type Page } from '../shared/transport';
import type { TriggerCursor } from './cursor';
import { STALE_MS, advanceCursor, readCursor } from './cursor';
import type { ListedJob, TriggerSettings } from './jobList';
import {
	createdAtOf,
	finishOrder,
	isFinished,
	listPage,
	matches,
	readOpenJob,
	walkJobs,
} from './jobList';

/** Pages a manual test run reads at most to find a sample. */
export const SAMPLE_PAGES = 3;
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

export function readSettings(ctx: IPollFunctions): TriggerSettings {
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
	let cursor: string | null = null;
	for (let page = 0; page < SAMPLE_PAGES; page++) {
		const listed: Page<ListedJob> = await listPage(ctx, cursor, settings);
		for (const job of listed.items) {
			if (!isFinished(job) || !matches(job, settings)) continue;
			if (!best || finishOrder(job, best) > 0) best = job;
		}
		if (best || !listed.nextCursor) break;
		cursor = listed.nextCursor;
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
