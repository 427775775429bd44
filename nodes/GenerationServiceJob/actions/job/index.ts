import type { INodeProperties, INodePropertyOptions } from 'n8n-workflow';

import * as create from './create.operation';
import * as downloadOutput from './downloadOutput.operation';
import * as get from './get.operation';
import * as getAll from './getAll.operation';
import * as quote from './quote.operation';
import * as waitForJob from './waitForJob.operation';

export { create, downloadOutput, get, getAll, quote, waitForJob };
/** Get Many under its version 1 value (see operationProperty), so saved workflows keep working. */
export { getAll as getMany };

function operations(getManyValue: 'getAll' | 'getMany'): INodePropertyOptions[] {
	return [
		{
			name: 'Create',
			value: 'create',
			action: 'Create a video (spends credits)',
			description:
				'Start a generation (POST /jobs, scope jobs:write). SPENDS CREDITS: reserves the quoted amount. Safe to retry: the same intent never charges twice.',
		},
		{
			name: 'Download Output',
			value: 'downloadOutput',
			action: 'Download the video of a job',
			description:
				'Get the MP4 of a succeeded job as binary data (GET /jobs/{ID}/output, scope jobs:read). Free.',
		},
		{
			name: 'Get',
			value: 'get',
			action: 'Get a job (state and credits)',
			description: 'State, credits and output of one job (GET /jobs/{ID}, scope jobs:read). Free.',
		},
		{
			name: 'Get Many',
			value: getManyValue,
			action: 'Get many jobs',
			description: 'Jobs of the account, newest first (GET /jobs, scope jobs:read). Free.',
		},
		{
			name: 'Quote',
			value: 'quote',
			action: 'Quote a video generation (free)',
			description:
				'Price of a generation and whether the account can pay (POST /jobs/quote, scope jobs:write). Reserves nothing, free.',
		},
		{
			name: 'Wait for Job',
			value: 'waitForJob',
			action: 'Wait for a job to finish',
			description:
				'Poll a job until it succeeds or fails, then output it with its MP4 as binary data (scope jobs:read). Free.',
		},
	];
}

/**
 * Version 1.1 names "Get Many" `getAll` like the other nodes; version 1 keeps `getMany`, so saved
 * workflows keep their operation.
 */
const operationProperty = (
	version: number,
	getManyValue: 'getAll' | 'getMany',
): INodeProperties => ({
	displayName: 'Operation',
	name: 'operation',
	type: 'options',
	noDataExpression: true,
	displayOptions: { show: { resource: ['job'], '@version': [version] } },
	options: operations(getManyValue),
	default: 'create',
});

export const description: INodeProperties[] = [
	operationProperty(1, 'getMany'),
	operationProperty(1.1, 'getAll'),
	...quote.description,
	...create.description,
	...get.description,
	...getAll.description,
	...waitForJob.description,
	...downloadOutput.description,
];
