import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import { routeItems } from '../../shared/router';
import * as account from './account';

export async function router(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	return await routeItems(this, {
		getBalance: account.getBalance,
		getCapabilities: account.getCapabilities,
		getIdentity: account.getIdentity,
		getPlans: account.getPlans,
		getUsage: account.getUsage,
	});
}
