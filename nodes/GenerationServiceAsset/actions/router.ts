import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import { routeItems } from '../../shared/router';
import * as asset from './asset';

export async function router(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	return await routeItems(this, asset);
}
