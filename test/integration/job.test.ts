import type { IDataObject } from 'n8n-workflow';

import { GenerationServiceJob } from '../../nodes/GenerationServiceJob/GenerationServiceJob.node';
import { responses } from '../../emulator/src/schemas';
import type { Emulated } from '../helpers/emulated';
import { fails, journalCount, sha256, startEmulated } from '../helpers/emulated';
import { binaryBytes, newExecutionData, runListSearch, runNode } from '../helpers/n8n';
import { testClock } from '../helpers/serviceClock';
import { RETRY_POLICY } from '../../nodes/shared/service/client';

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

	it('polls every 5 s from the create: a job of T = 10 s takes capabilities + create + ceil(T/5) = 2 polls + download', async () => {
		await run({ operation: 'create', ...textJob, options: { waitForCompletion: true } });
		// job takes 10 s (2 s queued + 8 s running): polls at 5 s and 10 s. The create's answer is the job's
		// first look (watch.ts: a known job's first poll is one interval later), so no poll at 0 s: the
		// "+1" of an immediate first look is for a job the node does not know yet (Wait for Job by ID).
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
			"The quote is 48 credits, above Max Credits (20): nothing was created and nothing was reserved. Price: 8 credits per started 5 s of text_to_video; this job asks for 30 s. Ask for a shorter duration, or raise Max Credits in the node's options.",
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

	it('a look that is due always finds room in the window: creates never take its last request', async () => {
		// a key of 10 requests a minute, a batch of 10 that starts 40 s into the minute, jobs of 4 s: the 10
		// creates alone would use up the window just before the first look is due (45 s)
		const apiKey = env.emu.control.createKey({ requestsPerMinute: 10 }).secret;
		testClock.useAuto(Math.floor(env.clock.clock.now() / 60_000) * 60_000 + 40_000);
		env.emu.control.setJobTiming({ queuedMs: 1000, runningMs: 3000 });
		const items = Array.from({ length: 10 }, (_, n) => ({ json: { n } }));
		const [out] = await run(
			{
				operation: 'create',
				...textJob,
				prompt: '={{ "take " + $json.n }}',
				options: { waitForCompletion: true },
			},
			{ items, credentials: { apiKey, baseUrl: env.emu.baseUrl } },
		);
		expect(out.map((i) => i.json.state)).toEqual(Array(10).fill('succeeded'));
		const looks = env.emu.control
			.journal()
			.filter((e) => e.method === 'GET' && e.path === '/v1/jobs' && e.status === 200)
			.map((e) => e.at);
		// every job is seen finished by a look within one poll interval (5 s) of its end
		for (const job of env.emu.control.jobs()) {
			const seenAt = looks.find((at) => at >= job.updatedAt);
			expect(seenAt).toBeDefined();
			expect(seenAt! - job.updatedAt).toBeLessThanOrEqual(5000);
		}
	});
});

describe('picking up a recent identical job instead of paying again', () => {
	const create = (extra: Partial<Parameters<typeof runNode>[0]> = {}, options: IDataObject = {}) =>
		run({ operation: 'create', ...textJob, options }, { mode: 'webhook', ...extra });
	const posts = () => journalCount(env.emu, 'POST', /^\/v1\/jobs$/);
	/** What n8n hands a Retry: a copy of the retried execution's data (its flow context included). */
	const copyOf = <T>(data: T): T => JSON.parse(JSON.stringify(data)) as T;

	it('a webhook called again (another execution) picks up the job of the same input', async () => {
		const [[first]] = await create({ executionId: 'e1' });
		const [[again]] = await create({ executionId: 'e2' });
		expect(again.json).toMatchObject({ id: first.json.id, adopted: true });
		expect(posts()).toBe(1);
		expect(env.emu.control.ledger().entries.filter((e) => e.kind === 'reserve')).toHaveLength(1);
	});

	describe('a webhook called again while its first execution still runs (on another worker)', () => {
		const webhookStartedAt = (at: number) =>
			newExecutionData({
				version: 1,
				establishedAt: at,
				source: 'webhook',
				triggerNode: { name: 'Webhook', type: 'n8n-nodes-base.webhook' },
			});
		/**
		 * Both executions looked at the job list before either created: the race the look cannot see. (In one
		 * n8n process both share one look, the process-wide recent-jobs view; on two workers each looks.)
		 */
		const lookedBeforeAnyCreate = () => {
			const journal = env.emu.control.journal();
			const firstCreate = journal.findIndex((e) => e.method === 'POST' && e.path === '/v1/jobs');
			const looks = journal.filter((e) => e.method === 'GET' && e.path === '/v1/jobs');
			return looks.length >= 1 && journal.indexOf(looks[looks.length - 1]) < firstCreate;
		};

		it('both derive the intent key: the second create is replayed, one job, charged once', async () => {
			const items = [{ json: { take: 1 } }, { json: { take: 2 } }];
			const params = { operation: 'create', ...textJob, prompt: '={{ "take " + $json.take }}' };
			const [[a1, a2], [b1, b2]] = (
				await Promise.all([
					run(params, {
						mode: 'webhook',
						executionId: 'e1',
						items,
						runExecutionData: webhookStartedAt(1_000),
					}),
					run(params, {
						mode: 'webhook',
						executionId: 'e2',
						items,
						runExecutionData: webhookStartedAt(7_000),
					}),
				])
			).map(([out]) => out);
			expect(lookedBeforeAnyCreate()).toBe(true);
			expect([b1.json.id, b2.json.id]).toEqual([a1.json.id, a2.json.id]);
			expect([a1, a2, b1, b2].filter((i) => i.json.replayed).length).toBe(2);
			expect(env.emu.control.jobs()).toHaveLength(2);
			expect(env.emu.control.ledger().entries.filter((e) => e.kind === 'reserve')).toHaveLength(2);
			expect(a1.json.idempotencyKey).toMatch(/^n8n\.intent\.job\./);
		});

		it('also on n8n without an execution context (1.x): the time of the create names the slot', async () => {
			const [[[a]], [[b]]] = await Promise.all([
				create({ executionId: 'e1' }),
				create({ executionId: 'e2' }),
			]);
			expect(lookedBeforeAnyCreate()).toBe(true);
			expect(b.json.id).toBe(a.json.id);
			expect(env.emu.control.jobs()).toHaveLength(1);
		});

		it('a batch of identical inputs still makes one job per item; the repeated batch replays them', async () => {
			const items = [{ json: {} }, { json: {} }, { json: {} }];
			const [[first], [again]] = await Promise.all([
				create({ executionId: 'e1', items, runExecutionData: webhookStartedAt(1_000) }),
				create({ executionId: 'e2', items, runExecutionData: webhookStartedAt(2_000) }),
			]);
			expect(new Set(first.map((i) => i.json.id)).size).toBe(3);
			expect(again.map((i) => i.json.id)).toEqual(first.map((i) => i.json.id));
			expect(env.emu.control.jobs()).toHaveLength(3);
			expect(posts()).toBe(6); // one create per item: each item's key is its own
		});

		it('a job of this run is never handed to a second item: the intent takes its next key', async () => {
			const lookBack = { reuseWithinMinutes: 1 };
			const two = [{ json: {} }, { json: {} }];
			const call = (executionId: string, at: number, items = [{ json: {} }]) =>
				create({ executionId, items, runExecutionData: webhookStartedAt(at) }, lookBack);
			const [[j0]] = await call('e1', 1_000);
			await env.clock.clock.sleep(30_000);
			const [[, j1]] = await call('e2', 2_000, two); // picks up j0, then creates j1 (its 2nd of the input)
			await env.clock.clock.sleep(40_000); // j0 is now out of the look-back, j1 is not
			// e3's first item picks up j1; its second item's key is j1's (the input's 2nd in the slot)
			const [out] = await call('e3', 3_000, two);
			expect(out[0].json).toMatchObject({ id: j1.json.id, adopted: true });
			expect(out[1].json).toMatchObject({ adopted: false, replayed: false });
			expect([j0.json.id, j1.json.id]).not.toContain(out[1].json.id);
			expect(env.emu.control.jobs()).toHaveLength(3);
		});

		it("n8n's Retry of such an execution, past the look-back, derives its root's key: replayed", async () => {
			const data = webhookStartedAt(1_000);
			const lookBack = { reuseWithinMinutes: 1 };
			const [[first]] = await create({ executionId: 'e1', runExecutionData: data }, lookBack);
			await env.clock.clock.sleep(120_000); // the job is out of the 1-minute look-back
			// the Retry of a crashed execution may run the node as its second run (the crashed run's data
			// came along): the key stays the root's
			const retry = {
				executionId: 'e2',
				mode: 'retry' as const,
				runExecutionData: copyOf(data),
				runIndex: 1,
			};
			const [[retried]] = await create(retry, lookBack);
			expect(retried.json).toMatchObject({ id: first.json.id, adopted: false, replayed: true });
			expect(retried.json.idempotencyKey).toBe(first.json.idempotencyKey);
			expect(env.emu.control.jobs()).toHaveLength(1);
		});

		it("n8n's Retry right after a create whose answer never came picks its job up: nothing posted again", async () => {
			// every try of the first execution's create is reset after the service committed the job
			env.emu.control.injectFault({
				method: 'POST',
				path: '/v1/jobs',
				action: 'reset_after_commit',
				times: RETRY_POLICY.attempts,
			});
			const data = webhookStartedAt(1_000);
			await expect(create({ executionId: 'e1', runExecutionData: data })).rejects.toThrow(
				/Could not reach/,
			);
			expect(posts()).toBe(RETRY_POLICY.attempts);
			// the Retry comes within one poll interval of the look the failed run made before its create:
			// that look cannot show the job, so the Retry looks again instead of posting
			const retry = { executionId: 'e2', mode: 'retry' as const, runExecutionData: copyOf(data) };
			const [[retried]] = await create(retry);
			expect(retried.json).toMatchObject({ adopted: true, replayed: false });
			expect(posts()).toBe(RETRY_POLICY.attempts);
			expect(env.emu.control.jobs()).toHaveLength(1);
		});

		it('a loop (the node run again in one execution) and a failed job: new jobs', async () => {
			const data = webhookStartedAt(1_000);
			const [[first]] = await create({ executionId: 'e1', runExecutionData: data });
			const [[loop]] = await create({ executionId: 'e1', runExecutionData: data, runIndex: 1 });
			expect(loop.json).toMatchObject({ adopted: false, replayed: false });
			expect(loop.json.id).not.toBe(first.json.id);
			env.emu.control.scriptJobs([{ outcome: 'failed', queuedMs: 0, runningMs: 0 }]);
			const fails = { operation: 'create', ...textJob, prompt: 'fails' };
			const [[failed]] = await run(fails, {
				mode: 'webhook',
				executionId: 'e2',
				runExecutionData: webhookStartedAt(1_000),
			});
			await env.clock.clock.sleep(1_000);
			const [[retried]] = await run(fails, {
				mode: 'webhook',
				executionId: 'e3',
				runExecutionData: webhookStartedAt(2_000),
			});
			expect(retried.json.replayed).toBe(false);
			expect(retried.json.id).not.toBe(failed.json.id);
		});
	});

	it("n8n's Retry of an execution (mode retry) picks up the job its first try created", async () => {
		// a schedule's run that crashed after Create (no progress saved): n8n retries it from the trigger
		const [[first]] = await create({ executionId: 'e1', mode: 'trigger' });
		const [[retried]] = await create({ executionId: 'e2', mode: 'retry' });
		expect(retried.json).toMatchObject({ id: first.json.id, adopted: true });
		expect(posts()).toBe(1);
	});

	it('a schedule (mode trigger) creates a new job on its next run with the same prompt', async () => {
		const [[first]] = await create({ executionId: 'e1', mode: 'trigger' });
		await env.clock.clock.sleep(30 * 60_000); // the next run, 30 minutes later
		const [[second]] = await create({ executionId: 'e2', mode: 'trigger' });
		expect(second.json.id).not.toBe(first.json.id);
		expect(second.json.adopted).toBe(false);
		expect(posts()).toBe(2);
	});

	it('deliberate runs create: manual, chat, sub-workflow, CLI, error workflow, evaluation', async () => {
		const [[first]] = await create({ executionId: 'e0' });
		const modes = ['manual', 'chat', 'integrated', 'cli', 'error', 'evaluation'] as const;
		for (const [n, mode] of modes.entries()) {
			const [[item]] = await create({ executionId: `e${n + 1}`, mode });
			expect({ mode, adopted: item.json.adopted }).toEqual({ mode, adopted: false });
			expect(item.json.id).not.toBe(first.json.id);
		}
		expect(posts()).toBe(1 + modes.length);
	});

	it('a message of a production Chat Trigger (a webhook) creates; another webhook picks up', async () => {
		const started = (at: number, type: string) =>
			newExecutionData({
				version: 1,
				establishedAt: at,
				source: 'webhook',
				triggerNode: { name: 'Trigger', type },
			});
		const chat = '@n8n/n8n-nodes-langchain.chatTrigger';
		const [[first]] = await create({ executionId: 'e1', runExecutionData: started(1, chat) });
		const [[second]] = await create({ executionId: 'e2', runExecutionData: started(2, chat) });
		expect(second.json.adopted).toBe(false);
		const hook = 'n8n-nodes-base.webhook';
		const [[third]] = await create({ executionId: 'e3', runExecutionData: started(3, hook) });
		expect(third.json).toMatchObject({ id: first.json.id, adopted: true }); // the oldest
		expect(posts()).toBe(2);
	});

	it('"In All Unattended Runs" (the former default) also picks up in a schedule\'s run', async () => {
		const [[first]] = await create({ executionId: 'e1', mode: 'trigger' });
		const [[second]] = await create(
			{ executionId: 'e2', mode: 'trigger' },
			{ reuseRecentJob: 'unattended' },
		);
		expect(second.json).toMatchObject({ id: first.json.id, adopted: true });
		const [[manual]] = await create(
			{ executionId: 'e3', mode: 'manual' },
			{ reuseRecentJob: 'unattended' },
		);
		expect(manual.json.adopted).toBe(false);
		expect(posts()).toBe(2);
	});

	it('two Create nodes with the same prompt in one execution make two jobs, in every setting', async () => {
		const settings = ['recoveries', 'unattended', 'always'];
		for (const [n, reuseRecentJob] of settings.entries()) {
			const execution = { mode: 'webhook' as const, executionId: `e${n}` };
			const shared = { ...execution, runExecutionData: newExecutionData() };
			const twoVariants = { operation: 'create', ...textJob, prompt: `variant ${n}` };
			const params = { ...twoVariants, options: { reuseRecentJob } };
			const [[a]] = await run(params, { ...shared, nodeId: 'a', nodeName: 'Create A' });
			const [[b]] = await run(params, { ...shared, nodeId: 'b', nodeName: 'Create B' });
			expect({ reuseRecentJob, adopted: b.json.adopted }).toEqual({
				reuseRecentJob,
				adopted: false,
			});
			expect(b.json.id).not.toBe(a.json.id);
		}
		expect(posts()).toBe(2 * settings.length);
	});

	it('a Retry gives the node back its own job, not an older one of the same input', async () => {
		const [[older]] = await create({ executionId: 'e0', mode: 'trigger' }); // an earlier schedule run
		const data = newExecutionData();
		const e1 = { executionId: 'e1', mode: 'trigger' as const, runExecutionData: data };
		const [[a]] = await create({ ...e1, nodeId: 'a', nodeName: 'Create A' });
		const [[b]] = await create({ ...e1, nodeId: 'b', nodeName: 'Create B' });
		// the execution failed after B; n8n's Retry runs B again with a copy of the execution's data
		const retry = { executionId: 'e2', mode: 'retry' as const, runExecutionData: copyOf(data) };
		const [[bAgain]] = await create({ ...retry, nodeId: 'b', nodeName: 'Create B' });
		expect(bAgain.json).toMatchObject({ id: b.json.id, adopted: true });
		expect([older.json.id, a.json.id]).not.toContain(bAgain.json.id);
		expect(posts()).toBe(3);
	});

	it('a Retry never hands a node the job of another node of the execution (its output is kept)', async () => {
		const data = newExecutionData();
		const e1 = { executionId: 'e1', mode: 'trigger' as const, runExecutionData: data };
		const [[a]] = await create({ ...e1, nodeId: 'a', nodeName: 'Create A' });
		// the execution failed before B ran; n8n's Retry keeps A's output and runs B
		const retry = { executionId: 'e2', mode: 'retry' as const, runExecutionData: copyOf(data) };
		const [[b]] = await create({ ...retry, nodeId: 'b', nodeName: 'Create B' });
		expect(b.json.adopted).toBe(false);
		expect(b.json.id).not.toBe(a.json.id);
		expect(posts()).toBe(2);
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

	describe('on a key with hundreds of jobs (a catalogue sent as webhook calls)', () => {
		const rows = (n: number) => Array.from({ length: n }, (_, i) => ({ json: { n: i } }));
		/** A manual run: it creates without looking for a recent job. */
		const createRows = (n: number) =>
			run(
				{ operation: 'create', ...textJob, prompt: '={{ "row " + $json.n }}' },
				{ items: rows(n) },
			);
		const createAs = (executionId: string, prompt: string) =>
			run({ operation: 'create', ...textJob, prompt }, { mode: 'webhook', executionId });
		const listPages = () => journalCount(env.emu, 'GET', /^\/v1\/jobs$/);
		beforeEach(() => env.emu.control.grantCredits(5_000));

		it('a later look reads only the jobs created since the last one, and still knows the older ones', async () => {
			await createRows(250);
			env.emu.control.clearJournal();
			await createAs('e1', 'first call');
			expect(listPages()).toBe(3); // the whole look-back: 250 jobs
			// webhook creates take the view for a minute (INTENT_VIEW_AGE_MS): the next look comes after it
			await env.clock.clock.sleep(61_000);
			env.emu.control.clearJournal();
			const [[other]] = await createAs('e2', 'second call');
			expect(other.json.adopted).toBe(false);
			expect(listPages()).toBe(1);
			await env.clock.clock.sleep(61_000);
			env.emu.control.clearJournal();
			// the oldest row, on the list's third page: picked up from what the first look read
			const [[row0]] = await createAs('e3', 'row 0');
			expect(row0.json.adopted).toBe(true);
			expect(env.emu.control.jobs().find((j) => j.id === row0.json.id)?.input).toMatchObject({
				prompt: 'row 0',
			});
			expect(listPages()).toBe(1);
		});

		it('an unfinished job further down is listed again at every look: one that failed since is not picked up', async () => {
			env.emu.control.scriptJobs([
				{ queuedMs: 1000, runningMs: 60_000, outcome: 'failed', errorCode: 'generation_failed' },
			]);
			await run({ operation: 'create', ...textJob, prompt: 'fails later' });
			await createRows(150);
			await createAs('e1', 'first call'); // lists 'fails later' running, on the second page
			await env.clock.clock.sleep(65_000); // it failed meanwhile
			env.emu.control.clearJournal();
			const [[item]] = await createAs('e2', 'fails later');
			expect(item.json.adopted).toBe(false);
			expect(listPages()).toBe(2);
		});
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

describe('Max Credits for This Run', () => {
	const items = (n: number) => Array.from({ length: n }, (_, i) => ({ json: { n: i } }));
	const batch = (options: IDataObject) => ({
		operation: 'create',
		...textJob,
		prompt: '={{ "take " + $json.n }}',
		options,
	});
	const posts = () => journalCount(env.emu, 'POST', /^\/v1\/jobs$/);
	const quotes = () => journalCount(env.emu, 'POST', /^\/v1\/jobs\/quote$/);
	const reserves = () => env.emu.control.ledger().entries.filter((e) => e.kind === 'reserve');

	it('stops the first item over the budget before creating, naming budget, reserved credits and jobs', async () => {
		// 8 credits a job: 2 fit in 20, the third would make 24
		const error = await fails(
			run(batch({ maxCreditsPerRun: 20, maxCredits: 10 }), { items: items(4) }),
		);
		const ids = env.emu.control
			.jobs()
			.map((j) => j.id)
			.reverse();
		expect(ids).toHaveLength(2);
		expect(error.message).toBe(
			`Max Credits for This Run is 20 credits and 16 are already reserved (by 2 jobs of this run: ${ids.join(', ')}), so this item's job, quoted at 8, would go over it. Nothing was created for this item and nothing was reserved.`,
		);
		expect(error.context).toMatchObject({ errorCode: 'run_budget_exceeded', itemIndex: 2 });
		expect(posts()).toBe(2);
		// the quotes Max Credits makes anyway, one per item that got that far: none extra for the budget
		expect(quotes()).toBe(3);
		expect(env.emu.control.ledger().balance.reserved).toBe(16);
	});

	it('counts a replayed job once: within a run (same Idempotency Key) and when the run is retried', async () => {
		// three items with one key: one job, replayed twice, 8 credits against a budget of 10
		const idempotencyKey = ['row', '000042', 'video', 'v1'].join('-');
		const [same] = await run(
			{ operation: 'create', ...textJob, options: { maxCreditsPerRun: 10, idempotencyKey } },
			{ items: items(3) },
		);
		expect(same.map((i) => i.json.replayed)).toEqual([false, true, true]);
		expect(new Set(same.map((i) => i.json.id)).size).toBe(1);
		// a retry of a run that stopped at its budget replays its jobs (each once) and stops at the same item
		await fails(run(batch({ maxCreditsPerRun: 20 }), { items: items(3), executionId: 'e2' }));
		const retried = await fails(
			run(batch({ maxCreditsPerRun: 20 }), { items: items(3), executionId: 'e2' }),
		);
		expect(retried.message).toContain('16 are already reserved (by 2 jobs of this run: ');
		expect(posts()).toBe(3 + 2 + 2);
		expect(reserves()).toHaveLength(1 + 2);
	});

	it('counts a picked-up job once', async () => {
		await run(batch({}), { items: items(2), mode: 'webhook', executionId: 'e1' });
		// an unattended run of the same inputs picks both up (16 counted), the third item would make 24
		const error = await fails(
			run(batch({ maxCreditsPerRun: 20 }), { items: items(3), mode: 'webhook', executionId: 'e2' }),
		);
		expect(error.message).toContain('16 are already reserved (by 2 jobs of this run: ');
		expect(posts()).toBe(2);
	});

	it('with Continue On Fail: an error item for each item over the budget, paired with its input', async () => {
		const [out] = await run(batch({ maxCreditsPerRun: 20 }), {
			items: items(4),
			continueOnFail: true,
		});
		expect(out.map((i) => [i.json.state ?? i.json.code, i.pairedItem])).toEqual([
			['queued', { item: 0 }],
			['queued', { item: 1 }],
			['run_budget_exceeded', { item: 2 }],
			['run_budget_exceeded', { item: 3 }],
		]);
		const ids = [out[0].json.id, out[1].json.id];
		for (const failed of out.slice(2)) {
			expect(failed.json.error).toContain('Max Credits for This Run is 20 credits and 16 are');
			expect(failed.json.jobsOfRun).toEqual(ids);
		}
		expect(posts()).toBe(2);
		expect(env.emu.control.ledger().balance.reserved).toBe(16);
	});
});
