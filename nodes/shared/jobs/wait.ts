// Waiting for a job to end — Wait for Job, and Create's "Wait for Completion" — and what the node then
// outputs: the job with its MP4 as verified binary data (a failed job is an error), or, as a tool of an AI
// agent or MCP client, a lean answer that says when to look again while the job has not ended.
import type {
	IBinaryData,
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	IPollFunctions,
} from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { DEFAULT_MAX_TOOL_WAIT_SECONDS } from '../constants';
import { runsAsTool } from '../router';
import { downloadBinary } from '../service/files';
import { now } from '../service/service';
import type { Job } from './job';
import { MIN_POLL_SECONDS, isFinished } from './job';
import type { JobRun } from './run';
import { followJob } from './watch';

// ---- Waiting ----

export interface WaitOptions extends FinishOptions {
	pollIntervalSeconds: number;
	timeoutMinutes: number;
	/**
	 * As a tool: the call answers within this many seconds of its start (Max Wait as a Tool, at most the
	 * Timeout), with the job as last seen when it has not ended; the job keeps running. Undefined in a
	 * workflow: the wait goes on up to Timeout.
	 */
	answerWithinSeconds?: number;
}

/**
 * Options of Wait for Job and of Create's "Wait for Completion", defined once. As a tool of an AI agent
 * (or an MCP client) nothing is downloaded — the model gets the job (its output's sha256), never the
 * file — and the wait is bounded by "Max Wait as a Tool".
 */
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
	const asTool = runsAsTool(ctx);
	const maxToolWait = Number(options.maxToolWait ?? DEFAULT_MAX_TOOL_WAIT_SECONDS);
	if (asTool && !(maxToolWait > 0)) {
		throw new NodeOperationError(ctx.getNode(), 'Max Wait as a Tool must be above 0 seconds.', {
			itemIndex: i,
		});
	}
	return {
		pollIntervalSeconds: Math.max(MIN_POLL_SECONDS, pollIntervalSeconds),
		timeoutMinutes,
		answerWithinSeconds: asTool ? Math.min(maxToolWait, timeoutMinutes * 60) : undefined,
		download: options.downloadOutput !== false && !asTool,
		binaryPropertyName: String(options.binaryPropertyName ?? 'data'),
		maxWaitSeconds: options.maxRateLimitWait as number | undefined,
	};
}

/**
 * Follows the job with the run's watcher (side by side with the other items' jobs) until it ends,
 * then builds its output item; the download starts as soon as this job is seen finished. As a tool the
 * item comes by the run's answer time (answerWithinSeconds after the call began) at the latest: then
 * it holds the job as last seen, unfinished, and the job goes on without being looked at.
 */
export async function waitForJob(
	ctx: IExecuteFunctions,
	run: JobRun,
	jobId: string,
	itemIndex: number,
	options: WaitOptions,
	known?: Job,
): Promise<INodeExecutionData> {
	const { answerWithinSeconds } = options;
	const job = await followJob(
		ctx,
		run,
		jobId,
		{
			itemIndex,
			intervalMs: options.pollIntervalSeconds * 1000,
			timeoutMinutes: options.timeoutMinutes,
			maxWaitSeconds: options.maxWaitSeconds,
			answerBy:
				answerWithinSeconds === undefined ? undefined : run.startedAt + answerWithinSeconds * 1000,
		},
		known,
	);
	if (!isFinished(job)) return { json: job, pairedItem: { item: itemIndex } };
	return await finishedItem(
		ctx,
		job,
		itemIndex,
		options,
		async (fn) => await run.downloads.run(fn),
	);
}

// ---- The output item and its MP4 ----

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
		subject: `Job ${job.id}`,
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

export interface FinishOptions {
	download: boolean;
	binaryPropertyName: string;
	maxWaitSeconds?: number;
}

/** The output item of a job that ended: it and its MP4 when it succeeded; an error when it failed. */
async function finishedItem(
	ctx: IExecuteFunctions,
	job: Job,
	itemIndex: number,
	options: FinishOptions,
	runDownload: <T>(fn: () => Promise<T>) => Promise<T>,
): Promise<INodeExecutionData> {
	if (job.state === 'failed') throw failedJobError(ctx, job, itemIndex);
	const item: INodeExecutionData = { json: job, pairedItem: { item: itemIndex } };
	if (options.download) {
		const binary = await runDownload(
			async () =>
				await downloadJobOutput(ctx, job, itemIndex, { maxWaitSeconds: options.maxWaitSeconds }),
		);
		item.binary = { [options.binaryPropertyName]: binary };
	}
	return item;
}

// ---- Answers to a model ----

/** Fields of a job answer a model never needs. */
const NOT_FOR_MODELS = ['input', 'idempotencyKey'];
/** Fields of a quote that only repeat what the model asked for. */
const QUOTE_ECHO = ['mode', 'durationSeconds'];

function without(json: IDataObject, fields: readonly string[]): IDataObject {
	return Object.fromEntries(Object.entries(json).filter(([key]) => !fields.includes(key)));
}

/**
 * When a model should look at an unfinished job again: about as long as the job has already existed
 * (the service gives no estimate of the time left; asking again after as long again keeps a model's
 * calls few however long the job takes), never sooner than 10 s (the service advises reading a job
 * every 5 to 10 s) and never later than 60 s; in steps of 5 s.
 */
export function lookAgainInSeconds(createdAt: unknown, clockNow: number): number {
	const age = typeof createdAt === 'number' ? (clockNow - createdAt) / 1000 : 0;
	return Math.ceil(Math.min(60, Math.max(10, age)) / 5) * 5;
}

/** The next step for a model while a job has not ended; `waitedSeconds`: how long the call waited. */
export function nextStep(job: IDataObject, clockNow: number, waitedSeconds?: number): string {
	const state = String(job.state ?? 'unknown');
	const waited = waitedSeconds === undefined ? '' : ` after ${waitedSeconds} s`;
	const again = lookAgainInSeconds(job.createdAt, clockNow);
	return `Still ${state}${waited}: the job keeps running and is not lost. Call Get Job with job ID ${String(job.id)} in about ${again} s.`;
}

/**
 * A job (Create, Get, Wait for Job) as the node outputs it: unchanged in a workflow; for a model lean,
 * with `nextStep` while it has not ended. `waitedSince`: when the call began to wait (the node run's
 * start), for a wait that ended before the job did.
 */
export function jobAnswer(
	ctx: IExecuteFunctions,
	json: IDataObject,
	waitedSince?: number,
): IDataObject {
	if (!runsAsTool(ctx)) return json;
	const answer = without(json, NOT_FOR_MODELS);
	if (!isFinished(json as Pick<Job, 'state'>)) {
		const at = now();
		const waited = waitedSince === undefined ? undefined : Math.round((at - waitedSince) / 1000);
		answer.nextStep = nextStep(json, at, waited);
	}
	return answer;
}

/** A quote as the node outputs it: unchanged in a workflow; for a model without the echo of its input. */
export function quoteAnswer(ctx: IExecuteFunctions, json: IDataObject): IDataObject {
	return runsAsTool(ctx) ? without(json, QUOTE_ECHO) : json;
}
