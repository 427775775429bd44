import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
} from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { maxRateLimitWaitOption, optionsCollection } from '../../../shared/descriptions/common';
import { jobLocator } from '../../../shared/descriptions/pickers';
import { waitOptions } from '../../../shared/descriptions/wait';
import type { JobRun } from '../../../shared/jobs/run';
import { jobAnswer, readWaitOptions, waitForJob } from '../../../shared/jobs/wait';
import { readJobId } from './get.operation';

const properties: INodeProperties[] = [
	jobLocator('jobId', 'Job', 'The job to wait for'),
	optionsCollection([maxRateLimitWaitOption, ...waitOptions()]),
];

export const description = updateDisplayOptions(
	{ show: { resource: ['job'], operation: ['waitForJob'] } },
	properties,
);

/**
 * Follows the job until it succeeds or fails, then outputs it with its MP4 as binary data. The jobs of
 * several items are followed side by side (one list request per interval for all of them). As a tool it
 * answers within Max Wait as a Tool, with the next step if the job has not ended.
 */
export async function execute(
	this: IExecuteFunctions,
	i: number,
	run: JobRun,
): Promise<INodeExecutionData[]> {
	const options = this.getNodeParameter('options', i, {}) as IDataObject;
	const jobId = readJobId(this, i);
	const waitOpts = readWaitOptions(this, i, options);
	run.continueLater(i, async () => {
		const item = await waitForJob(this, run, jobId, i, waitOpts);
		return [{ ...item, json: jobAnswer(this, item.json, run.startedAt) }];
	});
	return [];
}
