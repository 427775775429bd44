import type { IDataObject } from 'n8n-workflow';

import { GenerationServiceJob } from '../../nodes/GenerationServiceJob/GenerationServiceJob.node';
import { responses } from '../../emulator/src/schemas';
import type { Emulated } from '../helpers/emulated';
import { journalCount, sha256, startEmulated } from '../helpers/emulated';
import { binaryBytes, runListSearch, runNode } from '../helpers/n8n';

const node = new GenerationServiceJob();
const rl = (value: string) => ({ __rl: true, mode: 'id', value });

let env: Emulated;
beforeEach(async () => {
	env = await startEmulated();
});
afterEach(async () => {
	await env.close();
});

function run(parameters: IDataObject, extra: Partial<Parameters<typeof runNode>[0]> = {}) {
	return runNode({
		node,
		parameters: { resource: 'job', ...parameters } as never,
		credentials: env.credentials,
		...extra,
	});
}

async function capabilities() {
	const res = await fetch(`${env.emu.baseUrl}/capabilities`);
	return ((await res.json()) as { data: { generation: { pricing: unknown } } }).data;
}

async function fails(promise: Promise<unknown>) {
	try {
		await promise;
	} catch (error) {
		return error as Error & { context: IDataObject; description?: string };
	}
	throw new Error('expected a failure');
}

const textJob = {
	mode: 'text_to_video',
	prompt: 'a cat surfing at dawn',
	durationSeconds: 5,
	aspectRatio: '9:16',
};

describe('Job node against the emulator', () => {
	it('Quote reserves nothing and returns the price', async () => {
		const [[item]] = await run({ operation: 'quote', ...textJob, durationSeconds: 6 });
		const { pricing, ...quote } = item.json;
		responses.quote.parse({ data: quote });
		// the service's current prices come along, as GET /capabilities gives them
		expect(pricing).toEqual((await capabilities()).generation.pricing);
		expect(item.json).toMatchObject({
			mode: 'text_to_video',
			durationSeconds: 6,
			reservedCredits: 16,
			sufficient: true,
		});
		expect(env.emu.control.ledger().balance.reserved).toBe(0);
	});

	it('upload-free character replacement with Wait for Completion outputs the MP4 with a matching sha256', async () => {
		const before = env.emu.control.ledger().balance;
		const [[item]] = await run({
			operation: 'create',
			mode: 'character_replacement',
			sourceVideo: rl(env.videoId),
			characterSource: 'reference',
			referenceImage: rl(env.imageId),
			durationSeconds: 10,
			aspectRatio: '16:9',
			options: { waitForCompletion: true },
		});
		const job = item.json as IDataObject & { output: { sha256: string } };
		expect(job.state).toBe('succeeded');
		expect(job.reservedCredits).toBe(20);
		expect(job.chargedCredits).toBe(16);
		const bytes = await binaryBytes(item);
		expect(sha256(bytes)).toBe(job.output.sha256);
		expect(bytes.toString('latin1', 4, 8)).toBe('ftyp');
		expect(item.binary!.data).toMatchObject({
			mimeType: 'video/mp4',
			fileName: `${String(job.id)}.mp4`,
		});
		expect(item.pairedItem).toEqual({ item: 0 });
		const after = env.emu.control.ledger();
		expect(after.invariantHolds).toBe(true);
		expect(before.available - after.balance.available).toBe(16);
		const created = env.emu.control
			.journal()
			.filter((e) => e.method === 'POST' && e.path === '/v1/jobs');
		expect(created).toHaveLength(1);
		expect(created[0].idempotencyKey).toBe(job.idempotencyKey);
		// Sent only the mode's fields: no prompt, no personaId.
		expect(env.emu.control.jobs()[0].input).toMatchObject({ prompt: '', personaId: null });
	});

	it('polls about every 5 s: requests = capabilities + create + ceil(T/5)+1 polls + download', async () => {
		await run({ operation: 'create', ...textJob, options: { waitForCompletion: true } });
		// job takes 10 s (2 s queued + 8 s running): polls at 5 s and 10 s.
		expect(journalCount(env.emu, 'GET', /^\/v1\/jobs\/job_[0-9a-f]+$/)).toBe(2);
		expect(journalCount(env.emu, 'GET', /\/output$/)).toBe(1);
		expect(env.emu.control.journal()).toHaveLength(5);
	});

	it('character replacement with a saved persona sends personaId only', async () => {
		const [[item]] = await run({
			operation: 'create',
			mode: 'character_replacement',
			sourceVideo: rl(env.videoId),
			characterSource: 'persona',
			persona: rl(env.personaId),
			durationSeconds: 5,
			aspectRatio: '9:16',
		});
		expect(item.json.state).toBe('queued');
		expect(env.emu.control.jobs()[0].input).toMatchObject({
			personaId: env.personaId,
			referenceAssetId: null,
		});
	});

	it('image to video, then Wait for Job and Download Output as separate operations', async () => {
		const [[created]] = await run({
			operation: 'create',
			mode: 'image_to_video',
			sourceImage: rl(env.imageId),
			prompt: 'the character waves',
			durationSeconds: 5,
			aspectRatio: '1:1',
		});
		const jobId = String(created.json.id);
		const [[waited]] = await run({
			operation: 'waitForJob',
			jobId: rl(jobId),
			options: { binaryPropertyName: 'video' },
		});
		expect(waited.json.state).toBe('succeeded');
		expect(sha256(await binaryBytes(waited, 'video'))).toBe(
			(waited.json.output as IDataObject).sha256,
		);
		const [[downloaded]] = await run({
			operation: 'downloadOutput',
			jobId: rl(jobId),
			options: {},
		});
		expect(sha256(await binaryBytes(downloaded))).toBe((waited.json.output as IDataObject).sha256);
		const [[part]] = await run({
			operation: 'downloadOutput',
			jobId: rl(jobId),
			options: { range: 'bytes=0-7' },
		});
		expect((await binaryBytes(part)).toString('latin1', 4, 8)).toBe('ftyp');
		expect((await binaryBytes(part)).length).toBe(8);
		const [[got]] = await run({ operation: 'get', jobId: rl(jobId) });
		responses.job.parse({ data: got.json });
		const [many] = await run({ operation: 'getMany', returnAll: true });
		expect(many.map((i) => i.json.id)).toEqual([jobId]);
	});

	it('Max Credits refuses without creating: nothing reserved, the error gives the quote', async () => {
		const error = await fails(
			run({ operation: 'create', ...textJob, durationSeconds: 30, options: { maxCredits: 20 } }),
		);
		expect(error.message).toBe(
			'The quote is 48 credits, above Max Credits (20): nothing was created and nothing was reserved.',
		);
		expect(error.context.quote).toMatchObject({ reservedCredits: 48 });
		expect(env.emu.control.jobs()).toHaveLength(0);
		expect(env.emu.control.ledger().balance.reserved).toBe(0);
		expect(journalCount(env.emu, 'POST', /^\/v1\/jobs$/)).toBe(0);
	});

	it('Wait for Job timeout names the job, which keeps running', async () => {
		env.emu.control.scriptJobs([{ queuedMs: 1000, runningMs: 3_600_000 }]);
		const [[created]] = await run({ operation: 'create', ...textJob });
		const error = await fails(
			run({ operation: 'waitForJob', jobId: rl(String(created.json.id)), options: { timeout: 1 } }),
		);
		expect(error.message).toContain(
			`Job ${String(created.json.id)} has not finished after 1 min (state: running)`,
		);
		expect(error.message).toContain('use "Get" or "Wait for Job"');
		expect(env.emu.control.jobs()[0].state).toBe('running');
	});

	it('a failed job reports its errorCode and the reservation is released', async () => {
		env.emu.control.scriptJobs([{ outcome: 'failed', errorCode: 'generation_failed' }]);
		const error = await fails(
			run({ operation: 'create', ...textJob, options: { waitForCompletion: true } }),
		);
		expect(error.message).toMatch(
			/^Job job_[0-9a-f]{32} failed with error code "generation_failed"\. Its whole reservation \(8 credits\) was returned/,
		);
		const { balance, invariantHolds } = env.emu.control.ledger();
		expect(balance.reserved).toBe(0);
		expect(balance.spent).toBe(0);
		expect(invariantHolds).toBe(true);
	});

	it('a failed job under Continue On Fail outputs the error code and the failed job', async () => {
		env.emu.control.scriptJobs([{ outcome: 'failed', errorCode: 'generation_failed' }]);
		const [[item]] = await run(
			{ operation: 'create', ...textJob, options: { waitForCompletion: true } },
			{ continueOnFail: true },
		);
		expect(item.json).toMatchObject({ code: 'generation_failed', job: { state: 'failed' } });
		expect(item.pairedItem).toEqual({ item: 0 });
	});

	it('engine unavailable: clear message before any credit-related request', async () => {
		env.emu.control.setEngine(false, 'manutenção');
		const error = await fails(run({ operation: 'create', ...textJob }));
		expect(error.message).toBe(
			'The generation engine is unavailable right now (reason: manutenção); no credits were reserved and nothing was created. Try again later.',
		);
		expect(journalCount(env.emu, 'POST', /^\/v1\/jobs/)).toBe(0);
	});

	it('reads capabilities once per node run, not per item', async () => {
		const items = [{ json: {} }, { json: {} }, { json: {} }];
		const [out] = await run({ operation: 'quote', ...textJob }, { items });
		expect(out).toHaveLength(3);
		expect(journalCount(env.emu, 'GET', /^\/v1\/capabilities$/)).toBe(1);
	});

	it('the same execution and item replay the same job (n8n "Retry On Fail"): one job, one reservation', async () => {
		const [[first]] = await run({ operation: 'create', ...textJob });
		const [[second]] = await run({ operation: 'create', ...textJob });
		expect(second.json.id).toBe(first.json.id);
		expect(second.json.replayed).toBe(true);
		expect(env.emu.control.jobs()).toHaveLength(1);
		expect(env.emu.control.ledger().entries.filter((e) => e.kind === 'reserve')).toHaveLength(1);
		const [[third]] = await run({ operation: 'create', ...textJob }, { executionId: 'exec-2' });
		expect(third.json.id).not.toBe(first.json.id);
	});

	it('a user Idempotency Key makes re-runs for the same row safe across executions', async () => {
		const idempotencyKey = ['row', '000042', 'video', 'v1'].join('-');
		const [[a]] = await run(
			{ operation: 'create', ...textJob, options: { idempotencyKey } },
			{ executionId: 'e1' },
		);
		const [[b]] = await run(
			{ operation: 'create', ...textJob, options: { idempotencyKey } },
			{ executionId: 'e2' },
		);
		expect(b.json.id).toBe(a.json.id);
		expect(b.json.replayed).toBe(true);
	});

	it('Download Output before the end gives the output_not_ready message', async () => {
		env.emu.control.scriptJobs([{ queuedMs: 60_000, runningMs: 60_000 }]);
		const [[created]] = await run({ operation: 'create', ...textJob });
		const error = await fails(
			run({ operation: 'downloadOutput', jobId: rl(String(created.json.id)), options: {} }),
		);
		expect(error.message).toBe(
			'The job has not finished, so its video is not ready. Use "Wait for Job" (or Get) until the job has succeeded, then download.',
		);
		expect(error.context.errorCode).toBe('output_not_ready');
	});

	it('job picker lists jobs; asset pickers filter by kind', async () => {
		await run({ operation: 'create', ...textJob });
		const jobs = await runListSearch(
			{ node, parameters: {}, credentials: env.credentials },
			'searchJobs',
		);
		expect(jobs.results).toHaveLength(1);
		expect(String(jobs.results[0].name)).toContain('text_to_video');
		const images = await runListSearch(
			{ node, parameters: {}, credentials: env.credentials },
			'searchImageAssets',
		);
		expect(images.results.map((r) => r.value)).toContain(env.imageId);
		expect(images.results.map((r) => r.value)).not.toContain(env.videoId);
		const videos = await runListSearch(
			{ node, parameters: {}, credentials: env.credentials },
			'searchVideoAssets',
		);
		expect(videos.results.map((r) => r.value)).toEqual([env.videoId]);
	});

	it('a batch with Wait for Completion follows its jobs side by side through the job list', async () => {
		const items = [{ json: { p: 'one' } }, { json: { p: 'two' } }, { json: { p: 'three' } }];
		// jobs that end one after another: the last one is still followed alone for a while
		env.emu.control.scriptJobs([{ runningMs: 8000 }, { runningMs: 20_000 }, { runningMs: 40_000 }]);
		const [out] = await run(
			{
				operation: 'create',
				...textJob,
				prompt: '={{ "scene " + $json.p }}',
				options: { waitForCompletion: true },
			},
			{ items },
		);
		expect(out.map((i) => [i.json.state, i.pairedItem])).toEqual([
			['succeeded', { item: 0 }],
			['succeeded', { item: 1 }],
			['succeeded', { item: 2 }],
		]);
		for (const item of out) {
			expect(sha256(await binaryBytes(item))).toBe((item.json.output as IDataObject).sha256);
		}
		// one list read per look, to the end of the batch (also while the last job is the only one left)
		expect(journalCount(env.emu, 'GET', /^\/v1\/jobs$/)).toBeGreaterThan(4);
		expect(journalCount(env.emu, 'GET', /^\/v1\/jobs\/job_[0-9a-f]+$/)).toBe(0);
	});

	it('a Poll Interval below 5 s is raised to 5 for a batch: its list looks come at least 5 s apart', async () => {
		const items = [{ json: { p: 'one' } }, { json: { p: 'two' } }, { json: { p: 'three' } }];
		env.emu.control.scriptJobs([
			{ runningMs: 20_000 },
			{ runningMs: 25_000 },
			{ runningMs: 30_000 },
		]);
		const [out] = await run(
			{
				operation: 'create',
				...textJob,
				prompt: '={{ "interval " + $json.p }}',
				// an expression or an imported workflow can give less than the field's minimum of 5
				options: { waitForCompletion: true, pollInterval: 1 },
			},
			{ items },
		);
		expect(out.map((i) => i.json.state)).toEqual(['succeeded', 'succeeded', 'succeeded']);
		const looks = env.emu.control
			.journal()
			.filter((e) => e.method === 'GET' && e.path === '/v1/jobs' && !/cursor=/.test(e.query))
			.map((e) => e.at);
		// the jobs run 32 s: about one look per 5 s (one per second would be 30)
		expect(looks.length).toBeGreaterThanOrEqual(5);
		expect(looks.length).toBeLessThanOrEqual(8);
		const gaps = looks.slice(1).map((at, i) => at - looks[i]);
		expect(Math.min(...gaps)).toBeGreaterThanOrEqual(5000);
		// and the referee (env.close) sees no list_poll_too_soon
	});

	it("a batch's first look waits for the jobs created just after the first one", async () => {
		const items = [{ json: { p: 'one' } }, { json: { p: 'two' } }, { json: { p: 'three' } }];
		// creates that take 1.5 s each: the three jobs are created 1.5 s apart
		env.emu.control.injectFault({
			method: 'POST',
			path: '/v1/jobs',
			action: 'delay',
			delayMs: 1500,
			times: 3,
		});
		await run(
			{
				operation: 'create',
				...textJob,
				prompt: '={{ $json.p }}',
				options: { waitForCompletion: true },
			},
			{ items },
		);
		const created = env.emu.control.snapshot().jobs.map((j) => j.createdAt);
		const firstLook = env.emu.control
			.journal()
			.find((e) => e.method === 'GET' && e.path === '/v1/jobs');
		// one interval after the last create of the burst, not after the first (which sees the last ones late)
		expect(firstLook!.at).toBeGreaterThanOrEqual(Math.max(...created) + 5000);
	});
});

describe('picking up a recent identical job instead of paying again', () => {
	const create = (extra: Partial<Parameters<typeof runNode>[0]> = {}, options: IDataObject = {}) =>
		run({ operation: 'create', ...textJob, options }, { mode: 'webhook', ...extra });
	const posts = () => journalCount(env.emu, 'POST', /^\/v1\/jobs$/);

	it('an unattended run (webhook) of another execution picks up the job of the same input', async () => {
		const [[first]] = await create({ executionId: 'e1' });
		const [[again]] = await create({ executionId: 'e2' });
		expect(again.json).toMatchObject({ id: first.json.id, adopted: true });
		expect(posts()).toBe(1);
		expect(env.emu.control.ledger().entries.filter((e) => e.kind === 'reserve')).toHaveLength(1);
	});

	it('a run started in the editor creates a new job, unless "Always"', async () => {
		const [[first]] = await create({ executionId: 'e1' });
		const [[manual]] = await create({ executionId: 'e2', mode: 'manual' });
		expect(manual.json.id).not.toBe(first.json.id);
		const [[always]] = await create(
			{ executionId: 'e3', mode: 'manual' },
			{ reuseRecentJob: 'always' },
		);
		expect(always.json).toMatchObject({ adopted: true });
		expect(posts()).toBe(2);
	});

	it('"Never", an Idempotency Key, another input, a failed job: a new job each time', async () => {
		await create({ executionId: 'e1' });
		await create({ executionId: 'e2' }, { reuseRecentJob: 'never' });
		await create(
			{ executionId: 'e3' },
			{ idempotencyKey: ['row', '000007', 'video', 'v1'].join('-') },
		);
		await run(
			{ operation: 'create', ...textJob, prompt: 'another scene' },
			{ mode: 'webhook', executionId: 'e4' },
		);
		expect(posts()).toBe(4);
		env.emu.control.scriptJobs([{ outcome: 'failed', queuedMs: 0, runningMs: 0 }]);
		await run(
			{ operation: 'create', ...textJob, prompt: 'fails' },
			{ mode: 'webhook', executionId: 'e5' },
		);
		const [[afterFailure]] = await run(
			{ operation: 'create', ...textJob, prompt: 'fails' },
			{ mode: 'webhook', executionId: 'e6' },
		);
		expect(afterFailure.json.adopted).toBe(false);
		expect(posts()).toBe(6);
	});

	it('only within the look-back, and each recent job is picked up by one item only', async () => {
		await create({ executionId: 'e1' });
		const items = [{ json: {} }, { json: {} }];
		const [two] = await run(
			{ operation: 'create', ...textJob, options: { reuseWithinMinutes: 1 } },
			{ mode: 'webhook', executionId: 'e2', items },
		);
		expect(two.map((i) => i.json.adopted)).toEqual([true, false]);
		await env.clock.clock.sleep(61_000); // past the 1-minute look-back
		const [[late]] = await create({ executionId: 'e3' }, { reuseWithinMinutes: 1 });
		expect(late.json.adopted).toBe(false);
	});
});
