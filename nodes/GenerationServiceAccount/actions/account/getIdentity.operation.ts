import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';

import { toItems } from '../../../shared/router';
import { apiRequest } from '../../../shared/transport';

export const description: INodeProperties[] = [];

/** GET /me — who the key belongs to and its scopes (needs no scope). */
export async function execute(this: IExecuteFunctions, i: number): Promise<INodeExecutionData[]> {
	return toItems(await apiRequest(this, { method: 'GET', path: '/me', itemIndex: i }), i);
}
