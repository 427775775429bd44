// Waiting for a job to end, as Wait for Job and Create's "Wait for Completion" do it.
import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { runsAsTool } from '../agent';
import type { JobRun } from './run';
import type { Job } from './job';
import { MIN_POLL_SECONDS } from './job';
import type { FinishOptions } from './output';
import { finishedItem } from './output';

export interface WaitOptions extends FinishOptions {
	pollIntervalSeconds: number;
	timeoutMinutes: number;
}

/**
 * Options of Wait for Job and of Create's "Wait for Completion", defined once. As a tool of an AI agent
 * nothing is downloaded: the agent gets the job (its output's size and sha256), never the file.
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
	return {
		pollIntervalSeconds: Math.max(MIN_POLL_SECONDS, pollIntervalSeconds),
		timeoutMinutes,
		download: options.downloadOutput !== false && !runsAsTool(ctx),
		binaryPropertyName: String(options.binaryPropertyName ?? 'data'),
		maxWaitSeconds: options.maxRateLimitWait as number | undefined,
	};
}

/**
 * Follows the job with the run's watcher (side by side with the other items' jobs) until it ends,
 * then builds its output item; the download starts as soon as this job is seen finished.
 */
export async function waitForJob(
	ctx: IExecuteFunctions,
	run: JobRun,
	jobId: string,
	itemIndex: number,
	options: WaitOptions,
	known?: Job,
): Promise<INodeExecutionData> {
	const job = await run.watcher.follow(
		jobId,
		{
			itemIndex,
			intervalMs: options.pollIntervalSeconds * 1000,
			timeoutMinutes: options.timeoutMinutes,
			maxWaitSeconds: options.maxWaitSeconds,
		},
		known,
	);
	return await finishedItem(
		ctx,
		job,
		itemIndex,
		options,
		async (fn) => await run.downloads.run(fn),
	);
}
