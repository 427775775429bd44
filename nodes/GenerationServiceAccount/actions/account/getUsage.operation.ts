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
import { toItems } from '../../../shared/router';
import { apiRequestAllItems } from '../../../shared/transport';

const properties: INodeProperties[] = [
	...paginationFields,
	optionsCollection([maxRateLimitWaitOption]),
];

export const description = updateDisplayOptions(
	{ show: { resource: ['account'], operation: ['getUsage'] } },
	properties,
);

/** GET /usage (usage:read): the credit ledger, newest first, one item per entry. */
export async function execute(this: IExecuteFunctions, i: number): Promise<INodeExecutionData[]> {
	const returnAll = this.getNodeParameter('returnAll', i) as boolean;
	const limit = returnAll ? undefined : (this.getNodeParameter('limit', i) as number);
	const options = this.getNodeParameter('options', i, {}) as IDataObject;
	const entries = await apiRequestAllItems(
		this,
		{ method: 'GET', path: '/usage', itemIndex: i, maxWaitSeconds: maxWaitOf(options) },
		{ returnAll, limit },
	);
	return toItems(entries, i);
}
