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
import type { RunState } from '../../../shared/router';
import { readJobId } from './get.operation';

const show = { resource: ['job'], operation: ['waitForJob'] };

export const description: INodeProperties[] = [
	{ ...jobLocator('jobId', 'Job'), displayOptions: { show } },
	optionsCollection([maxRateLimitWaitOption, ...waitOptions], { show }),
];

/** Polls GET /jobs/{id} until succeeded or failed, then outputs the job and its MP4 as binary data. */
export async function execute(
	this: IExecuteFunctions,
	i: number,
	state: RunState,
): Promise<INodeExecutionData[]> {
	const options = this.getNodeParameter('options', i, {}) as IDataObject;
	const jobId = readJobId(this, i);
	const waitOpts = readWaitOptions(this, i, options);
	// Several items' jobs are followed side by side once every item has been read.
	state.deferred.set(i, async () => [await waitForJob(this, jobId, i, waitOpts)]);
	return [];
}
