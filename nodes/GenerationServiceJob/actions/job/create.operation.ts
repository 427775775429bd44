import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
} from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import {
	maxRateLimitWaitOption,
	maxWaitOf,
	optionsCollection,
} from '../../../shared/descriptions/common';
import { jobInputFields, readGeneration } from '../../../shared/descriptions/jobInput';
import { waitOptions } from '../../../shared/descriptions/wait';
import { checkIdempotencyKey } from '../../../shared/inputs';
import { createJob } from '../../../shared/jobs/create';
import type { ReuseRecentJob } from '../../../shared/jobs/reuse';
import { DEFAULT_REUSE } from '../../../shared/jobs/reuse';
import type { JobRun } from '../../../shared/jobs/run';
import { readWaitOptions } from '../../../shared/jobs/wait';

/** Default look-back of "Reuse Identical Recent Job". */
const DEFAULT_REUSE_MINUTES = 60;

const properties: INodeProperties[] = [
	...jobInputFields(),
	{
		displayName:
			"Creating a job spends credits. By default every run creates a new job, except n8n's Retry of an execution and webhook calls, which pick up a job of the same input from the last 60 minutes instead of paying again (Options → Reuse Identical Recent Job). As a tool of an AI agent or an MCP client, each call creates its own job. No cost limit applies unless you add Options → Max Credits.",
		name: 'createNotice',
		type: 'notice',
		default: '',
	},
	optionsCollection([
		{
			displayName: 'Idempotency Key',
			name: 'idempotencyKey',
			type: 'string',
			default: '',
			placeholder: 'order-000042-video-v1',
			description:
				'Key that identifies this generation (16–128 characters from A-Z a-z 0-9 _ . : -). The same key and input never create a second job or charge twice. Empty: the node derives one from the execution (kept when n8n retries it), node, item and input, so retries, "Retry On Fail" and Retry of a failed execution reuse it; runs that reuse a recent identical job derive it from the input and the time slot instead, so a webhook called twice at once pays once; as a tool, from the call too, so each call of an AI agent or MCP client is its own job. Set it from a row ID to make every re-run for the same row safe.',
		},
		{
			displayName: 'Max Credits',
			name: 'maxCredits',
			type: 'number',
			typeOptions: { minValue: 1 },
			default: 50,
			description:
				'Quote first and refuse, creating nothing, when the job would reserve more credits than this or the account or key cannot pay (the error names why). Without this option there is no limit: the job reserves what the service quotes.',
			hint: 'Applies to each job (each item) separately',
		},
		{
			displayName: 'Max Credits for This Run',
			name: 'maxCreditsPerRun',
			type: 'number',
			typeOptions: { minValue: 1 },
			default: 100,
			description:
				'Budget for all jobs of one run of this node: each item is quoted first (the same quote Max Credits makes), and an item whose job would take the credits reserved by the jobs of the run above this fails before creating (the error names the budget, what is reserved and the jobs). A replayed or picked-up job counts once.',
		},
		maxRateLimitWaitOption,
		{
			displayName: 'Reuse Identical Recent Job',
			name: 'reuseRecentJob',
			type: 'options',
			default: DEFAULT_REUSE,
			options: [
				{
					name: 'On Recoveries (Default)',
					value: 'recoveries',
					description:
						"Only n8n's Retry of an execution and webhook calls (a caller that calls again after a crash) pick up a recent job of the same input. Schedules and other triggers, chat messages, manual runs, sub-workflows, the CLI and the calls of an AI agent or MCP client create a new job.",
				},
				{
					name: 'In All Unattended Runs',
					value: 'unattended',
					description:
						'Every run not started by hand (webhook, schedule, other triggers, sub-workflow, CLI, retries) picks up a recent job of the same input; e.g. for a trigger that delivers a message again after a crash',
				},
				{
					name: 'Always',
					value: 'always',
					description: 'Also runs started in the editor',
				},
				{
					name: 'Never',
					value: 'never',
					description: 'Rely on the Idempotency-Key alone: every new run creates a new job',
				},
			],
			description:
				"Whether to look for a job with exactly the same input, created recently and not failed, and output it (adopted = true) instead of creating one. A job this execution already created or picked up (in another node, another item or a loop) is never picked up again. As a tool of an AI agent or an MCP client each call is its own intent: only n8n's Retry picks up, and only the job this node made in the retried execution. Not used when an Idempotency Key is set.",
			hint: 'Default: only retries and webhook calls pick up a recent identical job; every other run creates one',
		},
		{
			displayName: 'Reuse Look-Back (Minutes)',
			name: 'reuseWithinMinutes',
			type: 'number',
			typeOptions: { minValue: 1, maxValue: 1440 },
			default: DEFAULT_REUSE_MINUTES,
			description: 'How far back to look for a job of the same input',
			displayOptions: { hide: { reuseRecentJob: ['never'] } },
		},
		{
			displayName: 'Wait for Completion',
			name: 'waitForCompletion',
			type: 'boolean',
			default: false,
			description:
				'Whether to wait until the job ends and output the MP4 as binary data, like "Wait for Job". The jobs of a batch are followed side by side while the next ones are created. Off: the job is output at once with estimatedSeconds and estimatedReadyAt (an ISO date for a Wait node\'s "At Specified Time", so the execution is parked instead of holding a worker) — the median time (createdAt to end) of the last 20 jobs of the same mode and duration this n8n process saw succeed on the account, else 120 s; estimatedFrom says which. As a tool the call answers within Max Wait as a Tool.',
		},
		...waitOptions(true),
	]),
];

export const description = updateDisplayOptions(
	{ show: { resource: ['job'], operation: ['create'] } },
	properties,
);

interface CreateOptions extends IDataObject {
	idempotencyKey?: string;
	maxCredits?: number;
	maxCreditsPerRun?: number;
	maxRateLimitWait?: number;
	reuseRecentJob?: ReuseRecentJob;
	reuseWithinMinutes?: number;
	waitForCompletion?: boolean;
}

/**
 * POST /jobs: reserves the quoted credits and queues the generation (spends credits). Reads and checks
 * the form, then hands the item to the job domain (createJob in nodes/shared/jobs/create.ts), which
 * never pays twice for one intent.
 */
export async function execute(
	this: IExecuteFunctions,
	i: number,
	run: JobRun,
): Promise<INodeExecutionData[]> {
	const { input, options } = readGeneration<CreateOptions>(this, i);
	const maxWaitSeconds = maxWaitOf(options);
	const customKey = options.idempotencyKey?.trim();
	if (customKey) checkIdempotencyKey(this, customKey, i);
	const wait = options.waitForCompletion ? readWaitOptions(this, i, options) : undefined;
	return await createJob(this, run, {
		itemIndex: i,
		input,
		customKey: customKey || undefined,
		maxCredits: options.maxCredits,
		runBudget: options.maxCreditsPerRun,
		reuse: options.reuseRecentJob ?? DEFAULT_REUSE,
		reuseMinutes: Number(options.reuseWithinMinutes ?? DEFAULT_REUSE_MINUTES),
		maxWaitSeconds,
		wait,
	});
}
