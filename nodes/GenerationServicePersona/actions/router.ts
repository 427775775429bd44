import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import { routeItems } from '../../shared/router';
import * as persona from './persona';

export async function router(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	return await routeItems(this, persona);
}
