import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import { openJobRun } from '../../shared/jobs';
import { routeItems } from '../../shared/router';
import * as job from './job';

export async function router(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	return await routeItems(
		this,
		{
			create: job.create,
			downloadOutput: job.downloadOutput,
			get: job.get,
			getAll: job.getAll,
			getMany: job.getAll, // the value of version 1
			quote: job.quote,
			waitForJob: job.waitForJob,
		},
		openJobRun,
	);
}
