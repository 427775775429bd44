import { createHash } from 'crypto';
import nock from 'nock';
import type { IDataObject, INodeProperties } from 'n8n-workflow';

import { GenerationServiceJob } from '../../nodes/GenerationServiceJob/GenerationServiceJob.node';
import { DEFAULT_REUSE } from '../../nodes/shared/jobs/reuse';
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

	it.each([
		[8, 8, 'creates'],
		[9, 8, 'refuses'],
	])(
		'Max Credits: a quote of %i under Max Credits %i %s',
		async (reserved, maxCredits, outcome) => {
			nock(BASE).get('/capabilities').reply(200, capabilities);
			nock(BASE)
				.post('/jobs/quote')
				.reply(200, {
					data: { reservedCredits: reserved, sufficient: true, available: 100, keyRemaining: null },
				});
			const created = nock(BASE)
				.post('/jobs')
				.reply(202, { data: job('queued') });
			const running = run({
				operation: 'create',
				mode: 'text_to_video',
				prompt: 'x',
				options: { maxCredits },
			});
			if (outcome === 'creates') {
				await running;
				expect(created.isDone()).toBe(true);
			} else {
				await expect(running).rejects.toThrow(
					`The quote is ${reserved} credits, above Max Credits (${maxCredits}): nothing was created`,
				);
				expect(created.isDone()).toBe(false);
			}
		},
	);

	it('Create with Max Credits quotes first, then creates', async () => {
		nock(BASE).get('/capabilities').reply(200, capabilities);
		const order: string[] = [];
		nock(BASE)
			.post('/jobs')
			.reply(() => {
				order.push('create');
				return [202, { data: job('queued') }];
			});
		nock(BASE)
			.post('/jobs/quote')
			.reply(() => {
				order.push('quote');
				return [
					200,
					{ data: { reservedCredits: 8, sufficient: true, available: 100, keyRemaining: null } },
				];
			});
		await run({
			operation: 'create',
			mode: 'text_to_video',
			prompt: 'x',
			durationSeconds: 5,
			aspectRatio: '9:16',
			options: { maxCredits: 8 },
		});
		expect(order).toEqual(['quote', 'create']);
	});

	describe('Max Credits names the real cause when the quote says the job cannot be paid', () => {
		const quote = (available: number, keyRemaining: number | null) => ({
			data: { reservedCredits: 8, sufficient: false, available, keyRemaining },
		});
		const frozenBalance = (frozen: boolean) => ({ data: { available: 3, frozen } });
		const noScope = { error: { code: 'insufficient_scope', message: 'x' }, requestId: 'req_s' };
		it.each([
			// [case, quote, balance answer, code, words the message must hold]
			[
				'a frozen account comes first, even with too few credits',
				quote(3, 2),
				[200, frozenBalance(true)],
				'billing_financial_review',
				['frozen', 'does not lift the freeze'],
			],
			[
				'then the key ceiling',
				quote(100, 2),
				[200, frozenBalance(false)],
				'key_credit_limit',
				['only 2 more credits', 'needs 8', "Raise the key's ceiling"],
			],
			[
				'then the balance',
				quote(3, null),
				[200, frozenBalance(false)],
				'insufficient_credits',
				['3 available, 8 needed', 'Buy credits'],
			],
			[
				'balance and key suffice: only the freeze is left',
				quote(100, 50),
				[403, noScope],
				'billing_financial_review',
				['frozen', 'although the account has 100 credits'],
			],
			[
				'no balance:read: says a freeze cannot be ruled out',
				quote(3, null),
				[403, noScope],
				'insufficient_credits',
				['3 available, 8 needed', 'cannot be ruled out'],
			],
		] as Array<[string, unknown, [number, unknown], string, string[]]>)(
			'%s',
			async (_case, quoteBody, [status, balanceBody], code, words) => {
				nock(BASE).get('/capabilities').reply(200, capabilities);
				nock(BASE)
					.post('/jobs/quote')
					.reply(200, quoteBody as nock.Body);
				nock(BASE)
					.get('/balance')
					.reply(status, balanceBody as nock.Body);
				const error = await run({
					operation: 'create',
					mode: 'text_to_video',
					prompt: 'x',
					durationSeconds: 5,
					aspectRatio: '9:16',
					options: { maxCredits: 50 },
				}).then(
					() => undefined,
					(e: Error & { context: Record<string, unknown> }) => e,
				);
				expect(error?.context.errorCode).toBe(code);
				for (const w of words) expect(error?.message).toContain(w);
				expect(error?.message).toContain('Nothing was created');
				expect(nock.isDone()).toBe(true); // and no POST /jobs was sent (nock has none)
			},
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

	it('Wait for Job polls every interval (virtual clock), then streams the MP4 into binary data', async () => {
		const polls: number[] = [];
		const states = ['queued', 'running', 'succeeded'];
		nock(BASE)
			.get(`/jobs/${JOB}`)
			.times(3)
			.reply(() => {
				polls.push(mocked.clock.state.now);
				return [200, { data: job(states[polls.length - 1]) }];
			})
			.get(`/jobs/${JOB}/output`)
			.matchHeader('accept', '*/*')
			.reply(200, mp4, { 'Content-Type': 'video/mp4', 'Content-Length': String(mp4.length) });
		const [[item]] = await run({
			operation: 'waitForJob',
			jobId: rl(JOB),
			options: { pollInterval: 7 },
		});
		expect(polls).toHaveLength(3);
		// discrete-event clock: an answer takes no virtual time, so the spacing is the interval itself
		expect(polls[1] - polls[0]).toBe(7000);
		expect(polls[2] - polls[1]).toBe(7000);
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
			/^Job job_[0-9a-f]{32}: download failed after 3 tries: the downloaded file's sha256 \([0-9a-f]{64}\) does not match the service's output.sha256/,
		);
		expect(scope.isDone()).toBe(true);
	});

	it('Wait for Job stops at once when the execution is cancelled, without more polls', async () => {
		const cancel = new AbortController();
		let polls = 0;
		// the execution is cancelled while the first poll is answered; more polls would find answers
		nock(BASE)
			.get(`/jobs/${JOB}`)
			.times(5)
			.reply(() => {
				polls++;
				cancel.abort();
				return [200, { data: job('running') }];
			});
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
		expect(polls).toBe(1);
	});
});

describe('Create form: what happens by default is said in the form', () => {
	const createFields = node.description.properties.filter((p) =>
		p.displayOptions?.show?.operation?.includes('create'),
	);
	const optionsOf = () =>
		createFields.find((p) => p.name === 'options')?.options as INodeProperties[];

	it('a notice says which runs pick up a recent job and that no cost limit applies by default', () => {
		const notices = createFields.filter((p) => p.type === 'notice');
		expect(notices).toHaveLength(1);
		const text = notices[0].displayName;
		expect(text).toMatch(/every run creates a new job/);
		expect(text).toMatch(/Retry of an execution and webhook calls/);
		expect(text).toMatch(/No cost limit applies unless you add Options → Max Credits/);
	});

	it('Reuse Identical Recent Job: the form shows the default the node applies, with a hint', () => {
		const reuse = optionsOf().find((p) => p.name === 'reuseRecentJob')!;
		expect(reuse.default).toBe(DEFAULT_REUSE);
		expect(DEFAULT_REUSE).toBe('recoveries');
		expect((reuse.options as Array<{ value: string }>).map((o) => o.value)).toEqual([
			'recoveries',
			'unattended',
			'always',
			'never',
		]);
		expect(reuse.hint).toMatch(/only retries and webhook calls/);
	});

	it('Max Credits says it is a per-job limit that applies only when added', () => {
		const maxCredits = optionsOf().find((p) => p.name === 'maxCredits')!;
		expect(maxCredits.description).toMatch(/Without this option there is no limit/);
		expect(maxCredits.hint).toMatch(/each job/);
	});
});
