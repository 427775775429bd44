import type { INodeProperties } from 'n8n-workflow';

import { DEFAULT_MAX_TOOL_WAIT_SECONDS } from '../constants';
import { binaryPropertyOutputOption } from './common';

/**
 * Options of "Wait for Job" and of Create with "Wait for Completion" (defined once). Create passes
 * `onlyWhenWaiting`: inside its Options collection they show only once Wait for Completion is on.
 */
export function waitOptions(onlyWhenWaiting = false): INodeProperties[] {
	const options: INodeProperties[] = [
		{
			...binaryPropertyOutputOption,
			description: 'Binary field of the output item that receives the MP4',
		},
		{
			displayName: 'Download Output',
			name: 'downloadOutput',
			type: 'boolean',
			default: true,
			description:
				'Whether to download the finished MP4 as binary data (verified against its sha256). Off: output only the job JSON.',
		},
		{
			displayName: 'Max Wait as a Tool (Seconds)',
			name: 'maxToolWait',
			type: 'number',
			typeOptions: { minValue: 1, maxValue: 7200 },
			default: DEFAULT_MAX_TOOL_WAIT_SECONDS,
			description:
				'Only when the node runs as a tool of an AI agent or an MCP client: the call answers after at most this many seconds (and within Timeout) — with the job if it ended, else with its state, its ID and when to check again with Get Job. The job keeps running. The default stays below the 60 s an MCP client waits for an answer by default. In a workflow the node waits up to Timeout.',
		},
		{
			displayName: 'Poll Interval (Seconds)',
			name: 'pollInterval',
			type: 'number',
			typeOptions: { minValue: 5, maxValue: 60 },
			default: 5,
			description:
				'How often to check the job; the service advises every 5 to 10 seconds (minimum 5). Several jobs of one run are checked together with one request.',
		},
		{
			displayName: 'Timeout (Minutes)',
			name: 'timeout',
			type: 'number',
			typeOptions: { minValue: 1, maxValue: 120 },
			default: 10,
			description:
				'How long to wait before giving up (up to 120). The job keeps running on the service: pick it up later with Wait for Job.',
		},
	];
	if (!onlyWhenWaiting) return options;
	return options.map((option) => ({
		...option,
		displayOptions: { show: { waitForCompletion: [true] } },
	}));
}
