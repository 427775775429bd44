import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';

import { toItems } from '../../../shared/router';
import { apiRequest } from '../../../shared/transport';

export const description: INodeProperties[] = [];

/** GET /billing/plans (public): offers; purchases happen in the dashboard, not through the API. */
export async function execute(this: IExecuteFunctions, i: number): Promise<INodeExecutionData[]> {
	return toItems(
		await apiRequest(this, { method: 'GET', path: '/billing/plans', itemIndex: i }),
		i,
	);
}
