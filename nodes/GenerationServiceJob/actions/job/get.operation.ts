import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';

import { jobLocator } from '../../../shared/descriptions/pickers';
import { readId } from '../../../shared/ids';
import { toItems } from '../../../shared/router';
import { apiRequest } from '../../../shared/transport';

export const description: INodeProperties[] = [
	{
		...jobLocator('jobId', 'Job'),
		displayOptions: { show: { resource: ['job'], operation: ['get'] } },
	},
];

export function readJobId(ctx: IExecuteFunctions, i: number): string {
	return readId(ctx, 'jobId', 'job', i, 'Job');
}

/** GET /jobs/{id} (jobs:read): state, credits reserved and charged, output. */
export async function execute(this: IExecuteFunctions, i: number): Promise<INodeExecutionData[]> {
	const jobId = readJobId(this, i);
	return toItems(
		await apiRequest(this, { method: 'GET', path: `/jobs/${jobId}`, itemIndex: i }),
		i,
	);
}
