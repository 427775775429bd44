import type { INodeProperties } from 'n8n-workflow';

import {
	binaryPropertyOutputOption,
	maxRateLimitWaitOption,
	optionsCollection,
} from '../shared/descriptions/common';
import { MODE_OPTIONS } from '../shared/descriptions/modes';

export const triggerProperties: INodeProperties[] = [
	{
		displayName:
			'Checks the service on the schedule below (Poll Times) and starts the workflow once for each job that ended since the last check. Jobs that had already ended when the workflow was activated are not sent again.',
		name: 'notice',
		type: 'notice',
		default: '',
	},
	{
		displayName: 'Trigger On',
		name: 'event',
		type: 'options',
		noDataExpression: true,
		options: [
			{
				name: 'Job Finished',
				value: 'jobFinished',
				description:
					'A generation job reached "succeeded" or "failed" (read with GET /jobs, scope jobs:read). Free: polling spends no credits.',
			},
		],
		default: 'jobFinished',
	},
	{
		displayName: 'Job State',
		name: 'jobState',
		type: 'options',
		options: [
			{
				name: 'Succeeded or Failed',
				value: 'both',
				description: 'Every job that ended',
			},
			{
				name: 'Succeeded',
				value: 'succeeded',
				description: 'Only jobs whose video is ready',
			},
			{
				name: 'Failed',
				value: 'failed',
				description: 'Only jobs that failed (their whole reservation was returned)',
			},
		],
		default: 'both',
		description: 'Which ended jobs start the workflow',
		displayOptions: { show: { event: ['jobFinished'] } },
	},
	{
		displayName: 'Modes',
		name: 'modes',
		type: 'multiOptions',
		options: MODE_OPTIONS.map(({ name, value }) => ({ name, value })),
		default: [],
		description: 'Only jobs of these generation modes. Leave empty for every mode.',
		displayOptions: { show: { event: ['jobFinished'] } },
	},
	optionsCollection(
		[
			{
				displayName: 'Download Output',
				name: 'downloadOutput',
				type: 'boolean',
				default: false,
				description:
					'Whether to attach the MP4 of each succeeded job as binary data (verified against its sha256). Failed jobs have no video. The download runs where the trigger polls: in queue mode that is the main process, not a worker, and n8n keeps those files until it prunes binary data. For large videos prefer a Job node "Download Output" after the trigger (it runs on a worker).',
			},
			{
				...binaryPropertyOutputOption,
				description: 'Binary field that receives the MP4 when Download Output is on',
			},
			maxRateLimitWaitOption,
		],
		{ show: { event: ['jobFinished'] } },
	),
];
