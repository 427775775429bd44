import type { INodeProperties } from 'n8n-workflow';

import * as create from './create.operation';
import * as downloadOutput from './downloadOutput.operation';
import * as get from './get.operation';
import * as getMany from './getMany.operation';
import * as quote from './quote.operation';
import * as waitForJob from './waitForJob.operation';

export { create, downloadOutput, get, getMany, quote, waitForJob };

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['job'] } },
		options: [
			{
				name: 'Create',
				value: 'create',
				action: 'Create a video generation',
				description:
					'Start a generation (POST /jobs, scope jobs:write). SPENDS CREDITS: reserves the quoted amount (10 credits per started 5 s for character replacement, 8 for the other modes). Safe to retry: the same Idempotency-Key never charges twice.',
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
				action: 'Get a job',
				description:
					'State, credits and output of one job (GET /jobs/{ID}, scope jobs:read). Free.',
			},
			{
				name: 'Get Many',
				value: 'getMany',
				action: 'Get many jobs',
				description: 'Jobs of the account, newest first (GET /jobs, scope jobs:read). Free.',
			},
			{
				name: 'Quote',
				value: 'quote',
				action: 'Quote a video generation',
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
		],
		default: 'create',
	},
	...quote.description,
	...create.description,
	...get.description,
	...getMany.description,
	...waitForJob.description,
	...downloadOutput.description,
];
