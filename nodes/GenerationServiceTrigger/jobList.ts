// What the Job Finished trigger reads of the service's job list: the list walked newest first down to
// the cursor's floor, its pages, and the open jobs the walk did not reach (read by id). poll.ts decides
// what to emit; cursor.ts what to remember.
import type { IDataObject, IPollFunctions } from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';

import type { Job } from '../shared/jobs';
import { readJob, rememberJobs } from '../shared/jobs';
import { settle } from '../shared/settle';
import { apiRequest, now, type Page } from '../shared/transport';
import type { WalkSummary } from './cursor';
import { PAGE_SIZE } from './cursor';

export type ListedJob = Job & { createdAt: number; updatedAt: number; input?: IDataObject };

export interface TriggerSettings {
	states: string[];
	modes: string[];
	download: boolean;
	binaryPropertyName: string;
	maxWaitSeconds?: number;
}

export function isFinished(job: ListedJob): boolean {
	return job.state === 'succeeded' || job.state === 'failed';
}

export function matches(job: ListedJob, settings: TriggerSettings): boolean {
	if (!settings.states.includes(job.state)) return false;
	return settings.modes.length === 0 || settings.modes.includes(String(job.input?.mode ?? ''));
}

export function createdAtOf(job: ListedJob): number {
	const value = Number(job.createdAt);
	return Number.isFinite(value) ? value : 0;
}

export function finishOrder(a: ListedJob, b: ListedJob): number {
	return (
		Number(a.updatedAt) - Number(b.updatedAt) ||
		createdAtOf(a) - createdAtOf(b) ||
		a.id.localeCompare(b.id)
	);
}

export async function listPage(
	ctx: IPollFunctions,
	cursor: string | null,
	settings: TriggerSettings,
): Promise<Page<ListedJob>> {
	const qs: IDataObject = { limit: PAGE_SIZE };
	if (cursor) qs.cursor = cursor;
	const page = await apiRequest<Page<ListedJob>>(ctx, {
		method: 'GET',
		path: '/jobs',
		qs,
		maxWaitSeconds: settings.maxWaitSeconds,
		priority: 'poll',
	});
	await rememberJobs(ctx, page.items);
	return page;
}

/**
 * Reads GET /jobs newest first until a page ends below the floor (`floorFor` gets the newest
 * createdAt listed), the list ends, or the time for listing is used up.
 */
export async function walkJobs(
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
	let cursor: string | null = null;
	for (;;) {
		const page: Page<ListedJob> = await listPage(ctx, cursor, settings);
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
		cursor = page.nextCursor;
	}
	return { listed, summary };
}

/**
 * An open job the walk did not reach, read by id (or from a read of it in this process less than 5 s
 * ago); undefined when it no longer exists.
 */
export async function readOpenJob(
	ctx: IPollFunctions,
	id: string,
	settings: TriggerSettings,
): Promise<ListedJob | undefined> {
	const outcome = await settle(readJob(ctx, id, { maxWaitSeconds: settings.maxWaitSeconds }));
	if (outcome.ok) return outcome.value as ListedJob;
	if (outcome.error instanceof NodeApiError && outcome.error.httpCode === '404') {
		ctx.logger.info(`Generation Service Trigger: job ${id} no longer exists; no longer followed`);
		return undefined;
	}
	throw outcome.error;
}
