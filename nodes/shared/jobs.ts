import type {
	IBinaryData,
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	IPollFunctions,
} from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import type { Mode } from './constants';
import type { RunState } from './router';
import { apiRequest, now, wait } from './transport';
import { downloadBinary } from './transport/binary';

export interface Job extends IDataObject {
	id: string;
	state: 'queued' | 'running' | 'succeeded' | 'failed';
	reservedCredits: number;
	chargedCredits: number;
	output: { assetId: string; mimeType: string; sha256: string } | null;
	outputUrl: string | null;
	errorCode: string | null;
}

export const MIN_POLL_SECONDS = 5;

/**
 * The spec asks clients to read GET /capabilities before generating. Read once per node run (not per
 * item); refuse before any credit-related request when the engine is off or the mode not offered.
 */
export async function ensureGenerationAvailable(
	ctx: IExecuteFunctions,
	mode: Mode,
	state: RunState,
	itemIndex: number,
): Promise<void> {
	let capabilities = state.cache.get('capabilities') as IDataObject | undefined;
	if (!capabilities) {
		capabilities = await apiRequest<IDataObject>(ctx, {
			method: 'GET',
			path: '/capabilities',
			itemIndex,
		});
		state.cache.set('capabilities', capabilities);
	}
	const generation = (capabilities.generation ?? {}) as IDataObject;
	if (generation.available !== true) {
		const reason = generation.reason ? ` (reason: ${String(generation.reason)})` : '';
		const error = new NodeOperationError(
			ctx.getNode(),
			`The generation engine is unavailable right now${reason}; no credits were reserved and nothing was created. Try again later.`,
			{ itemIndex },
		);
		error.context.errorCode = 'engine_unavailable';
		throw error;
	}
	const modes = (generation.modes ?? []) as string[];
	if (!modes.includes(mode)) {
		const error = new NodeOperationError(
			ctx.getNode(),
			`The mode "${mode}" is not available now (available: ${modes.join(', ') || 'none'}); no credits were reserved.`,
			{ itemIndex },
		);
		error.context.errorCode = 'mode_unavailable';
		throw error;
	}
}

/** POST /jobs/quote: price and whether account and key can pay. Reserves nothing, so safe to retry. */
export async function quoteJob(
	ctx: IExecuteFunctions,
	input: IDataObject,
	itemIndex: number,
	maxWaitSeconds?: number,
): Promise<IDataObject> {
	return await apiRequest<IDataObject>(ctx, {
		method: 'POST',
		path: '/jobs/quote',
		body: input,
		itemIndex,
		safeToRetry: true,
		maxWaitSeconds,
	});
}

export interface WaitOptions {
	pollIntervalSeconds: number;
	timeoutMinutes: number;
	download: boolean;
	binaryPropertyName: string;
	maxWaitSeconds?: number;
}

/** Downloads a succeeded job's MP4 as binary data, verified against output.sha256. */
export async function downloadJobOutput(
	ctx: IExecuteFunctions | IPollFunctions,
	job: Job,
	itemIndex: number,
	options: { range?: string; maxWaitSeconds?: number } = {},
): Promise<IBinaryData> {
	return await downloadBinary(ctx, {
		path: `/jobs/${job.id}/output`,
		itemIndex,
		fileName: `${job.id}.mp4`,
		mimeType: 'video/mp4',
		range: options.range,
		expectedSha256: job.output?.sha256,
		maxWaitSeconds: options.maxWaitSeconds,
	});
}

function failedJobError(ctx: IExecuteFunctions, job: Job, itemIndex: number) {
	const error = new NodeOperationError(
		ctx.getNode(),
		`Job ${job.id} failed with error code "${job.errorCode ?? 'unknown'}". Its whole reservation (${job.reservedCredits} credits) was returned; nothing was charged.`,
		{ itemIndex, description: 'Check the input files and prompt, then create a new job.' },
	);
	error.context.errorCode = job.errorCode ?? 'job_failed';
	error.context.job = job;
	return error;
}

/**
 * Polls GET /jobs/{id} until the job ends (every N ≥ 5 s, as the spec advises), logging state
 * changes; on success downloads the MP4 into binary data. On timeout the job is not lost: the
 * error names it and says how to pick it up again.
 */
export async function waitForJob(
	ctx: IExecuteFunctions,
	jobId: string,
	itemIndex: number,
	options: WaitOptions,
	initial?: Job,
): Promise<INodeExecutionData> {
	const intervalMs = Math.max(MIN_POLL_SECONDS, options.pollIntervalSeconds) * 1000;
	const deadline = now() + options.timeoutMinutes * 60_000;
	let lastState = initial?.state;
	let job: Job | undefined =
		initial && (initial.state === 'succeeded' || initial.state === 'failed') ? initial : undefined;
	if (initial && !job) await wait(ctx, intervalMs, itemIndex);
	while (!job) {
		const current = await apiRequest<Job>(ctx, {
			method: 'GET',
			path: `/jobs/${jobId}`,
			itemIndex,
			maxWaitSeconds: options.maxWaitSeconds,
		});
		if (current.state !== lastState) {
			ctx.logger.info(
				`Generation Service job ${jobId}: ${lastState ? `${lastState} → ` : ''}${current.state}`,
				{ jobId, state: current.state },
			);
			lastState = current.state;
		}
		if (current.state === 'succeeded' || current.state === 'failed') {
			job = current;
			break;
		}
		if (now() + intervalMs > deadline) {
			const error = new NodeOperationError(
				ctx.getNode(),
				`Job ${jobId} has not finished after ${options.timeoutMinutes} min (state: ${current.state}). It keeps running on the service and is not lost: use "Get" or "Wait for Job" with job ID ${jobId} later.`,
				{ itemIndex },
			);
			error.context.errorCode = 'wait_timeout';
			error.context.job = current;
			throw error;
		}
		await wait(ctx, intervalMs, itemIndex);
	}
	if (job.state === 'failed') throw failedJobError(ctx, job, itemIndex);
	const item: INodeExecutionData = { json: job, pairedItem: { item: itemIndex } };
	if (options.download) {
		const binary = await downloadJobOutput(ctx, job, itemIndex, {
			maxWaitSeconds: options.maxWaitSeconds,
		});
		item.binary = { [options.binaryPropertyName]: binary };
	}
	return item;
}

/** Options of Wait for Job and of Create's "Wait for Completion", defined once. */
export function readWaitOptions(
	ctx: IExecuteFunctions,
	i: number,
	options: IDataObject,
): WaitOptions {
	const pollIntervalSeconds = Number(options.pollInterval ?? MIN_POLL_SECONDS);
	const timeoutMinutes = Number(options.timeout ?? 10);
	if (!(timeoutMinutes > 0 && timeoutMinutes <= 120)) {
		throw new NodeOperationError(ctx.getNode(), 'Timeout must be from 1 to 120 minutes.', {
			itemIndex: i,
		});
	}
	return {
		pollIntervalSeconds: Math.max(MIN_POLL_SECONDS, pollIntervalSeconds),
		timeoutMinutes,
		download: options.downloadOutput !== false,
		binaryPropertyName: String(options.binaryPropertyName ?? 'data'),
		maxWaitSeconds: options.maxRateLimitWait as number | undefined,
	};
}
