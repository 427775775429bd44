import type { INodeProperties } from 'n8n-workflow';

import {
	binaryPropertyOutputOption,
	maxRateLimitWaitOption,
	optionsCollection,
} from '../shared/descriptions/common';

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
		options: [
			{ name: 'Character Replacement', value: 'character_replacement' },
			{ name: 'Image to Video', value: 'image_to_video' },
			{ name: 'Text to Video', value: 'text_to_video' },
		],
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
					'Whether to attach the MP4 of each succeeded job as binary data (verified against its sha256). Failed jobs have no video.',
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
