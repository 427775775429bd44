/**
 * One watcher per key per n8n process (nodes/shared/jobs/watch.ts): many executions waiting on jobs
 * of one key at once are served by one list look per poll interval, each learns of its job's end within
 * one interval, and one that is cancelled or times out leaves without disturbing the others. Through
 * n8n-core's real contexts against the emulator over real HTTP, on the shared virtual clock; the referee
 * must see no violation (startEmulated's close()).
 */
import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import { GenerationServiceJob } from '../../nodes/GenerationServiceJob/GenerationServiceJob.node';
import { ASK_WALK, processWatchers } from '../../nodes/shared/jobs/watch';
import type { Emulated } from '../helpers/emulated';
import { fails, sha256, startEmulated } from '../helpers/emulated';
import { binaryBytes, runNode } from '../helpers/n8n';

const node = new GenerationServiceJob();
const rl = (value: string) => ({ __rl: true, mode: 'id', value });

let env: Emulated;
let apiKey: string;

/** A fresh emulator, a key of 60 requests a minute, jobs of `jobSeconds`. */
async function service(jobSeconds: number) {
	env = await startEmulated({
		jobTiming: { queuedMs: 2000, runningMs: jobSeconds * 1000 - 2000 },
	});
	apiKey = env.emu.control.createKey({ requestsPerMinute: 60 }).secret;
}

afterEach(async () => {
	await env.close();
});

interface Execution {
	id: string;
	abort?: AbortController;
	parameters: IDataObject;
}

/** One execution of the Job node; resolves with its output and when it came (virtual time). */
async function execute(execution: Execution) {
	const [out] = await runNode({
		node,
		parameters: { resource: 'job', ...execution.parameters } as never,
		credentials: { apiKey, baseUrl: env.emu.baseUrl },
		executionId: execution.id,
		mode: 'webhook',
		abortSignal: execution.abort?.signal,
	});
	return { out, at: env.clock.clock.now() };
}

const createAndWait = (prompt: string, options: IDataObject = {}): IDataObject => ({
	operation: 'create',
	mode: 'text_to_video',
	prompt,
	durationSeconds: 5,
	aspectRatio: '9:16',
	options: { waitForCompletion: true, ...options },
});

const waitFor = (jobId: string, options: IDataObject = {}): IDataObject => ({
	operation: 'waitForJob',
	jobId: rl(jobId),
	options,
});

/** One manual Create run over `rows` (a prompt each): the jobs, by row. */
async function createRows(rows: Array<{ json: { prompt: string } }>) {
	const [created] = await runNode({
		node,
		parameters: {
			resource: 'job',
			operation: 'create',
			mode: 'text_to_video',
			prompt: '={{ $json.prompt }}',
			durationSeconds: 5,
			aspectRatio: '9:16',
			options: {},
		} as never,
		credentials: { apiKey, baseUrl: env.emu.baseUrl },
		items: rows,
	});
	return created;
}

/** First pages of the job list (a look), by arrival time. */
const looks = () =>
	env.emu.control
		.journal()
		.filter((e) => e.method === 'GET' && e.path === '/v1/jobs' && !/cursor=/.test(e.query))
		.map((e) => e.at);
const jobReads = () =>
	env.emu.control.journal().filter((e) => /^\/v1\/jobs\/job_[0-9a-f]+$/.test(e.path));

async function expectMp4(item: INodeExecutionData) {
	expect(item.json.state).toBe('succeeded');
	expect(sha256(await binaryBytes(item))).toBe((item.json.output as IDataObject).sha256);
}

/** Job ids by creation order, to name each execution's job. */
const createdJobs = () => [...env.emu.control.jobs()].sort((a, b) => a.createdAt - b.createdAt);

describe('one watcher per key per process', () => {
	it('10 concurrent executions on one key: one look per interval, each gets its job within one interval of its end', async () => {
		await service(120);
		const executions = Array.from({ length: 10 }, (_, n) => ({
			id: `e${n}`,
			parameters: createAndWait(`a lighthouse in the fog, take ${n}`),
		}));
		const done = await Promise.all(executions.map(execute));
		const jobs = env.emu.control.jobs();
		expect(jobs).toHaveLength(10);
		for (const { out, at } of done) {
			expect(out).toHaveLength(1);
			await expectMp4(out[0]);
			const job = jobs.find((j) => j.id === out[0].json.id)!;
			// the execution had its job (and its MP4) within one poll interval of the job's end
			expect(at - job.updatedAt).toBeLessThanOrEqual(5000);
		}
		const seen = looks();
		const gaps = seen.slice(1).map((at, i) => at - seen[i]);
		// one look per interval for all ten: none sooner than 5 s after the previous, none later than 5 s
		// after it either once the looks began (the first one waits for the burst of creates)
		expect(Math.min(...gaps)).toBeGreaterThanOrEqual(5000);
		expect(Math.max(...gaps.slice(1))).toBeLessThanOrEqual(5000);
		const lastEnd = Math.max(...jobs.map((j) => j.updatedAt));
		expect(seen.length).toBeLessThanOrEqual(Math.ceil((lastEnd - seen[0]) / 5000) + 2);
		expect(jobReads()).toHaveLength(0); // no execution reads its own job
		// 1 capabilities + 1 recent-jobs look + 10 creates + the looks + 10 downloads, for ten 120 s jobs
		expect(env.emu.control.journal().length).toBe(1 + 1 + 10 + seen.length - 1 + 10);
		expect(processWatchers.size).toBe(0); // nobody follows: the watcher stopped and was forgotten
	});

	it('a cancelled execution leaves; the others are served on, also when its context sent the look in flight', async () => {
		await service(60);
		const executions: Execution[] = Array.from({ length: 3 }, (_, n) => ({
			id: `e${n}`,
			abort: new AbortController(),
			parameters: createAndWait(`a paper crane, take ${n}`),
		}));
		// the first execution (whose context sends the looks) is cancelled while its 3rd look is on its way
		let arrivals = 0;
		const stop = env.emu.control.watchArrivals((a) => {
			if (a.method === 'GET' && a.path === '/v1/jobs' && ++arrivals === 3) {
				executions[0].abort!.abort();
			}
		});
		// the second one later, while the watcher sleeps
		const running = executions.map(execute);
		const error = await fails(running[0]);
		stop();
		expect(error.message).toMatch(
			/^The execution was cancelled while waiting for job job_[0-9a-f]{32}\. The job keeps running/,
		);
		await env.clock.clock.sleep(7_500);
		executions[1].abort!.abort();
		const error1 = await fails(running[1]);
		expect(error1.message).toContain(String(error1.context.jobId));
		const { out } = await running[2];
		await expectMp4(out[0]);
		const seen = looks();
		const lastJob = createdJobs().find((j) => j.id === out[0].json.id)!;
		// the looks went on every 5 s for the one left (a look repeated at once for the cancelled sender)
		const gaps = seen.slice(1).map((at, i) => at - seen[i]);
		expect(Math.max(...gaps.slice(1))).toBeLessThanOrEqual(5000);
		expect(seen.find((at) => at >= lastJob.updatedAt)! - lastJob.updatedAt).toBeLessThanOrEqual(
			5000,
		);
		// the cancelled ones' jobs keep running on the service
		expect(env.emu.control.jobs().every((j) => j.state === 'succeeded')).toBe(true);
	});

	it('a lone job followed by two executions: the one that sends its read is cancelled mid-read, the other reads 5 s later', async () => {
		await service(30);
		const [[created]] = await runNode({
			node,
			parameters: { resource: 'job', ...createAndWait('one job'), options: {} } as never,
			credentials: { apiKey, baseUrl: env.emu.baseUrl },
		});
		const jobId = String(created.json.id);
		const first: Execution = { id: 'w1', abort: new AbortController(), parameters: waitFor(jobId) };
		const second: Execution = { id: 'w2', parameters: waitFor(jobId) };
		let reads = 0;
		const stop = env.emu.control.watchArrivals((a) => {
			if (a.path === `/v1/jobs/${jobId}` && ++reads === 2) first.abort!.abort();
		});
		const running = [execute(first), execute(second)];
		await fails(running[0]);
		stop();
		const { out } = await running[1];
		await expectMp4(out[0]);
		// one GET per look for both; the read after the lost one waited 5 s from it (referee: no poll_too_soon)
		const at = jobReads().map((e) => e.at);
		expect(at.slice(1).every((t, i) => t - at[i] >= 5000)).toBe(true);
	});

	it('a timeout of one follower leaves the others, also while the looks are held back', async () => {
		await service(150);
		const executions: Execution[] = [
			{ id: 'short', parameters: createAndWait('a short wait', { timeout: 1 }) },
			{ id: 'long', parameters: createAndWait('a long wait') },
		];
		const started = env.clock.clock.now();
		const running = executions.map(execute);
		// 50 s in, the key is held 30 s (a 429 with Retry-After on a look): the short one's minute ends
		// during the hold, and it leaves then, not when the next look comes
		await env.clock.clock.sleep(50_000);
		env.emu.control.injectFault({
			method: 'GET',
			path: '/v1/jobs',
			action: 'rate_limit',
			retryAfter: 30,
			times: 1,
		});
		const error = await fails(running[0]);
		const failedAt = env.clock.clock.now();
		expect(error.message).toMatch(/^Job job_[0-9a-f]{32} has not finished after 1 min/);
		expect(error.context.errorCode).toBe('wait_timeout');
		const held = env.emu.control.journal().find((e) => e.status === 429)!;
		expect(failedAt).toBeLessThan(held.at + 30_000); // before the hold ended
		expect(failedAt - started).toBeLessThanOrEqual(60_000 + 1000);
		const { out } = await running[1];
		await expectMp4(out[0]);
		expect(env.emu.control.journal().filter((e) => e.status === 429)).toHaveLength(1);
	});

	it('executions resumed one at a time (an execution per row): after three lone reads in a minute, a walk of the list serves the rest', async () => {
		// n8n's Wait node parks each row's execution until its job's estimate; they resume one by one and
		// each Wait for Job follows its job alone. Without the walk each reads its job: 20 reads here.
		await service(30);
		const prompts = Array.from({ length: 20 }, (_, n) => ({ json: { prompt: `row ${n}` } }));
		const created = await createRows(prompts);
		expect(created).toHaveLength(20);
		await env.clock.clock.sleep(60_000); // every job has ended; the rows' executions resume
		const before = env.emu.control.journal().length;
		for (const [n, item] of created.entries()) {
			const { out } = await execute({ id: `row${n}`, parameters: waitFor(String(item.json.id)) });
			await expectMp4(out[0]);
			await env.clock.clock.sleep(2_000); // the next row resumes
		}
		const after = env.emu.control.journal().slice(before);
		const reads = after.filter((e) => /^\/v1\/jobs\/job_[0-9a-f]+$/.test(e.path));
		const pages = after.filter((e) => e.method === 'GET' && e.path === '/v1/jobs');
		const downloads = after.filter((e) => /\/output$/.test(e.path));
		expect(reads).toHaveLength(ASK_WALK.asksBeforeWalk);
		expect(pages).toHaveLength(1); // one page shows all 20 jobs ended: the 16 rows after it ask nothing
		expect(downloads).toHaveLength(20);
		expect(after).toHaveLength(20 + ASK_WALK.asksBeforeWalk + 1);
	});

	it('rows answered by a walk keep the asks coming: a later wave of rows walks at once instead of reading three first', async () => {
		// An execution per row on a worker: the first wave's rows are answered by one walk's known ends for
		// the rest of the minute, and the next wave resumes later. Those answered rows are asks too (the
		// process's rhythm), so the next wave's first row walks. Without that, the asks' minute lapses while
		// the walk serves them, and the next wave reads three jobs again before its walk (3 reads, 1 page).
		await service(30);
		const first = await createRows(
			Array.from({ length: 20 }, (_, n) => ({ json: { prompt: `wave one, row ${n}` } })),
		);
		await env.clock.clock.sleep(60_000); // the first wave's jobs have ended
		const second = await createRows(
			Array.from({ length: 20 }, (_, n) => ({ json: { prompt: `wave two, row ${n}` } })),
		);
		for (const [n, item] of first.entries()) {
			const { out } = await execute({ id: `one${n}`, parameters: waitFor(String(item.json.id)) });
			await expectMp4(out[0]);
			await env.clock.clock.sleep(2_000);
		}
		// the second wave's jobs ended meanwhile; its rows resume 30 s after the first wave's last
		await env.clock.clock.sleep(30_000);
		const before = env.emu.control.journal().length;
		for (const [n, item] of second.entries()) {
			const { out } = await execute({ id: `two${n}`, parameters: waitFor(String(item.json.id)) });
			await expectMp4(out[0]);
			await env.clock.clock.sleep(2_000);
		}
		const after = env.emu.control.journal().slice(before);
		expect({
			reads: after.filter((e) => /^\/v1\/jobs\/job_[0-9a-f]+$/.test(e.path)).length,
			pages: after.filter((e) => e.method === 'GET' && e.path === '/v1/jobs').length,
			downloads: after.filter((e) => /\/output$/.test(e.path)).length,
		}).toEqual({ reads: 0, pages: 1, downloads: 20 });
	});

	it('a lone job seen unfinished is read at each interval, however often the process asks: a walk would show its end no sooner', async () => {
		await service(30);
		const [[created]] = await runNode({
			node,
			parameters: { resource: 'job', ...createAndWait('one long row'), options: {} } as never,
			credentials: { apiKey, baseUrl: env.emu.baseUrl },
		});
		const before = env.emu.control.journal().length;
		const { out } = await execute({ id: 'row', parameters: waitFor(String(created.json.id)) });
		await expectMp4(out[0]);
		const after = env.emu.control.journal().slice(before);
		const reads = after.filter((e) => /^\/v1\/jobs\/job_[0-9a-f]+$/.test(e.path));
		// a read at once and every 5 s until the 30 s job ends: more asks than ASK_WALK lets pass unwalked
		expect(reads.length).toBeGreaterThan(ASK_WALK.asksBeforeWalk + 1);
		expect(after.filter((e) => e.path === '/v1/jobs')).toHaveLength(0);
	});

	it("executions resumed two at a time, their jobs on the list's third page: their shared look walks down to them (a page more while more are unseen than the pages it added) instead of reading each", async () => {
		await service(30);
		env.emu.control.grantCredits(5_000);
		const rows = Array.from({ length: 250 }, (_, n) => ({ json: { prompt: `row ${n}` } }));
		const created = await createRows(rows);
		await env.clock.clock.sleep(60_000); // every job has ended
		const before = env.emu.control.journal().length;
		const askedBy: number[] = [];
		// the oldest 20 jobs (the list's third page), resumed in pairs 6 s apart
		for (let pair = 0; pair < 10; pair++) {
			const at = env.emu.control.journal().length;
			const outs = await Promise.all(
				[0, 1].map((k) =>
					execute({
						id: `row${pair * 2 + k}`,
						parameters: waitFor(String(created[pair * 2 + k].json.id)),
					}),
				),
			);
			for (const { out } of outs) await expectMp4(out[0]);
			askedBy.push(
				env.emu.control
					.journal()
					.slice(at)
					.filter((e) => !/\/output$/.test(e.path)).length,
			);
			await env.clock.clock.sleep(6_000);
		}
		const after = env.emu.control.journal().slice(before);
		const reads = after.filter((e) => /^\/v1\/jobs\/job_[0-9a-f]+$/.test(e.path));
		const pages = after.filter((e) => e.method === 'GET' && e.path === '/v1/jobs');
		// the first pair's look reads its 2 pages, then a third (2 jobs unseen, more than the 0 pages it added),
		// which shows both, and all 250 jobs ended: the pairs after it send nothing. Without the page more,
		// the first three pairs send 4 each (2 pages and 2 reads) until asks come often enough for a walk;
		// without the known ends, 3 each after the walk.
		expect(askedBy).toEqual([3, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
		expect({ reads: reads.length, pages: pages.length }).toEqual({ reads: 0, pages: 3 });
	});

	it('executions resumed 20 s apart (fewer than four asks a minute): each reads its job, no walk', async () => {
		await service(30);
		const prompts = Array.from({ length: 6 }, (_, n) => ({ json: { prompt: `sparse row ${n}` } }));
		const created = await createRows(prompts);
		await env.clock.clock.sleep(60_000);
		const before = env.emu.control.journal().length;
		for (const [n, item] of created.entries()) {
			const { out } = await execute({
				id: `sparse${n}`,
				parameters: waitFor(String(item.json.id)),
			});
			await expectMp4(out[0]);
			await env.clock.clock.sleep(20_000);
		}
		const after = env.emu.control.journal().slice(before);
		expect(after.filter((e) => /^\/v1\/jobs\/job_[0-9a-f]+$/.test(e.path))).toHaveLength(6);
		expect(after.filter((e) => e.path === '/v1/jobs')).toHaveLength(0);
	});
});
