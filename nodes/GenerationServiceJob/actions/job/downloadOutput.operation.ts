import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
} from 'n8n-workflow';

import {
	binaryPropertyOutputOption,
	maxRateLimitWaitOption,
	rangeOption,
	optionsCollection,
} from '../../../shared/descriptions/common';
import { jobLocator } from '../../../shared/descriptions/pickers';
import type { Job } from '../../../shared/jobs';
import { downloadJobOutput } from '../../../shared/jobs';
import { apiRequest } from '../../../shared/transport';
import { normalizeRange } from '../../../shared/range';
import { readJobId } from './get.operation';

const show = { resource: ['job'], operation: ['downloadOutput'] };

export const description: INodeProperties[] = [
	{ ...jobLocator('jobId', 'Job'), displayOptions: { show } },
	optionsCollection([binaryPropertyOutputOption, maxRateLimitWaitOption, rangeOption], { show }),
];

/** GET /jobs/{id}/output (jobs:read): the final MP4 as binary data, verified against output.sha256. */
export async function execute(this: IExecuteFunctions, i: number): Promise<INodeExecutionData[]> {
	const options = this.getNodeParameter('options', i, {}) as IDataObject;
	const jobId = readJobId(this, i);
	const range = normalizeRange(this, options.range as string | undefined, undefined, i);
	const maxWaitSeconds = options.maxRateLimitWait as number | undefined;
	const job = await apiRequest<Job>(this, {
		method: 'GET',
		path: `/jobs/${jobId}`,
		itemIndex: i,
		maxWaitSeconds,
	});
	const binary = await downloadJobOutput(this, job, i, {
		range,
		maxWaitSeconds,
	});
	return [
		{
			json: job,
			binary: { [String(options.binaryPropertyName ?? 'data')]: binary },
			pairedItem: { item: i },
		},
	];
}
