import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
} from 'n8n-workflow';

import { paginationFields } from '../../../shared/descriptions/common';
import { toItems } from '../../../shared/router';
import { apiRequestAllItems } from '../../../shared/transport';

export const description: INodeProperties[] = paginationFields('getMany', 'job');

/** GET /jobs (jobs:read): newest first, one item per job. */
export async function execute(this: IExecuteFunctions, i: number): Promise<INodeExecutionData[]> {
	const returnAll = this.getNodeParameter('returnAll', i) as boolean;
	const limit = returnAll ? undefined : (this.getNodeParameter('limit', i) as number);
	return toItems(
		await apiRequestAllItems<IDataObject>(
			this,
			{ method: 'GET', path: '/jobs', itemIndex: i },
			{ returnAll, limit },
		),
		i,
	);
}
