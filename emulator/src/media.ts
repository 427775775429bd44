import { ApiError } from './errors';
import { mp4Of } from './mp4';
import type { JobInput, MimeType } from './state';
import { testCardVideo } from './testcard';

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

/** The videos built last, by job id: a job's MP4 is built when it ends and again for each download. */
const recentVideos = new Map<string, Buffer>();
const RECENT_VIDEOS = 16;

/** A job's video alone (testcard.ts): the same bytes for the same job id and input. */
export function jobVideo(jobId: string, input: JobInput): Buffer {
	const key = `${jobId} ${JSON.stringify(input)}`;
	const known = recentVideos.get(key);
	if (known) return known;
	const video = mp4Of(testCardVideo(jobId, input));
	recentVideos.set(key, video);
	if (recentVideos.size > RECENT_VIDEOS)
		recentVideos.delete(recentVideos.keys().next().value as string);
	return video;
}

/**
 * A job's MP4: its test-card video (testcard.ts: durationSeconds long at its aspect ratio, naming the mode, the
 * job id and the prompt), followed by an ISO-BMFF `free` box holding the job id and zero padding up to `size`
 * bytes (the emulator's output size; at least a 48-byte box), so every job has its own sha256, a test can ask
 * for large files, and the file still plays in any video tool.
 */
export function buildOutputMp4(jobId: string, input: JobInput, size: number): Buffer {
	const video = jobVideo(jobId, input);
	const label = Buffer.from(`generation-service-emulator job ${jobId}`, 'latin1');
	const boxSize = Math.max(8 + label.length, size - video.length);
	const box = Buffer.alloc(boxSize);
	box.writeUInt32BE(boxSize, 0);
	box.write('free', 4, 'latin1');
	label.copy(box, 8);
	return Buffer.concat([video, box]);
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
