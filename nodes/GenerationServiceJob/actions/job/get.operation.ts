import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
} from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import {
	maxRateLimitWaitOption,
	maxWaitOf,
	optionsCollection,
} from '../../../shared/descriptions/common';
import { jobLocator } from '../../../shared/descriptions/pickers';
import { readId } from '../../../shared/inputs';
import { jobAnswer } from '../../../shared/jobs/wait';
import { readJob } from '../../../shared/jobs/watch';
import { toItems } from '../../../shared/router';

const properties: INodeProperties[] = [
	jobLocator('jobId', 'Job', 'The job to read'),
	optionsCollection([maxRateLimitWaitOption]),
];

export const description = updateDisplayOptions(
	{ show: { resource: ['job'], operation: ['get'] } },
	properties,
);

export function readJobId(ctx: IExecuteFunctions, i: number): string {
	return readId(ctx, 'jobId', 'job', i, 'Job');
}

/**
 * GET /jobs/{id} (jobs:read): state, credits reserved and charged, output. A job read less than 5 s
 * ago in this n8n process (or already finished) is not read again: the service asks for 5–10 s. As a
 * tool the answer is lean and says when to look again while the job runs (jobAnswer).
 */
export async function execute(this: IExecuteFunctions, i: number): Promise<INodeExecutionData[]> {
	const options = this.getNodeParameter('options', i, {}) as IDataObject;
	const job = await readJob(this, readJobId(this, i), {
		itemIndex: i,
		maxWaitSeconds: maxWaitOf(options),
	});
	return toItems(jobAnswer(this, job), i);
}
