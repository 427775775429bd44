import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';

import { maxRateLimitWaitOption, optionsCollection } from '../../../shared/descriptions/common';
import { buildJobInput, jobInputFields } from '../../../shared/descriptions/jobInput';
import { ensureGenerationAvailable, quoteJob } from '../../../shared/jobs';
import type { RunState } from '../../../shared/router';
import { toItems } from '../../../shared/router';

const show = { resource: ['job'], operation: ['quote'] };

export const description: INodeProperties[] = [
	...jobInputFields(show),
	optionsCollection([maxRateLimitWaitOption], { show }),
];

/** POST /jobs/quote: what a job would reserve, and whether the account and key can pay. Reserves nothing. */
export async function execute(
	this: IExecuteFunctions,
	i: number,
	state: RunState,
): Promise<INodeExecutionData[]> {
	const input = buildJobInput(this, i);
	const options = this.getNodeParameter('options', i, {}) as { maxRateLimitWait?: number };
	await ensureGenerationAvailable(this, input.mode, state, i);
	const quote = await quoteJob(this, input, i, options.maxRateLimitWait);
	return toItems(quote, i);
}
