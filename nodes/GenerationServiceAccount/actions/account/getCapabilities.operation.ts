import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';

import { toItems } from '../../../shared/router';
import { apiRequest } from '../../../shared/transport';

export const description: INodeProperties[] = [];

/** GET /capabilities (public): engine state, accepted modes, upload limits. */
export async function execute(this: IExecuteFunctions, i: number): Promise<INodeExecutionData[]> {
	return toItems(await apiRequest(this, { method: 'GET', path: '/capabilities', itemIndex: i }), i);
}
