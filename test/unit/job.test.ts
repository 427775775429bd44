import { createHash } from 'crypto';
import nock from 'nock';
import type { IDataObject } from 'n8n-workflow';

import { GenerationServiceJob } from '../../nodes/GenerationServiceJob/GenerationServiceJob.node';
import { SAMPLE_VIDEO_MP4 } from '../../emulator/src/samples';
import { TEST_KEY, binaryBytes, runNode } from '../helpers/n8n';
import { useNock } from '../helpers/nock';

const BASE = 'https://api.gen.test/v1';
const node = new GenerationServiceJob();
const hex = (c: string) => c.repeat(32);
const VIDEO = `asset_${hex('a')}`;
const IMAGE = `asset_${hex('b')}`;
const PERSONA = `prs_${hex('c')}`;
const JOB = `job_${hex('d')}`;
const rl = (value: string) => ({ __rl: true, mode: 'id', value });
const mp4 = Buffer.from(SAMPLE_VIDEO_MP4, 'base64');
const mp4Sha = createHash('sha256').update(mp4).digest('hex');

const capabilities = {
	data: {
		generation: {
			available: true,
			reason: null,
			modes: ['character_replacement', 'image_to_video', 'text_to_video'],
		},
	},
};
const job = (state: string, extra: IDataObject = {}) => ({
	id: JOB,
	state,
	input: {},
	reservedCredits: 8,
	chargedCredits: state === 'succeeded' ? 7 : 0,
	output:
		state === 'succeeded'
			? { assetId: `asset_${hex('e')}`, mimeType: 'video/mp4', sha256: mp4Sha }
			: null,
	outputUrl: state === 'succeeded' ? `/v1/jobs/${JOB}/output` : null,
	errorCode: null,
	createdAt: 1,
	updatedAt: 1,
	replayed: false,
	...extra,
});

const mocked = useNock();
const run = (parameters: IDataObject) =>
	runNode({
		node,
		parameters: { resource: 'job', ...parameters } as never,
		credentials: { apiKey: TEST_KEY, baseUrl: BASE },
	});

describe('Job node: exact requests', () => {
	it.each([
		[
			'character replacement with a reference image',
			{
				mode: 'character_replacement',
				sourceVideo: rl(VIDEO),
				characterSource: 'reference',
				referenceImage: rl(IMAGE),
				prompt: 'ignored',
				sourceImage: rl(IMAGE),
			},
			{
				mode: 'character_replacement',
				sourceAssetId: VIDEO,
				referenceAssetId: IMAGE,
				durationSeconds: 5,
				aspectRatio: '9:16',
			},
		],
		[
			'character replacement with a persona',
			{
				mode: 'character_replacement',
				sourceVideo: rl(VIDEO),
				characterSource: 'persona',
				persona: rl(PERSONA),
				referenceImage: rl(IMAGE),
			},
			{
				mode: 'character_replacement',
				sourceAssetId: VIDEO,
				personaId: PERSONA,
				durationSeconds: 5,
				aspectRatio: '9:16',
			},
		],
		[
			'image to video',
			{
				mode: 'image_to_video',
				sourceImage: rl(IMAGE),
				prompt: 'wave',
				sourceVideo: rl(VIDEO),
				persona: rl(PERSONA),
			},
			{
				mode: 'image_to_video',
				sourceAssetId: IMAGE,
				prompt: 'wave',
				durationSeconds: 5,
				aspectRatio: '9:16',
			},
		],
		[
			'text to video',
			{
				mode: 'text_to_video',
				prompt: 'a beach',
				sourceImage: rl(IMAGE),
				durationSeconds: 12,
				aspectRatio: '1:1',
			},
			{ mode: 'text_to_video', prompt: 'a beach', durationSeconds: 12, aspectRatio: '1:1' },
		],
	])('Quote of %s sends only that mode’s fields', async (_name, params, body) => {
		nock(BASE).get('/capabilities').reply(200, capabilities);
		const scope = nock(BASE)
			.post('/jobs/quote', body)
			.matchHeader('authorization', `Bearer ${TEST_KEY}`)
			.reply(200, { data: { mode: body.mode, reservedCredits: 10, sufficient: true } });
		const [[item]] = await run({
			operation: 'quote',
			durationSeconds: 5,
			aspectRatio: '9:16',
			...params,
		});
		expect(scope.isDone()).toBe(true);
		expect(item).toEqual({
			json: { mode: body.mode, reservedCredits: 10, sufficient: true },
			pairedItem: { item: 0 },
		});
	});

	it('Create sends POST /jobs with a derived Idempotency-Key of the allowed form', async () => {
		nock(BASE).get('/capabilities').reply(200, capabilities);
		let key = '';
		nock(BASE)
			.post('/jobs', {
				mode: 'text_to_video',
				prompt: 'a beach',
				durationSeconds: 5,
				aspectRatio: '9:16',
			})
			.reply(function () {
				key = String(this.req.headers['idempotency-key']);
				return [202, { data: job('queued') }];
			});
		const [[item]] = await run({
			operation: 'create',
			mode: 'text_to_video',
			prompt: 'a beach',
			durationSeconds: 5,
			aspectRatio: '9:16',
		});
		expect(key).toMatch(/^n8n\.job\.[0-9a-f]{48}$/);
		expect(item.json).toMatchObject({ id: JOB, state: 'queued', idempotencyKey: key });
	});

	it('Create with Max Credits quotes first, then creates', async () => {
		nock(BASE).get('/capabilities').reply(200, capabilities);
		const scope = nock(BASE)
			.post('/jobs/quote')
			.reply(200, {
				data: { reservedCredits: 8, sufficient: true, available: 100, keyRemaining: null },
			})
			.post('/jobs')
			.reply(202, { data: job('queued') });
		await run({
			operation: 'create',
			mode: 'text_to_video',
			prompt: 'x',
			durationSeconds: 5,
			aspectRatio: '9:16',
			options: { maxCredits: 8 },
		});
		expect(scope.isDone()).toBe(true);
	});

	it('Create with Max Credits refuses an insufficient quote with the figures', async () => {
		nock(BASE).get('/capabilities').reply(200, capabilities);
		nock(BASE)
			.post('/jobs/quote')
			.reply(200, {
				data: { reservedCredits: 8, sufficient: false, available: 3, keyRemaining: null },
			});
		await expect(
			run({
				operation: 'create',
				mode: 'text_to_video',
				prompt: 'x',
				durationSeconds: 5,
				aspectRatio: '9:16',
				options: { maxCredits: 50 },
			}),
		).rejects.toThrow(
			'Not enough credits: 3 available, 8 needed. Nothing was created. Buy credits in the dashboard.',
		);
	});

	it('Get → GET /jobs/{id}; Get Many → GET /jobs?limit', async () => {
		nock(BASE)
			.get(`/jobs/${JOB}`)
			.reply(200, { data: job('running') });
		nock(BASE)
			.get('/jobs')
			.query({ limit: '5' })
			.reply(200, { data: { items: [job('running')], nextCursor: null } });
		const [[got]] = await run({ operation: 'get', jobId: rl(JOB) });
		expect(got.json.state).toBe('running');
		const [many] = await run({ operation: 'getMany', returnAll: false, limit: 5 });
		expect(many).toHaveLength(1);
	});

	it('Wait for Job polls every interval (fake clock), then streams the MP4 into binary data', async () => {
		nock(BASE)
			.get(`/jobs/${JOB}`)
			.reply(200, { data: job('queued') })
			.get(`/jobs/${JOB}`)
			.reply(200, { data: job('running') })
			.get(`/jobs/${JOB}`)
			.reply(200, { data: job('succeeded') })
			.get(`/jobs/${JOB}/output`)
			.matchHeader('accept', '*/*')
			.reply(200, mp4, { 'Content-Type': 'video/mp4', 'Content-Length': String(mp4.length) });
		const [[item]] = await run({
			operation: 'waitForJob',
			jobId: rl(JOB),
			options: { pollInterval: 7 },
		});
		expect(mocked.clock.state.sleeps).toEqual([7000, 7000]);
		expect(item.json.state).toBe('succeeded');
		expect(item.binary?.data).toMatchObject({ mimeType: 'video/mp4', fileName: `${JOB}.mp4` });
		expect((await binaryBytes(item)).equals(mp4)).toBe(true);
	});

	it('Download Output with a range sends Range and outputs the part', async () => {
		nock(BASE)
			.get(`/jobs/${JOB}`)
			.reply(200, { data: job('succeeded') });
		nock(BASE)
			.get(`/jobs/${JOB}/output`)
			.matchHeader('range', 'bytes=0-7')
			.reply(206, mp4.subarray(0, 8), {
				'Content-Type': 'video/mp4',
				'Content-Range': `bytes 0-7/${mp4.length}`,
			});
		const [[item]] = await run({
			operation: 'downloadOutput',
			jobId: rl(JOB),
			options: { range: 'bytes=0-7', binaryPropertyName: 'part' },
		});
		expect((await binaryBytes(item, 'part')).equals(mp4.subarray(0, 8))).toBe(true);
	});

	it('a persistent sha256 mismatch fails after 3 downloads, never outputs a bad file', async () => {
		nock(BASE)
			.get(`/jobs/${JOB}`)
			.reply(200, { data: job('succeeded') });
		const bad = Buffer.from(mp4);
		bad[bad.length - 1] ^= 0xff;
		const scope = nock(BASE)
			.get(`/jobs/${JOB}/output`)
			.times(3)
			.reply(200, bad, { 'Content-Type': 'video/mp4' });
		await expect(run({ operation: 'downloadOutput', jobId: rl(JOB), options: {} })).rejects.toThrow(
			/^Download failed after 3 tries: the downloaded file's sha256 \([0-9a-f]{64}\) does not match the service's output.sha256/,
		);
		expect(scope.isDone()).toBe(true);
	});

	it('Wait for Job stops at once when the execution is cancelled, without more polls', async () => {
		const scope = nock(BASE)
			.get(`/jobs/${JOB}`)
			.reply(200, { data: job('running') });
		const cancel = new AbortController();
		cancel.abort();
		await expect(
			runNode({
				node,
				parameters: {
					resource: 'job',
					operation: 'waitForJob',
					jobId: rl(JOB),
					options: {},
				} as never,
				credentials: { apiKey: TEST_KEY, baseUrl: BASE },
				abortSignal: cancel.signal,
			}),
		).rejects.toThrow(/cancelled/);
		expect(mocked.clock.state.sleeps).toEqual([]);
		expect(nock.pendingMocks().length + (scope.isDone() ? 1 : 0)).toBe(1);
	});
});
