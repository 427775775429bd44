// Picking up a job this intent already created (same input, recent, not failed), so a retried,
// recovered or re-run execution does not pay again.
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { canonicalJson } from '../idempotency';
import type { RunState } from '../router';
import type { Page } from '../transport';
import { apiRequest, now } from '../transport';
import type { Job } from './job';
import { rememberJobs } from './reads';

/** Pages of GET /jobs read at most to look back (100 jobs each). */
const MAX_PAGES = 10;

/** The JobInput as the service stores it (defaults filled in), for comparing inputs. */
function normalized(input: IDataObject | undefined): string {
	const i = input ?? {};
	return canonicalJson({
		mode: i.mode,
		prompt: i.prompt ?? '',
		sourceAssetId: i.sourceAssetId ?? null,
		referenceAssetId: i.referenceAssetId ?? null,
		personaId: i.personaId ?? null,
		durationSeconds: i.durationSeconds ?? 5,
		aspectRatio: i.aspectRatio ?? '9:16',
	});
}

/** Jobs created in the last `lookBackMs`, newest first; read once per node run. */
async function recentJobs(
	ctx: IExecuteFunctions,
	state: RunState,
	lookBackMs: number,
	itemIndex: number,
	maxWaitSeconds?: number,
): Promise<Job[]> {
	const cacheKey = `recentJobs:${lookBackMs}`;
	const cached = state.cache.get(cacheKey) as Job[] | undefined;
	if (cached) return cached;
	const since = now() - lookBackMs;
	const jobs: Job[] = [];
	let cursor: string | null = null;
	for (let page = 0; page < MAX_PAGES; page++) {
		const qs: IDataObject = { limit: 100 };
		if (cursor) qs.cursor = cursor;
		const listed: Page<Job> = await apiRequest<Page<Job>>(ctx, {
			method: 'GET',
			path: '/jobs',
			qs,
			itemIndex,
			maxWaitSeconds,
		});
		await rememberJobs(ctx, listed.items);
		jobs.push(...listed.items.filter((job) => job.createdAt >= since));
		const last = listed.items[listed.items.length - 1];
		if (!listed.nextCursor || !last || last.createdAt < since) break;
		cursor = listed.nextCursor;
	}
	state.cache.set(cacheKey, jobs);
	return jobs;
}

/**
 * A job created in the last `lookBackMinutes` with exactly this input, not failed, and not already
 * claimed by another item of this run — or undefined. The caller claims what it adopts.
 */
export async function findAdoptable(
	ctx: IExecuteFunctions,
	state: RunState,
	input: IDataObject,
	lookBackMinutes: number,
	itemIndex: number,
	maxWaitSeconds?: number,
): Promise<Job | undefined> {
	const wanted = normalized(input);
	const recent = await recentJobs(ctx, state, lookBackMinutes * 60_000, itemIndex, maxWaitSeconds);
	// Oldest first: a retried batch picks its jobs up in the order they were created.
	return [...recent]
		.reverse()
		.find(
			(job) =>
				job.state !== 'failed' && !state.claimed.has(job.id) && normalized(job.input) === wanted,
		);
}
