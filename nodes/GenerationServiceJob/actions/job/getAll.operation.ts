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
	paginationFields,
} from '../../../shared/descriptions/common';
import { rememberJobs } from '../../../shared/jobs';
import { toItems } from '../../../shared/router';
import { apiRequestAllItems } from '../../../shared/transport';

const properties: INodeProperties[] = [
	...paginationFields,
	optionsCollection([maxRateLimitWaitOption]),
];

/** "getMany" is this operation's value in version 1 of the node: workflows saved with it still run. */
export const description = updateDisplayOptions(
	{ show: { resource: ['job'], operation: ['getAll', 'getMany'] } },
	properties,
);

/** GET /jobs (jobs:read): newest first, one item per job. */
export async function execute(this: IExecuteFunctions, i: number): Promise<INodeExecutionData[]> {
	const returnAll = this.getNodeParameter('returnAll', i) as boolean;
	const limit = returnAll ? undefined : (this.getNodeParameter('limit', i) as number);
	const options = this.getNodeParameter('options', i, {}) as IDataObject;
	const jobs = await apiRequestAllItems<IDataObject>(
		this,
		{ method: 'GET', path: '/jobs', itemIndex: i, maxWaitSeconds: maxWaitOf(options) },
		{ returnAll, limit },
		(page) => void rememberJobs(this, page.items as never),
	);
	return toItems(jobs, i);
}
