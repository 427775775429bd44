// A job's output is a video worth looking at (emulator/src/testcard.ts): it plays for the job's durationSeconds
// at its aspect ratio, read here from the MP4's own boxes (mp4-boxes.ts). ffprobe, a full decode by ffmpeg and
// Chromium play the same kind of files in test/tools/emulator-video-players.test.mjs (the lint keeps child
// processes out of TypeScript tests).
import { createHash } from 'node:crypto';

import { asciiText, wrap } from '../../emulator/src/testcard';
import { bearer, boot, idem } from './helpers';
import type { Harness } from './helpers';
import { mp4Facts } from './mp4-boxes';

const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');
const SIZES = {
	'9:16': { width: 360, height: 640 },
	'16:9': { width: 640, height: 360 },
	'1:1': { width: 480, height: 480 },
} as const;
type Aspect = keyof typeof SIZES;

let h: Harness;
beforeAll(async () => {
	h = await boot({ initialCredits: 100_000 });
});
afterAll(() => h.emu.close());
afterEach(() => expect(h.emu.control.violations()).toEqual([]));

/** Creates a job (instant), returns it and its output MP4 as downloaded. */
async function made(
	body: Record<string, unknown>,
): Promise<{ id: string; sha256: string; bytes: Buffer }> {
	const created = await h.http.post('/jobs', body, {
		headers: { ...bearer(h.emu.keys.full), 'Idempotency-Key': idem('video') },
	});
	expect(created.status).toBe(202);
	const id = created.data.data.id as string;
	h.clock.t += 10_000; // past the referee's poll interval
	const job = await h.http.get(`/jobs/${id}`, { headers: bearer(h.emu.keys.full) });
	expect(job.data.data.state).toBe('succeeded');
	const out = await h.http.get(`/jobs/${id}/output`, {
		headers: bearer(h.emu.keys.full),
		responseType: 'arraybuffer',
	});
	expect(out.status).toBe(200);
	return { id, sha256: job.data.data.output.sha256, bytes: Buffer.from(out.data) };
}

const textJob = (
	durationSeconds: number,
	aspectRatio: Aspect,
	prompt = 'a red fox in the snow',
) => ({
	mode: 'text_to_video',
	prompt,
	durationSeconds,
	aspectRatio,
});

describe("emulator: a job's output video", () => {
	test.each([1, 5, 30])(
		'plays for durationSeconds = %i s: mvhd, tkhd and mdhd say so, 25 pictures a second',
		async (seconds) => {
			const { bytes } = await made(textJob(seconds, '9:16'));
			const mp4 = mp4Facts(bytes);
			expect(mp4.topLevel).toEqual(['ftyp', 'moov', 'mdat', 'free']);
			expect(mp4.movie.seconds).toBe(seconds);
			expect(mp4.media.seconds).toBe(seconds);
			expect(mp4.track.duration / mp4.movie.timescale).toBe(seconds);
			expect(mp4.samples.count).toBe(25 * seconds);
			expect(mp4.samples.sttsTotal).toBe(mp4.media.duration);
			// one chunk: the samples fill the mdat exactly, from the offset stco gives
			expect(mp4.samples.chunkOffset).toBe(mp4.mdat.body);
			expect(mp4.samples.sizes.reduce((a, b) => a + b, 0)).toBe(mp4.mdat.end - mp4.mdat.body);
			expect(mp4.samples.sync).toEqual([1]);
		},
	);

	test.each(Object.entries(SIZES))(
		'%s: the picture size in tkhd and avc1 (H.264 Baseline)',
		async (aspect, size) => {
			const { bytes } = await made(textJob(2, aspect as Aspect));
			const mp4 = mp4Facts(bytes);
			expect({ width: mp4.track.width, height: mp4.track.height }).toEqual(size);
			expect(mp4.sampleEntry).toEqual({ codec: 'avc1', ...size, profile: 66, level: 30 });
		},
	);

	test('every job has its own sha256 (the job id is in the file), the one its answer gives', async () => {
		const a = await made(textJob(5, '9:16'));
		const b = await made(textJob(5, '9:16'));
		expect(a.sha256).toBe(sha(a.bytes));
		expect(b.sha256).toBe(sha(b.bytes));
		expect(a.sha256).not.toBe(b.sha256);
		expect(mp4Facts(a.bytes).free!.label).toBe(`generation-service-emulator job ${a.id}`);
		// built again for a second download: the same bytes
		const again = await h.http.get(`/jobs/${a.id}/output`, {
			headers: bearer(h.emu.keys.full),
			responseType: 'arraybuffer',
		});
		expect(sha(Buffer.from(again.data))).toBe(a.sha256);
	});

	test('the output size setting pads with a free box after the video; a smaller setting pads nothing', async () => {
		h.emu.control.setOutputBytes(3 * 2 ** 20);
		const big = await made(textJob(5, '16:9'));
		h.emu.control.setOutputBytes(4096);
		const small = await made(textJob(5, '16:9'));
		expect(big.bytes.length).toBe(3 * 2 ** 20);
		const bigFree = mp4Facts(big.bytes).free!;
		expect(bigFree.size).toBe(big.bytes.length - mp4Facts(big.bytes).mdat.end);
		// 4096 bytes is less than the video: the box holds the label only
		const label = `generation-service-emulator job ${small.id}`;
		expect(mp4Facts(small.bytes).free).toEqual({ size: 8 + label.length, label });
		expect(small.bytes.length).toBeGreaterThan(4096);
	});

	test('the card shows prompts in the fonts it has (ASCII), wrapped at spaces', () => {
		expect(asciiText('Manutenção — “às   pressas”…')).toBe('Manutencao - "as pressas"...');
		expect(asciiText('雪の中の狐')).toBe('?????');
		expect(wrap('a red fox running through the snow', 10)).toEqual([
			'a red fox',
			'running',
			'through',
			'the snow',
		]);
		expect(wrap('job_0123456789abcdef', 8)).toEqual(['job_0123', '456789ab', 'cdef']);
	});
});
