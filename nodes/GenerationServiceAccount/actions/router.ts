import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import { routeItems } from '../../shared/router';
import * as account from './account';

export async function router(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	return await routeItems(this, account);
}
