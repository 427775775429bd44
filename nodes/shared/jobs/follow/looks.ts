// One look at the jobs of a key, as the process-wide watcher (keyWatcher.ts) makes it: the job list's
// pages, newest first, only as far as needed — to see every followed job not yet seen, and for the
// recent-jobs view back past its look-back — then a GET /jobs/{id} for each followed job the pages did
// not show. A lone job is read by its own GET (readJob, which keeps the 5 s rule per job).
import type { IExecuteFunctions } from 'n8n-workflow';

import type { Page } from '../../transport';
import { apiRequest, now, resolveService } from '../../transport';
import type { Job } from '../job';
import { readJob, rememberJobs } from './reads';
import { noteListLook } from './recent';

/** Jobs per page of GET /jobs (the service's maximum). */
export const PAGE_SIZE = 100;
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
}

/**
 * The job list's pages, newest first, as far as the request needs; the followed jobs the pages did not
 * show are read by their own GET. Every job seen is remembered (rememberJobs), and the list look is
 * noted for the key's recent-jobs view (noteListLook). Returns the followed jobs it saw.
 */
export async function lookAtList(ctx: IExecuteFunctions, request: LookRequest): Promise<Job[]> {
	const { followed, since, itemIndex, maxWaitSeconds, stillFollowed } = request;
	const { serviceKey } = await resolveService(ctx, itemIndex);
	const unseen = new Set(followed.keys());
	const seen: Job[] = [];
	const listed: Job[] = [];
	const maxFollowPages = Math.ceil(followed.size / PAGE_SIZE) + 1;
	const sentAt = now();
	let answeredAt = sentAt;
	let cursor: string | null = null;
	let reachedEnd = false;
	for (let pages = 1; ; pages++) {
		const qs: Record<string, string | number> = { limit: PAGE_SIZE };
		if (cursor) qs.cursor = cursor;
		const page: Page<Job> = await apiRequest<Page<Job>>(ctx, {
			method: 'GET',
			path: '/jobs',
			qs,
			itemIndex,
			maxWaitSeconds,
			priority: 'poll',
		});
		if (pages === 1) answeredAt = now();
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
		const forFollowers = unseen.size > 0 && !passedThem && pages < maxFollowPages;
		const forView = since !== undefined && last.createdAt >= since && pages < MAX_VIEW_PAGES;
		if (!(forFollowers || forView)) break;
		cursor = page.nextCursor;
	}
	noteListLook(serviceKey, { sentAt, answeredAt, jobs: listed, reachedEnd });
	for (const id of unseen) {
		if (stillFollowed(id)) seen.push(await readJob(ctx, id, { itemIndex, maxWaitSeconds }));
	}
	return seen;
}
