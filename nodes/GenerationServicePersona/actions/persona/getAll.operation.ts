import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import {
	maxRateLimitWaitOption,
	paginationFields,
	maxWaitOf,
	optionsCollection,
} from '../../../shared/descriptions/common';
import { toItems } from '../../../shared/router';
import { apiRequestAllItems } from '../../../shared/transport';

const properties: INodeProperties[] = [
	...paginationFields,
	optionsCollection([maxRateLimitWaitOption]),
];

export const description = updateDisplayOptions(
	{ show: { resource: ['persona'], operation: ['getAll'] } },
	properties,
);

/** GET /personas (personas:read): one item per persona. */
export async function execute(this: IExecuteFunctions, i: number): Promise<INodeExecutionData[]> {
	const returnAll = this.getNodeParameter('returnAll', i) as boolean;
	const limit = returnAll ? undefined : (this.getNodeParameter('limit', i) as number);
	const options = this.getNodeParameter('options', i, {}) as { maxRateLimitWait?: number };
	const personas = await apiRequestAllItems(
		this,
		{ method: 'GET', path: '/personas', itemIndex: i, maxWaitSeconds: maxWaitOf(options) },
		{ returnAll, limit },
	);
	return toItems(personas, i);
}
