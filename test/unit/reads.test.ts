/**
 * A job is read at most once per 5 s in the process (readJob, nodes/shared/jobs/watch.ts): the service asks
 * for 5 to 10 s between reads of one job. An unfinished job's answer is reused for exactly that long, a
 * finished job's for good. Through n8n-core's real context and HTTP helper, against nock, on the virtual
 * clock.
 */
import nock from 'nock';
import type { IExecuteFunctions } from 'n8n-workflow';

import { MIN_POLL_MS } from '../../nodes/shared/jobs/job';
import { readJob } from '../../nodes/shared/jobs/watch';
import { TEST_KEY, runNode } from '../helpers/n8n';
import { useNock } from '../helpers/nock';
import { probeNode } from '../helpers/probe-node';
import { testClock } from '../helpers/serviceClock';

const BASE = 'https://api.gen.test/v1';
const JOB = `job_${'d'.repeat(32)}`;
const job = (state: string) => ({
	id: JOB,
	state,
	reservedCredits: 8,
	chargedCredits: 0,
	output: null,
	outputUrl: null,
	errorCode: null,
	createdAt: 1,
	updatedAt: 1,
});

useNock();

async function inProbe(fn: (this: IExecuteFunctions) => Promise<unknown>) {
	await runNode({
		node: probeNode(fn),
		parameters: {},
		credentials: { apiKey: TEST_KEY, baseUrl: BASE },
	});
}

/** Answers GET /jobs/JOB with `states` in turn; the times (virtual ms) of the reads that reached it. */
function answers(...states: string[]): number[] {
	const reads: number[] = [];
	nock(BASE)
		.get(`/jobs/${JOB}`)
		.times(states.length)
		.reply(() => {
			reads.push(Date.now());
			return [200, { data: job(states[reads.length - 1]) }];
		});
	return reads;
}

describe('a job read', () => {
	it('reuses an unfinished job answer for 5 s, not a moment longer', async () => {
		const reads = answers('running', 'running');
		await inProbe(async function () {
			expect((await readJob(this, JOB, {})).state).toBe('running');
			await testClock.sleep(MIN_POLL_MS - 1);
			await readJob(this, JOB, {}); // 4.999 s later: the answer in hand
			expect(reads).toHaveLength(1);
			await testClock.sleep(1);
			await readJob(this, JOB, {}); // 5 s after the answer: read again
			expect(reads).toHaveLength(2);
		});
		expect(MIN_POLL_MS).toBe(5_000);
	});

	it('reuses a finished job answer for good', async () => {
		const reads = answers('succeeded');
		await inProbe(async function () {
			await readJob(this, JOB, {});
			await testClock.sleep(10 * 60_000);
			expect((await readJob(this, JOB, {})).state).toBe('succeeded');
		});
		expect(reads).toHaveLength(1);
	});

	it('overlapping reads of one job share one request', async () => {
		const reads = answers('queued');
		await inProbe(async function () {
			const [a, b] = await Promise.all([readJob(this, JOB, {}), readJob(this, JOB, {})]);
			expect([a.state, b.state]).toEqual(['queued', 'queued']);
		});
		expect(reads).toHaveLength(1);
	});
});
