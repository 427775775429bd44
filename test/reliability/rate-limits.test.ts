/**
 * The service's rules for clients under load, kept by the nodes: batches on a 10 requests/minute key,
 * 429 storms while other items poll, an IP limit without rate headers, answers arriving out of order,
 * a revoked key, a wait followed by Download Output, two node runs sharing one key. Through n8n-core's
 * real contexts against the emulator over real HTTP, on the shared virtual clock; the emulator
 * (referee) must see no violation (startEmulated's close() fails the test otherwise). Each scenario
 * records its figures for docs/reliability.md's rate-limit contract table.
 */
import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import type { EmulatorOptions } from '../../emulator/src';
import { GenerationServiceAccount } from '../../nodes/GenerationServiceAccount/GenerationServiceAccount.node';
import { GenerationServiceJob } from '../../nodes/GenerationServiceJob/GenerationServiceJob.node';
import type { Emulated } from '../helpers/emulated';
import { sha256, startEmulated } from '../helpers/emulated';
import { binaryBytes, runNode } from '../helpers/n8n';
import { testClock } from '../helpers/serviceClock';
import { record } from './metrics';

const jobNode = new GenerationServiceJob();
const accountNode = new GenerationServiceAccount();

let env: Emulated;
let apiKey: string;

/**
 * A fresh emulator and a key of `rpm` requests per minute; jobs of `jobSeconds`. The clock is the
 * discrete-event one: loopback latency and a busy event loop take no virtual time, so the referee's
 * in-flight allowance is never eaten by how busy the machine is.
 */
async function service(rpm: number, jobSeconds: number, options: EmulatorOptions = {}) {
	env = await startEmulated({
		jobTiming: { queuedMs: 2000, runningMs: jobSeconds * 1000 - 2000 },
		...options,
	});
	apiKey = env.emu.control.createKey({ requestsPerMinute: rpm }).secret;
}

afterEach(async () => {
	await env.close();
});

const prompts = (n: number) => Array.from({ length: n }, (_, i) => ({ json: { n: i } }));
const createParams = (options: IDataObject = {}) => ({
	resource: 'job',
	operation: 'create',
	mode: 'text_to_video',
	prompt: '={{ "a paper boat, take " + $json.n }}',
	durationSeconds: 5,
	aspectRatio: '9:16',
	options: { waitForCompletion: true, ...options },
});

function runJob(parameters: IDataObject, items: INodeExecutionData[], extra = {}) {
	return runNode({
		node: jobNode,
		parameters: parameters as never,
		items,
		credentials: { apiKey, baseUrl: env.emu.baseUrl },
		...extra,
	});
}

/** Every output item is its input's job, succeeded, with its own verified MP4. */
async function expectEveryMp4(out: INodeExecutionData[], n: number) {
	expect(out).toHaveLength(n);
	const ids = new Set<string>();
	for (const [i, item] of out.entries()) {
		expect(item.pairedItem).toEqual({ item: i });
		expect(item.json.state).toBe('succeeded');
		expect(sha256(await binaryBytes(item))).toBe((item.json.output as IDataObject).sha256);
		ids.add(String(item.json.id));
	}
	expect(ids.size).toBe(n);
}

/** The scenario's figures, from the emulator's journal and referee. */
function figures(scenario: string, items: number) {
	const journal = env.emu.control.journal();
	const row = {
		scenario,
		items,
		requests: journal.length,
		rateLimited: journal.filter((e) => e.status === 429).length,
		violations: Object.values(env.emu.control.violationCounts()).reduce((a, b) => a + b, 0),
	};
	record('contract', row);
	return row;
}

describe('batches on a rate-limited key (10 requests/minute)', () => {
	it('10 items, Create with Wait for Completion, 30 s jobs: every MP4, no 429, no violation', async () => {
		await service(10, 30);
		const [out] = await runJob(createParams(), prompts(10));
		await expectEveryMp4(out, 10);
		const row = figures('10 × Create with Wait for Completion, 30 s jobs, 10 req/min', 10);
		expect(row.rateLimited).toBe(0);
		// 1 capabilities + 10 creates + 10 downloads + list polls: not one GET per job per interval
		expect(
			env.emu.control.journal().filter((e) => /^\/v1\/jobs\/job_\w+$/.test(e.path)),
		).toHaveLength(0);
	});

	it('20 items, Wait for Job: one list request per interval follows them all', async () => {
		await service(10, 30);
		const creator = env.emu.control.createKey({ requestsPerMinute: 120 }).secret;
		const ids: string[] = [];
		for (let i = 0; i < 20; i++) {
			const res = await fetch(`${env.emu.baseUrl}/jobs`, {
				method: 'POST',
				headers: {
					Authorization: `Bearer ${creator}`,
					'Content-Type': 'application/json',
					'Idempotency-Key': `rate-limits-wait-${String(i).padStart(8, '0')}`,
				},
				body: JSON.stringify({ mode: 'text_to_video', prompt: `take ${i}` }),
			});
			ids.push(((await res.json()) as { data: { id: string } }).data.id);
		}
		env.emu.control.clearJournal();
		const [out] = await runJob(
			{ resource: 'job', operation: 'waitForJob', jobId: '={{ $json.id }}', options: {} },
			ids.map((id) => ({ json: { id } })),
		);
		await expectEveryMp4(out, 20);
		expect(out.map((item) => item.json.id)).toEqual(ids);
		const row = figures('20 × Wait for Job, 30 s jobs, 10 req/min', 20);
		expect(row.rateLimited).toBe(0);
	});
});

describe('429s and limits the node cannot foresee', () => {
	it('a 429 storm with Retry-After on the list and on one download while the others go on', async () => {
		await service(60, 20);
		env.emu.control.injectFault({
			method: 'GET',
			path: '/v1/jobs',
			action: 'rate_limit',
			retryAfter: 4,
			times: 2,
		});
		env.emu.control.injectFault({
			method: 'GET',
			path: /\/output$/,
			action: 'rate_limit',
			retryAfter: 3,
			times: 1,
		});
		const [out] = await runJob(createParams(), prompts(5));
		await expectEveryMp4(out, 5);
		const row = figures(
			'5 × Create with Wait, 429 storm (Retry-After 3–4 s) on list and download',
			5,
		);
		expect(row.rateLimited).toBe(3);
	});

	it('an IP limit without rate headers holds every key of the service', async () => {
		await service(60, 20, { ipLimit: { requests: 6, windowMs: 20_000 } });
		const other = env.emu.control.createKey({ requestsPerMinute: 60 }).secret;
		const [[a], [b]] = await Promise.all([
			runJob(createParams(), prompts(4)),
			runNode({
				node: accountNode,
				parameters: { resource: 'account', operation: 'getBalance' } as never,
				items: prompts(4),
				credentials: { apiKey: other, baseUrl: env.emu.baseUrl },
			}),
		]);
		await expectEveryMp4(a, 4);
		expect(b).toHaveLength(4);
		const row = figures(
			'4 × Create with Wait + 4 × Get Balance on another key, IP limit 6 per 20 s',
			8,
		);
		expect(row.rateLimited).toBeGreaterThan(0); // the node cannot know the IP limit before its first 429
	});

	it('answers arriving out of order (stale rate headers) never lead into an exhausted window', async () => {
		await service(10, 20);
		env.emu.control.injectFault({
			method: 'GET',
			path: /./,
			action: 'delay_response',
			delayMs: 3000,
			times: 6,
		});
		const [out] = await runJob(createParams(), prompts(6));
		await expectEveryMp4(out, 6);
		const row = figures(
			'6 × Create with Wait, 10 req/min, 6 answers delayed 3 s (out of order)',
			6,
		);
		expect(row.rateLimited).toBe(0);
	});
});

describe('keys and job reads', () => {
	it('a revoked key with Continue On Fail: one request, then every item fails at once with the same message', async () => {
		await service(60, 10);
		env.emu.control.revokeKey(apiKey);
		const [out] = await runJob(createParams({ waitForCompletion: false }), prompts(6), {
			continueOnFail: true,
		});
		expect(out).toHaveLength(6);
		const first = String(out[0].json.error);
		expect(first).toContain('wrong, expired or revoked');
		for (const item of out) {
			expect(item.json.code).toBe('invalid_api_key');
			expect(String(item.json.error)).toContain(first);
		}
		figures('6 × Create with a revoked key, Continue On Fail', 6);
		// one request was refused; nothing was sent with the key after it
		const journal = env.emu.control.journal();
		const refusedAt = journal.findIndex((e) => e.status === 401);
		expect(journal.filter((e) => e.status === 401)).toHaveLength(1);
		expect(journal.slice(refusedAt + 1)).toEqual([]);
	});

	it('Create with Wait (download off), then Download Output: the job is not read twice in a row', async () => {
		await service(60, 10);
		const [created] = await runJob(createParams({ downloadOutput: false }), prompts(3));
		expect(created.every((item) => item.json.state === 'succeeded' && !item.binary)).toBe(true);
		const beforeDownloads = env.emu.control.journal().length;
		const [downloaded] = await runJob(
			{ resource: 'job', operation: 'downloadOutput', jobId: '={{ $json.id }}', options: {} },
			created.map((item) => ({ json: item.json })),
		);
		expect(downloaded).toHaveLength(3);
		for (const item of downloaded) {
			expect(sha256(await binaryBytes(item))).toBe((item.json.output as IDataObject).sha256);
		}
		figures('3 × Create with Wait (no download), then 3 × Download Output', 3);
		// Download Output used the finished jobs the wait had just read: only the 3 downloads were sent
		const second = env.emu.control.journal().slice(beforeDownloads);
		expect(second.map((e) => e.path)).toEqual(
			created.map((item) => `/v1/jobs/${String(item.json.id)}/output`),
		);
	});

	it('two node runs on one key at once share one pacer', async () => {
		await service(10, 20);
		const [[a], [b]] = await Promise.all([
			runJob(createParams(), prompts(4)),
			runJob({ ...createParams(), prompt: '={{ "a red kite, take " + $json.n }}' }, prompts(4), {
				executionId: 'exec-2',
			}),
		]);
		await expectEveryMp4(a, 4);
		await expectEveryMp4(b, 4);
		const row = figures('2 runs × 4 Create with Wait at once, one key of 10 req/min', 8);
		expect(row.rateLimited).toBe(0);
	});
});

describe('the referee notices a client that breaks the contract', () => {
	it('a poll less than 5 s after the previous read of a job, and a request before Retry-After', async () => {
		await service(60, 10);
		const headers = { Authorization: `Bearer ${apiKey}`, 'Content-Type': 'application/json' };
		const res = await fetch(`${env.emu.baseUrl}/jobs`, {
			method: 'POST',
			headers: { ...headers, 'Idempotency-Key': ['referee', 'check', '0001'].join('-') },
			body: JSON.stringify({ mode: 'text_to_video', prompt: 'x' }),
		});
		const { id } = ((await res.json()) as { data: { id: string } }).data;
		await fetch(`${env.emu.baseUrl}/jobs/${id}`, { headers }); // right after creating it
		env.emu.control.injectFault({ path: '/v1/balance', action: 'rate_limit', retryAfter: 30 });
		await fetch(`${env.emu.baseUrl}/balance`, { headers });
		await testClock.sleep(1000); // past the in-flight allowance, far short of the 30 s
		await fetch(`${env.emu.baseUrl}/balance`, { headers }); // did not wait
		expect(env.emu.control.violationCounts()).toMatchObject({
			poll_too_soon: 1,
			retry_after_key: 1,
		});
		env.expectViolations({ poll_too_soon: 1, retry_after_key: 1 });
	});
});
