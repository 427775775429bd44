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
import { jobInputFields, readGeneration } from '../../../shared/descriptions/jobInput';
import { ensureGenerationAvailable, pricingOf, quoteJob } from '../../../shared/jobs/create';
import type { JobRun } from '../../../shared/jobs/run';
import { quoteAnswer } from '../../../shared/jobs/wait';
import { toItems } from '../../../shared/router';

const properties: INodeProperties[] = [
	...jobInputFields(),
	optionsCollection([maxRateLimitWaitOption]),
];

export const description = updateDisplayOptions(
	{ show: { resource: ['job'], operation: ['quote'] } },
	properties,
);

/**
 * POST /jobs/quote: what a job would reserve, and whether the account and key can pay. Reserves
 * nothing. The item also carries the service's current price table (`pricing`, from GET /capabilities).
 */
export async function execute(
	this: IExecuteFunctions,
	i: number,
	run: JobRun,
): Promise<INodeExecutionData[]> {
	const { input, options } = readGeneration<IDataObject>(this, i);
	const capabilities = await ensureGenerationAvailable(this, input.mode, run, i);
	const quote = await quoteJob(this, input, i, maxWaitOf(options));
	const pricing = pricingOf(capabilities);
	const json = pricing === undefined ? quote : { ...quote, pricing: pricing as IDataObject };
	return toItems(quoteAnswer(this, json), i);
}
