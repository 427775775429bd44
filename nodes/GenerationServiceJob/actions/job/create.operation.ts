import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
} from 'n8n-workflow';
import { NodeApiError, NodeOperationError, updateDisplayOptions } from 'n8n-workflow';

import {
	maxRateLimitWaitOption,
	maxWaitOf,
	optionsCollection,
} from '../../../shared/descriptions/common';
import { jobInputFields } from '../../../shared/descriptions/jobInput';
import { waitOptions } from '../../../shared/descriptions/wait';
import { checkIdempotencyKey, deriveIdempotencyKey } from '../../../shared/idempotency';
import type { Job } from '../../../shared/jobs';
import {
	ensureGenerationAvailable,
	findAdoptable,
	guardCost,
	readGeneration,
	readWaitOptions,
	rememberJobs,
	waitForJob,
} from '../../../shared/jobs';
import type { RunState } from '../../../shared/router';
import { apiRequest } from '../../../shared/transport';

/** Default look-back of "Reuse Identical Recent Job". */
export const DEFAULT_REUSE_MINUTES = 60;

const properties: INodeProperties[] = [
	...jobInputFields(),
	optionsCollection([
		{
			displayName: 'Idempotency Key',
			name: 'idempotencyKey',
			type: 'string',
			default: '',
			placeholder: 'order-000042-video-v1',
			description:
				'Key that identifies this generation (16–128 characters from A-Z a-z 0-9 _ . : -). The same key and input never create a second job or charge twice. Empty: the node derives one from the execution (kept when n8n retries it), node, item and input, so retries, "Retry On Fail" and Retry of a failed execution reuse it. Set it from a row ID to make every re-run for the same row safe.',
		},
		{
			displayName: 'Max Credits',
			name: 'maxCredits',
			type: 'number',
			typeOptions: { minValue: 1 },
			default: 50,
			description:
				'Quote first and refuse, creating nothing, when the job would reserve more credits than this or the account or key cannot pay (the error names why)',
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
			default: 'unattended',
			options: [
				{
					name: 'In Unattended Runs',
					value: 'unattended',
					description:
						'Webhook, trigger, schedule and sub-workflow runs and n8n retries pick up a job of the same input created recently instead of paying again (e.g. after a crash, the caller calls again); runs you start in the editor create a new job',
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
				'Whether to look for a job with exactly the same input, created recently and not failed, and output it (adopted = true) instead of creating one. A run whose intent is a new video with the same input needs "Never" or a different input. Not used when an Idempotency Key is set.',
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
				'Whether to wait until the job ends and output the MP4 as binary data, like "Wait for Job". The jobs of a batch are followed side by side while the next ones are created.',
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
	reuseRecentJob?: 'unattended' | 'always' | 'never';
	reuseWithinMinutes?: number;
	waitForCompletion?: boolean;
}

/**
 * POST /jobs: reserves the quoted credits and queues the generation (spends credits). Never pays twice
 * for one intent: a job of the same input created recently is picked up instead (unless turned off),
 * and the Idempotency-Key is stable for the intent, so retries replay the same job.
 */
export async function execute(
	this: IExecuteFunctions,
	i: number,
	state: RunState,
): Promise<INodeExecutionData[]> {
	const { input, options } = readGeneration<CreateOptions>(this, i);
	const maxWaitSeconds = maxWaitOf(options);
	const customKey = options.idempotencyKey?.trim();
	const idempotencyKey = customKey
		? checkIdempotencyKey(this, customKey, i)
		: deriveIdempotencyKey(this, i, 'job', input);
	const waitOpts = options.waitForCompletion ? readWaitOptions(this, i, options) : undefined;
	const capabilities = await ensureGenerationAvailable(this, input.mode, state, i);
	const reuse = options.reuseRecentJob ?? 'unattended';
	const reuseMinutes = Number(options.reuseWithinMinutes ?? DEFAULT_REUSE_MINUTES);

	let job: Job | undefined;
	let adopted = false;
	const byHand = this.getMode() === 'manual';
	if (!customKey && (reuse === 'always' || (reuse === 'unattended' && !byHand))) {
		job = await findAdoptable(this, state, input, reuseMinutes, i, maxWaitSeconds);
		adopted = job !== undefined;
	}
	const runBudget = options.maxCreditsPerRun;
	if (job && runBudget !== undefined) state.budget.count(job);
	if (!job) {
		let quote: IDataObject | undefined;
		if (options.maxCredits !== undefined || runBudget !== undefined) {
			quote = await guardCost(this, input, options.maxCredits, capabilities, i, maxWaitSeconds);
		}
		// taken before the create is sent (creates may run side by side), given back if nothing was created
		const hold =
			quote && runBudget !== undefined
				? state.budget.take(this, { limit: runBudget, quote, idempotencyKey, itemIndex: i })
				: undefined;
		const sent = await apiRequest<Job>(this, {
			method: 'POST',
			path: '/jobs',
			body: input,
			idempotencyKey,
			itemIndex: i,
			maxWaitSeconds,
			errorContext: quote
				? {
						creditsNeeded: Number(quote.reservedCredits),
						creditsAvailable: Number(quote.available),
					}
				: undefined,
		}).then(
			(created) => ({ created, error: undefined }),
			(error: unknown) => ({ created: undefined, error }),
		);
		if (!sent.created) {
			if (hold) state.budget.failed(hold, sent.error);
			throw sent.error instanceof NodeApiError || sent.error instanceof NodeOperationError
				? sent.error
				: new NodeOperationError(this.getNode(), sent.error as Error, { itemIndex: i });
		}
		job = sent.created;
		if (hold) state.budget.settle(hold, job);
		await rememberJobs(this, [job]);
	}
	state.claimed.add(job.id);
	this.logger.info(
		adopted
			? `Generation Service job ${job.id} picked up (${job.state}): same input created recently, nothing charged again`
			: `Generation Service job ${job.id} created (${job.state}${job.replayed ? ', replayed' : ''}, ${job.reservedCredits} credits reserved)`,
		{ jobId: job.id },
	);
	const extra = { replayed: job.replayed ?? false, adopted, idempotencyKey };
	if (!waitOpts) return [{ json: { ...job, ...extra }, pairedItem: { item: i } }];
	const created = job;
	state.continueLater(i, async () => {
		const item = await waitForJob(this, state, created.id, i, waitOpts, created);
		item.json = { ...item.json, ...extra };
		return [item];
	});
	return [];
}
