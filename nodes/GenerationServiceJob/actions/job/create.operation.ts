import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
} from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { maxRateLimitWaitOption, optionsCollection } from '../../../shared/descriptions/common';
import {
	buildJobInput,
	jobInputFields,
	type JobInput,
} from '../../../shared/descriptions/jobInput';
import { waitOptions } from '../../../shared/descriptions/wait';
import { checkIdempotencyKey, deriveIdempotencyKey } from '../../../shared/idempotency';
import type { Job } from '../../../shared/jobs';
import {
	ensureGenerationAvailable,
	quoteJob,
	readWaitOptions,
	waitForJob,
} from '../../../shared/jobs';
import type { RunState } from '../../../shared/router';
import { apiRequest } from '../../../shared/transport';

const show = { resource: ['job'], operation: ['create'] };

export const description: INodeProperties[] = [
	...jobInputFields(show),
	optionsCollection(
		[
			{
				displayName: 'Idempotency Key',
				name: 'idempotencyKey',
				type: 'string',
				default: '',
				placeholder: 'order-000042-video-v1',
				description:
					'Key that identifies this generation (16–128 characters from A-Z a-z 0-9 _ . : -). The same key and input never create a second job or charge twice. Empty: the node derives one from the execution, node, item and input, so retries (including "Retry On Fail") reuse it. Set it from a row ID to make re-runs for the same row safe too.',
			},
			{
				displayName: 'Max Credits',
				name: 'maxCredits',
				type: 'number',
				typeOptions: { minValue: 1 },
				default: 50,
				description:
					'Quote first and refuse, creating nothing, when the job would reserve more credits than this or the account or key cannot pay',
			},
			maxRateLimitWaitOption,
			{
				displayName: 'Wait for Completion',
				name: 'waitForCompletion',
				type: 'boolean',
				default: false,
				description:
					'Whether to wait until the job ends and output the MP4 as binary data (like "Wait for Job"). The Download Output, Poll Interval, Timeout and Put Output File in Field options apply only then.',
			},
			...waitOptions,
		],
		{ show },
	),
];

interface CreateOptions extends IDataObject {
	idempotencyKey?: string;
	maxCredits?: number;
	maxRateLimitWait?: number;
	waitForCompletion?: boolean;
}

async function guardCost(
	ctx: IExecuteFunctions,
	input: JobInput,
	maxCredits: number,
	i: number,
	maxWaitSeconds?: number,
): Promise<IDataObject> {
	const quote = await quoteJob(ctx, input, i, maxWaitSeconds);
	const reserved = Number(quote.reservedCredits);
	let problem: string | undefined;
	if (reserved > maxCredits) {
		problem = `The quote is ${reserved} credits, above Max Credits (${maxCredits}): nothing was created and nothing was reserved.`;
	} else if (quote.sufficient !== true) {
		problem = `Not enough credits: ${String(quote.available)} available, ${reserved} needed${
			quote.keyRemaining !== null && quote.keyRemaining !== undefined
				? ` (the key may still spend ${String(quote.keyRemaining)})`
				: ''
		}. Nothing was created. Buy credits in the dashboard.`;
	}
	if (problem) {
		const error = new NodeOperationError(ctx.getNode(), problem, {
			itemIndex: i,
			description: `Quote: ${JSON.stringify(quote)}`,
		});
		error.context.errorCode =
			reserved > maxCredits ? 'max_credits_exceeded' : 'insufficient_credits';
		error.context.quote = quote;
		throw error;
	}
	return quote;
}

/**
 * POST /jobs: reserves the quote's credits and queues the generation (spends credits). Always sends
 * an Idempotency-Key that is stable for this intent.
 */
export async function execute(
	this: IExecuteFunctions,
	i: number,
	state: RunState,
): Promise<INodeExecutionData[]> {
	const input = buildJobInput(this, i);
	const options = this.getNodeParameter('options', i, {}) as CreateOptions;
	const idempotencyKey = options.idempotencyKey
		? checkIdempotencyKey(this, options.idempotencyKey, i)
		: deriveIdempotencyKey(this, i, 'job', input);
	const waitOpts = options.waitForCompletion ? readWaitOptions(this, i, options) : undefined;
	await ensureGenerationAvailable(this, input.mode, state, i);
	let quote: IDataObject | undefined;
	if (options.maxCredits !== undefined) {
		quote = await guardCost(this, input, options.maxCredits, i, options.maxRateLimitWait);
	}
	const job = await apiRequest<Job>(this, {
		method: 'POST',
		path: '/jobs',
		body: input,
		idempotencyKey,
		itemIndex: i,
		maxWaitSeconds: options.maxRateLimitWait,
		errorContext: quote
			? { creditsNeeded: Number(quote.reservedCredits), creditsAvailable: Number(quote.available) }
			: undefined,
	});
	this.logger.info(
		`Generation Service job ${job.id} created (${job.state}${job.replayed ? ', replayed' : ''}, ${job.reservedCredits} credits reserved)`,
		{ jobId: job.id },
	);
	if (!waitOpts) {
		return [{ json: { ...job, idempotencyKey }, pairedItem: { item: i } }];
	}
	// Waits run after every item's job is created, so a batch's jobs are generated side by side.
	state.deferred.set(i, async () => {
		const item = await waitForJob(this, job.id, i, waitOpts, job);
		item.json = { ...item.json, replayed: job.replayed ?? false, idempotencyKey };
		return [item];
	});
	return [];
}
