// Uploads: the file read from n8n's binary store one chunk at a time, checked locally, sent as the raw body.
import { createHash } from 'crypto';
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { MAX_FILENAME_CHARS, MAX_UPLOAD_BYTES, MIME_TYPES, type MimeType } from '../constants';
import { unwrapEnvelope } from './envelope';
import { sendRequest } from './request';
import type { BinaryStream, ServiceRequest } from './types';

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

export function signatureMatches(mimeType: MimeType, head: Buffer): boolean {
	return SIGNATURES[mimeType](head);
}

/**
 * Percent-encodes a file name like encodeURIComponent and keeps it within 180 characters,
 * shortening the name before its extension by whole characters, so no escape is ever cut.
 */
export function encodeFileName(fileName: string, max = MAX_FILENAME_CHARS): string {
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
export async function hashStream(
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
