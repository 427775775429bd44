import type { Job } from '../../../shared/jobs/job';
import { rememberJobs } from '../../../shared/jobs/known';
import { listOperation } from '../../../shared/operations';

/**
 * GET /jobs (jobs:read): newest first, one item per job. "getMany" is this operation's value in
 * version 1 of the node: workflows saved with it still run.
 */
export const { description, execute } = listOperation({
	resource: 'job',
	operations: ['getAll', 'getMany'],
	path: '/jobs',
	onPage: (ctx, page) => void rememberJobs(ctx, page.items as Job[]).catch(() => undefined),
});
