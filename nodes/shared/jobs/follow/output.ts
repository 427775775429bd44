// A finished job as an output item: the job, its MP4 as verified binary data, or its failure.
import type {
	IBinaryData,
	IExecuteFunctions,
	INodeExecutionData,
	IPollFunctions,
} from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { downloadBinary } from '../../transport';
import type { Job } from '../job';

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

export function failedJobError(ctx: IExecuteFunctions, job: Job, itemIndex: number) {
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
export async function finishedItem(
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
