// Downloads: the response streamed once into n8n's binary store, hashed on the way, checked after.
import { createHash } from 'crypto';
import type { IBinaryData, IExecuteFunctions, IPollFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { sendRequest } from './request';
import { wait } from './time';
import { RETRY_POLICY, backoffMs } from './retry';
import type { BinaryStream } from './types';

type BinaryContext = IExecuteFunctions | IPollFunctions;

export interface DownloadOptions {
	path: string;
	itemIndex: number;
	fileName: string;
	mimeType?: string;
	/** `bytes=<start>-<end>` */
	range?: string;
	expectedSha256?: string;
	maxWaitSeconds?: number;
	/** What is being downloaded, named in the error (e.g. the object the file belongs to), so nothing paid for is lost. */
	subject?: string;
}

export interface Tap {
	bytes: number;
	sha256: () => string;
	/** The stream to hand to n8n: the same bytes, counted and hashed as n8n reads them. */
	stream: BinaryStream;
}

type StreamClass = { from?: (source: AsyncIterable<Buffer>) => BinaryStream };

/**
 * One pass over a download: a fresh stream built from the response's bytes, each counted and hashed
 * as n8n pulls it into its binary store; no copy held. The response is read by async iteration (which
 * works whatever state it is in); the new stream comes from Readable.from, reached through the
 * response's own class (every Readable subclass inherits it; node code may not import node:stream),
 * so n8n may read it any way: 'data' listeners (database and in-memory modes), iteration (filesystem
 * mode) or pipe.
 */
export function tapStream(source: BinaryStream): Tap {
	const hash = createHash('sha256');
	let bytes = 0;
	async function* counted(): AsyncGenerator<Buffer> {
		for await (const chunk of source as unknown as AsyncIterable<Buffer | string>) {
			const buffer = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
			bytes += buffer.length;
			hash.update(buffer);
			yield buffer;
		}
	}
	let streamClass = (source as unknown as { constructor?: StreamClass }).constructor;
	while (streamClass && typeof streamClass.from !== 'function') {
		streamClass = Object.getPrototypeOf(streamClass) as StreamClass | undefined;
	}
	if (!streamClass?.from) throw new Error('the response is not a readable stream');
	return {
		get bytes() {
			return bytes;
		},
		sha256: () => hash.digest('hex'),
		stream: streamClass.from(counted()),
	};
}

/**
 * Streams a binary endpoint into n8n's binary store (never the whole file in memory in filesystem
 * mode), hashing it on the way, then checks the size against Content-Length and the hash against the
 * expected sha256. A body cut mid-stream or a checksum mismatch is downloaded again (3 tries); a
 * persistent mismatch fails, never a silently bad file.
 */
export async function downloadBinary(
	ctx: BinaryContext,
	options: DownloadOptions,
): Promise<IBinaryData> {
	let lastProblem = '';
	for (let attempt = 1; attempt <= RETRY_POLICY.attempts; attempt++) {
		if (attempt > 1) await wait(ctx, backoffMs(attempt - 1), options.itemIndex);
		const response = await sendRequest(
			ctx,
			{
				method: 'GET',
				path: options.path,
				itemIndex: options.itemIndex,
				maxWaitSeconds: options.maxWaitSeconds,
				timeoutMs: 10 * 60_000,
				priority: 'transfer',
				headers: options.range ? { Accept: '*/*', Range: options.range } : { Accept: '*/*' },
			},
			{ encoding: 'stream', json: false },
		);
		const tap = tapStream(response.body as BinaryStream);
		let binary: IBinaryData;
		try {
			binary = await ctx.helpers.prepareBinaryData(tap.stream, options.fileName, options.mimeType);
		} catch (error) {
			lastProblem = `the download of ${options.path} was cut off`;
			ctx.logger.debug(`Generation Service: ${lastProblem} (try ${attempt})`, {
				reason: (error as Error).message,
			});
			continue;
		}
		const expectedLength = Number(response.headers['content-length']);
		if (Number.isFinite(expectedLength) && tap.bytes !== expectedLength) {
			lastProblem = `the download of ${options.path} ended after ${tap.bytes} of ${expectedLength} bytes`;
			ctx.logger.debug(`Generation Service: ${lastProblem} (try ${attempt})`);
			continue;
		}
		const sha256 = tap.sha256();
		if (!options.range && options.expectedSha256 && sha256 !== options.expectedSha256) {
			lastProblem = `the downloaded file's sha256 (${sha256}) does not match the service's output.sha256 (${options.expectedSha256})`;
			ctx.logger.debug(`Generation Service: ${lastProblem} (try ${attempt})`);
			continue;
		}
		return binary;
	}
	const error = new NodeOperationError(
		ctx.getNode(),
		`${options.subject ? `${options.subject}: download` : 'Download'} failed after ${RETRY_POLICY.attempts} tries: ${lastProblem}. No file was output. Run the node again later (the file stays available on the service${options.subject ? `: use Download Output with ${options.subject.toLowerCase()}` : ''}).`,
		{ itemIndex: options.itemIndex },
	);
	error.context.errorCode = 'download_failed';
	throw error;
}
