import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
} from 'n8n-workflow';

import { maxRateLimitWaitOption, optionsCollection } from '../../../shared/descriptions/common';
import { jobLocator } from '../../../shared/descriptions/pickers';
import { waitOptions } from '../../../shared/descriptions/wait';
import { readWaitOptions, waitForJob } from '../../../shared/jobs';
import { readJobId } from './get.operation';

const show = { resource: ['job'], operation: ['waitForJob'] };

export const description: INodeProperties[] = [
	{ ...jobLocator('jobId', 'Job'), displayOptions: { show } },
	optionsCollection([maxRateLimitWaitOption, ...waitOptions], { show }),
];

/** Polls GET /jobs/{id} until succeeded or failed, then outputs the job and its MP4 as binary data. */
export async function execute(this: IExecuteFunctions, i: number): Promise<INodeExecutionData[]> {
	const options = this.getNodeParameter('options', i, {}) as IDataObject;
	return [await waitForJob(this, readJobId(this, i), i, readWaitOptions(this, i, options))];
}
