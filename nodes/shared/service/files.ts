// Files: uploads read from n8n's binary store one chunk at a time, checked locally (type, first bytes, size,
// name) and sent as the raw body under an Idempotency-Key made from their sha256; downloads streamed once
// into n8n's binary store, hashed on the way and checked after (length, sha256). Both go through the
// client (client.ts): a download that came wrong is asked for again under its one retry policy.
import { createHash } from 'crypto';
import type { IBinaryData, IDataObject, IExecuteFunctions, IPollFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { MAX_FILENAME_CHARS, MAX_UPLOAD_BYTES, MIME_TYPES, type MimeType } from '../constants';
import type { RawResponse, ServiceRequest } from './client';
import { BadAnswer, RETRY_POLICY, sendRequest, unwrapEnvelope } from './client';
import type { BinaryStream } from './service';

// ---- Uploads ----

const SIGNATURES: Record<MimeType, (head: Buffer) => boolean> = {
	'image/jpeg': (b) => b.length >= 3 && b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff,
	'image/png': (b) =>
		b.length >= 8 &&
		b.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])),
	'image/webp': (b) =>
		b.length >= 12 &&
		b.toString('latin1', 0, 4) === 'RIFF' &&
		b.toString('latin1', 8, 12) === 'WEBP',
	'video/mp4': (b) => b.length >= 8 && b.toString('latin1', 4, 8) === 'ftyp',
	'video/webm': (b) =>
		b.length >= 4 && b[0] === 0x1a && b[1] === 0x45 && b[2] === 0xdf && b[3] === 0xa3,
};

function signatureMatches(mimeType: MimeType, head: Buffer): boolean {
	return SIGNATURES[mimeType](head);
}

/**
 * Percent-encodes a file name like encodeURIComponent and keeps it within 180 characters,
 * shortening the name before its extension by whole characters, so no escape is ever cut.
 */
function encodeFileName(fileName: string, max = MAX_FILENAME_CHARS): string {
	const encoded = encodeURIComponent(fileName);
	if (encoded.length <= max) return encoded;
	const dot = fileName.lastIndexOf('.');
	const ext = dot > 0 && fileName.length - dot <= 16 ? fileName.slice(dot) : '';
	const base = Array.from(ext ? fileName.slice(0, dot) : fileName);
	const encodedExt = encodeURIComponent(ext);
	while (base.length > 0 && encodeURIComponent(base.join('')).length + encodedExt.length > max) {
		base.pop();
	}
	// The extension is at most 16 characters, so the base alone is what gets shorter.
	return encodeURIComponent(base.join('')) + encodedExt;
}

export interface UploadSource {
	fileName: string;
	mimeType: string;
	size: number;
	head: Buffer;
	sha256: string;
	/** A fresh body for each attempt: a stream from n8n's binary store, or the buffer. */
	openBody: () => Promise<Buffer | BinaryStream>;
}

/** sha256, size and first bytes of a stream, holding one chunk at a time. */
async function hashStream(
	stream: BinaryStream,
): Promise<{ sha256: string; size: number; head: Buffer }> {
	const hash = createHash('sha256');
	let size = 0;
	const headChunks: Buffer[] = [];
	let headBytes = 0;
	for await (const chunk of stream as unknown as AsyncIterable<Buffer>) {
		hash.update(chunk);
		size += chunk.length;
		if (headBytes < 16) {
			headChunks.push(chunk.subarray(0, 16 - headBytes));
			headBytes += Math.min(chunk.length, 16 - headBytes);
		}
	}
	return { sha256: hash.digest('hex'), size, head: Buffer.concat(headChunks) };
}

/** Reads an input item's binary property without loading a file-backed binary into memory. */
export async function readUploadSource(
	ctx: IExecuteFunctions,
	itemIndex: number,
	binaryPropertyName: string,
	overrides: { fileName?: string; mimeType?: string },
): Promise<UploadSource> {
	const binary = ctx.helpers.assertBinaryData(itemIndex, binaryPropertyName);
	const fileName = overrides.fileName || binary.fileName || 'upload';
	// A type like "image/jpeg; charset=binary" is sent and checked without its parameters.
	const mimeType = (overrides.mimeType || binary.mimeType || '').split(';')[0].trim().toLowerCase();
	if (binary.id) {
		const id = binary.id;
		const metadata = await ctx.helpers.getBinaryMetadata(id);
		const digest = await hashStream(await ctx.helpers.getBinaryStream(id));
		return {
			fileName,
			mimeType,
			size: metadata.fileSize ?? digest.size,
			head: digest.head,
			sha256: digest.sha256,
			openBody: async () => await ctx.helpers.getBinaryStream(id),
		};
	}
	const buffer = await ctx.helpers.getBinaryDataBuffer(itemIndex, binaryPropertyName);
	return {
		fileName,
		mimeType,
		size: buffer.length,
		head: buffer.subarray(0, 16),
		sha256: createHash('sha256').update(buffer).digest('hex'),
		openBody: async () => buffer,
	};
}

/** The checks the service would make, done locally so a bad file costs no request. */
export function checkUploadSource(
	ctx: IExecuteFunctions,
	source: UploadSource,
	itemIndex: number,
): string {
	const node = ctx.getNode();
	const where = `item ${itemIndex}`;
	if (!(MIME_TYPES as readonly string[]).includes(source.mimeType)) {
		throw new NodeOperationError(
			node,
			`File type "${source.mimeType || 'unknown'}" of ${where} is not accepted: use one of ${MIME_TYPES.join(', ')} (set "MIME Type" in Options if the binary data has the wrong one).`,
			{ itemIndex },
		);
	}
	if (source.size > MAX_UPLOAD_BYTES) {
		throw new NodeOperationError(
			node,
			`File of ${where} is ${source.size} bytes: the limit is 20 MiB (${MAX_UPLOAD_BYTES} bytes) per file.`,
			{ itemIndex },
		);
	}
	if (source.size === 0) {
		throw new NodeOperationError(node, `File of ${where} is empty.`, { itemIndex });
	}
	if (!signatureMatches(source.mimeType as MimeType, source.head)) {
		throw new NodeOperationError(
			node,
			`File of ${where} does not look like ${source.mimeType}: its first bytes do not match that type. Set the right MIME type or convert the file.`,
			{ itemIndex },
		);
	}
	const encoded = encodeFileName(source.fileName);
	if (!encoded) {
		throw new NodeOperationError(node, `File name of ${where} is empty after encoding.`, {
			itemIndex,
		});
	}
	return encoded;
}

/** POST /assets with the raw bytes (streamed when n8n keeps them on disk). */
export async function uploadAsset(
	ctx: IExecuteFunctions,
	source: UploadSource,
	options: {
		itemIndex: number;
		encodedFileName: string;
		idempotencyKey: string;
		maxWaitSeconds?: number;
	},
) {
	const request: ServiceRequest = {
		method: 'POST',
		path: '/assets',
		itemIndex: options.itemIndex,
		idempotencyKey: options.idempotencyKey,
		maxWaitSeconds: options.maxWaitSeconds,
		timeoutMs: 10 * 60_000,
		headers: {
			'Content-Type': source.mimeType,
			'Content-Length': String(source.size),
			'X-Service-Filename': options.encodedFileName,
		},
	};
	const response = await sendRequest(ctx, request, { buildBody: source.openBody, json: true });
	return unwrapEnvelope<{ asset: IDataObject; replayed: boolean }>(ctx, request, response);
}

/** The key of an upload is the file's sha256: the same bytes always replay the existing asset. */
export function uploadIdempotencyKey(sha256: string): string {
	return `asset.sha256.${sha256}`;
}

// ---- Downloads ----

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
 * Streams a binary endpoint into n8n's binary store (never the whole file in memory in filesystem mode),
 * hashing it on the way, then checks the size against Content-Length and the hash against the expected
 * sha256. A body cut mid-stream, a short body or a checksum mismatch is a bad answer: the client asks for
 * the file again under its retry policy (RETRY_POLICY.attempts tries in all); a persistent one fails,
 * never a silently bad file.
 */
export async function downloadBinary(
	ctx: BinaryContext,
	options: DownloadOptions,
): Promise<IBinaryData> {
	const receive = async (response: RawResponse): Promise<IBinaryData | BadAnswer> => {
		const tap = tapStream(response.body as BinaryStream);
		let binary: IBinaryData;
		try {
			binary = await ctx.helpers.prepareBinaryData(tap.stream, options.fileName, options.mimeType);
		} catch (error) {
			ctx.logger.debug(`Generation Service: the download of ${options.path} was cut off`, {
				reason: (error as Error).message,
			});
			return new BadAnswer(`the download of ${options.path} was cut off`);
		}
		const expectedLength = Number(response.headers['content-length']);
		if (Number.isFinite(expectedLength) && tap.bytes !== expectedLength) {
			return new BadAnswer(
				`the download of ${options.path} ended after ${tap.bytes} of ${expectedLength} bytes`,
			);
		}
		const sha256 = tap.sha256();
		if (!options.range && options.expectedSha256 && sha256 !== options.expectedSha256) {
			return new BadAnswer(
				`the downloaded file's sha256 (${sha256}) does not match the service's output.sha256 (${options.expectedSha256})`,
			);
		}
		return binary;
	};
	const giveUpOnBadAnswer = (problem: string) => {
		const error = new NodeOperationError(
			ctx.getNode(),
			`${options.subject ? `${options.subject}: download` : 'Download'} failed after ${RETRY_POLICY.attempts} tries: ${problem}. No file was output. Run the node again later (the file stays available on the service${options.subject ? `: use Download Output with ${options.subject.toLowerCase()}` : ''}).`,
			{ itemIndex: options.itemIndex },
		);
		error.context.errorCode = 'download_failed';
		return error;
	};
	const request: ServiceRequest = {
		method: 'GET',
		path: options.path,
		itemIndex: options.itemIndex,
		maxWaitSeconds: options.maxWaitSeconds,
		timeoutMs: 10 * 60_000,
		priority: 'transfer',
		headers: options.range ? { Accept: '*/*', Range: options.range } : { Accept: '*/*' },
	};
	return await sendRequest(ctx, request, {
		encoding: 'stream',
		json: false,
		receive,
		giveUpOnBadAnswer,
	});
}
