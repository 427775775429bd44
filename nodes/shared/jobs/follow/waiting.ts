// Waiting for a job to end, as Wait for Job and Create's "Wait for Completion" do it.
import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { runsAsTool } from '../../agent';
import { DEFAULT_MAX_TOOL_WAIT_SECONDS } from '../../constants';
import type { JobRun } from '../run';
import type { Job } from '../job';
import { MIN_POLL_SECONDS, isFinished } from '../job';
import type { FinishOptions } from './output';
import { finishedItem } from './output';

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
	const job = await run.watcher.follow(
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
