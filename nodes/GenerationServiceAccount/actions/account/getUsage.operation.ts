import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';

import { paginationFields } from '../../../shared/descriptions/common';
import { toItems } from '../../../shared/router';
import { apiRequestAllItems } from '../../../shared/transport';

export const description: INodeProperties[] = paginationFields('getUsage', 'account');

/** GET /usage (usage:read): the credit ledger, newest first, one item per entry. */
export async function execute(this: IExecuteFunctions, i: number): Promise<INodeExecutionData[]> {
	const returnAll = this.getNodeParameter('returnAll', i) as boolean;
	const limit = returnAll ? undefined : (this.getNodeParameter('limit', i) as number);
	const entries = await apiRequestAllItems(
		this,
		{ method: 'GET', path: '/usage', itemIndex: i },
		{ returnAll, limit },
	);
	return toItems(entries, i);
}
