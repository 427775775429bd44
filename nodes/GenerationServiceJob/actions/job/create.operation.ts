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
import { jobInputFields, readGeneration } from '../../../shared/descriptions/jobInput';
import { waitOptions } from '../../../shared/descriptions/wait';
import {
	canonicalJson,
	checkIdempotencyKey,
	deriveIdempotencyKey,
	deriveIntentKey,
} from '../../../shared/idempotency';
import type { Job, JobRun, ReuseRecentJob } from '../../../shared/jobs';
import {
	ensureGenerationAvailable,
	DEFAULT_REUSE,
	failedOfInput,
	findAdoptable,
	intentKeyApplies,
	guardCost,
	readWaitOptions,
	recordUsedJob,
	rememberJobs,
	reuseApplies,
	usedInEarlierRun,
	waitForJob,
} from '../../../shared/jobs';
import { apiRequest, now } from '../../../shared/transport';

/** Keys an item tries past the jobs its run holds, for the jobs earlier runs of the node used (loops). */
const MAX_LOOP_ATTEMPTS = 100;

/** Default look-back of "Reuse Identical Recent Job". */
export const DEFAULT_REUSE_MINUTES = 60;

const properties: INodeProperties[] = [
	...jobInputFields(),
	{
		displayName:
			"Creating a job spends credits. By default every run creates a new job, except n8n's Retry of an execution and webhook calls, which pick up a job of the same input from the last 60 minutes instead of paying again (Options → Reuse Identical Recent Job). No cost limit applies unless you add Options → Max Credits.",
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
				'Key that identifies this generation (16–128 characters from A-Z a-z 0-9 _ . : -). The same key and input never create a second job or charge twice. Empty: the node derives one from the execution (kept when n8n retries it), node, item and input, so retries, "Retry On Fail" and Retry of a failed execution reuse it; runs that reuse a recent identical job derive it from the input and the time slot instead, so a webhook called twice at once pays once. Set it from a row ID to make every re-run for the same row safe.',
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
						"Only n8n's Retry of an execution and webhook calls (a caller that calls again after a crash) pick up a recent job of the same input. Schedules and other triggers, chat messages, manual runs, sub-workflows and the CLI create a new job.",
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
				'Whether to look for a job with exactly the same input, created recently and not failed, and output it (adopted = true) instead of creating one. A job this execution already created or picked up (in another node, another item or a loop) is never picked up again. Not used when an Idempotency Key is set.',
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
	reuseRecentJob?: ReuseRecentJob;
	reuseWithinMinutes?: number;
	waitForCompletion?: boolean;
}

interface CreateRequest {
	input: IDataObject;
	idempotencyKey: string;
	quote: IDataObject | undefined;
	runBudget: number | undefined;
	i: number;
	maxWaitSeconds: number | undefined;
}

/** One POST /jobs, with the run budget held while it is on its way. */
async function createJob(
	ctx: IExecuteFunctions,
	run: JobRun,
	{ input, idempotencyKey, quote, runBudget, i, maxWaitSeconds }: CreateRequest,
): Promise<Job> {
	// taken before the create is sent (creates may run side by side), given back if nothing was created
	const hold =
		quote && runBudget !== undefined
			? run.budget.take(ctx, { limit: runBudget, quote, idempotencyKey, itemIndex: i })
			: undefined;
	const sent = await apiRequest<Job>(ctx, {
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
		if (hold) run.budget.failed(hold, sent.error);
		throw sent.error instanceof NodeApiError || sent.error instanceof NodeOperationError
			? sent.error
			: new NodeOperationError(ctx.getNode(), sent.error as Error, { itemIndex: i });
	}
	if (hold) run.budget.settle(hold, sent.created);
	await rememberJobs(ctx, [sent.created]);
	return sent.created;
}

/**
 * POST /jobs: reserves the quoted credits and queues the generation (spends credits). Never pays twice
 * for one intent: the Idempotency-Key is stable for the intent, so retries replay the same job; in a
 * run that is most likely a recovery (n8n's Retry, a webhook call; see reuseApplies) a job of the same
 * input created recently, and not by this execution, is picked up instead. Other runs create.
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
	const waitOpts = options.waitForCompletion ? readWaitOptions(this, i, options) : undefined;
	const capabilities = await ensureGenerationAvailable(this, input.mode, run, i);
	const reuse = options.reuseRecentJob ?? DEFAULT_REUSE;
	const reuseMinutes = Number(options.reuseWithinMinutes ?? DEFAULT_REUSE_MINUTES);
	const byIntent = !customKey && intentKeyApplies(this, reuse);
	const occurrence = run.occurrence(canonicalJson(input));

	let job: Job | undefined;
	let adopted = false;
	if (!customKey && reuseApplies(this, reuse)) {
		job = await findAdoptable(this, run, input, reuseMinutes, i, maxWaitSeconds);
		adopted = job !== undefined;
	}
	const keyOf = (attempt: number): string => {
		if (customKey) return customKey;
		if (!byIntent) return deriveIdempotencyKey(this, i, 'job', input);
		const failed = failedOfInput(run, input, reuseMinutes);
		const parts = { lookBackMs: reuseMinutes * 60_000, occurrence, failed, attempt };
		return deriveIntentKey(this, 'job', input, parts, now());
	};
	let idempotencyKey = keyOf(0);
	const runBudget = options.maxCreditsPerRun;
	if (job && runBudget !== undefined) run.budget.count(job);
	let quote: IDataObject | undefined;
	if (!job && (options.maxCredits !== undefined || runBudget !== undefined)) {
		quote = await guardCost(this, input, options.maxCredits, capabilities, i, maxWaitSeconds);
	}
	if (!job) {
		const request = { input, idempotencyKey, quote, runBudget, i, maxWaitSeconds };
		job = await createJob(this, run, request);
		// An intent's key may name a job this run already holds (another execution's run had the same
		// inputs in another order) or that an earlier run of this node in this execution used (a loop):
		// then the intent's next key, as the other execution would take. Each such answer is a distinct
		// job of those, so this ends.
		const taken = (id: string) => run.claimed.has(id) || usedInEarlierRun(this, id);
		for (let attempt = 1; byIntent && taken(job.id); attempt++) {
			if (attempt > run.claimed.size + MAX_LOOP_ATTEMPTS) break;
			idempotencyKey = keyOf(attempt);
			job = await createJob(this, run, { ...request, idempotencyKey });
		}
	}
	run.claimed.add(job.id);
	recordUsedJob(this, job.id);
	this.logger.info(
		adopted
			? `Generation Service job ${job.id} picked up (${job.state}): same input created recently, nothing charged again`
			: `Generation Service job ${job.id} created (${job.state}${job.replayed ? ', replayed' : ''}, ${job.reservedCredits} credits reserved)`,
		{ jobId: job.id },
	);
	const extra = { replayed: job.replayed ?? false, adopted, idempotencyKey };
	if (!waitOpts) return [{ json: { ...job, ...extra }, pairedItem: { item: i } }];
	const created = job;
	run.continueLater(i, async () => {
		const item = await waitForJob(this, run, created.id, i, waitOpts, created);
		item.json = { ...item.json, ...extra };
		return [item];
	});
	return [];
}
