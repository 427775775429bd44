import { ApiError } from './errors';
import { SAMPLE_VIDEO_MP4 } from './samples';
import type { MimeType } from './state';

export const SAMPLE_VIDEO = Buffer.from(SAMPLE_VIDEO_MP4, 'base64');

/** True when the first bytes match the declared type. */
export function signatureMatches(mimeType: MimeType, bytes: Buffer): boolean {
	const starts = (sig: number[], offset = 0) =>
		bytes.length >= offset + sig.length && sig.every((b, i) => bytes[offset + i] === b);
	switch (mimeType) {
		case 'image/jpeg':
			return starts([0xff, 0xd8, 0xff]);
		case 'image/png':
			return starts([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
		case 'image/webp':
			return (
				bytes.length >= 12 &&
				bytes.toString('latin1', 0, 4) === 'RIFF' &&
				bytes.toString('latin1', 8, 12) === 'WEBP'
			);
		case 'video/mp4':
			return bytes.length >= 8 && bytes.toString('latin1', 4, 8) === 'ftyp';
		case 'video/webm':
			return starts([0x1a, 0x45, 0xdf, 0xa3]);
	}
	return false;
}

/**
 * A job's MP4: the sample video followed by an ISO-BMFF `free` box holding the job id and
 * zero padding up to `size` bytes (never smaller than the sample + a 48-byte box), so every
 * job has its own sha256 and the file still opens in any video tool.
 */
export function buildOutputMp4(jobId: string, size: number): Buffer {
	const label = Buffer.from(`generation-service-emulator job ${jobId}`, 'latin1');
	const boxSize = Math.max(8 + label.length, size - SAMPLE_VIDEO.length);
	const box = Buffer.alloc(boxSize);
	box.writeUInt32BE(boxSize, 0);
	box.write('free', 4, 'latin1');
	label.copy(box, 8);
	return Buffer.concat([SAMPLE_VIDEO, box]);
}

export interface ByteRange {
	start: number;
	end: number;
}

/**
 * Parses a `Range` header against a body of `size` bytes.
 * null = no Range header (answer 200). Only one `bytes=` range is supported; anything else
 * (syntax error, several ranges, start beyond the end) answers 416.
 */
export function parseRange(header: string | undefined, size: number): ByteRange | null {
	if (header === undefined) return null;
	const unsatisfiable = () =>
		new ApiError('range_not_satisfiable', undefined, { 'Content-Range': `bytes */${size}` });
	const m = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
	if (!m || (m[1] === '' && m[2] === '')) throw unsatisfiable();
	let start: number;
	let end: number;
	if (m[1] === '') {
		const suffix = Number(m[2]);
		if (suffix === 0) throw unsatisfiable();
		start = Math.max(0, size - suffix);
		end = size - 1;
	} else {
		start = Number(m[1]);
		end = m[2] === '' ? size - 1 : Math.min(Number(m[2]), size - 1);
		if (m[2] !== '' && Number(m[2]) < start) throw unsatisfiable();
	}
	if (start >= size || size === 0) throw unsatisfiable();
	return { start, end };
}
