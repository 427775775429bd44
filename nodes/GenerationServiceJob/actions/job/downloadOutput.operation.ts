import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
} from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import {
	binaryPropertyOutputOption,
	maxRateLimitWaitOption,
	maxWaitOf,
	optionsCollection,
	rangeOption,
} from '../../../shared/descriptions/common';
import { jobLocator } from '../../../shared/descriptions/pickers';
import { normalizeRange } from '../../../shared/inputs';
import type { JobRun } from '../../../shared/jobs/run';
import { downloadJobOutput } from '../../../shared/jobs/wait';
import { readJob } from '../../../shared/jobs/watch';
import { readJobId } from './get.operation';

const properties: INodeProperties[] = [
	jobLocator('jobId', 'Job', 'The succeeded job whose MP4 to download'),
	optionsCollection([binaryPropertyOutputOption, maxRateLimitWaitOption, rangeOption]),
];

export const description = updateDisplayOptions(
	{ show: { resource: ['job'], operation: ['downloadOutput'] } },
	properties,
);

/**
 * GET /jobs/{id}/output (jobs:read): the final MP4 as binary data, verified against output.sha256.
 * The job itself comes from the last read of it in this process when it is finished (e.g. by the
 * Wait or Create node just before), so it is not read twice in a row.
 */
export async function execute(
	this: IExecuteFunctions,
	i: number,
	run: JobRun,
): Promise<INodeExecutionData[]> {
	const options = this.getNodeParameter('options', i, {}) as IDataObject;
	const jobId = readJobId(this, i);
	const range = normalizeRange(this, options.range as string | undefined, undefined, i);
	const maxWaitSeconds = maxWaitOf(options);
	const job = await readJob(this, jobId, { itemIndex: i, maxWaitSeconds });
	const binary = await run.downloads.run(
		async () => await downloadJobOutput(this, job, i, { range, maxWaitSeconds }),
	);
	return [
		{
			json: job,
			binary: { [String(options.binaryPropertyName ?? 'data')]: binary },
			pairedItem: { item: i },
		},
	];
}
