import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import { openJobRun } from '../../shared/jobs/run';
import { routeItems } from '../../shared/router';
import * as job from './job';

export async function router(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	return await routeItems(this, job, openJobRun);
}
