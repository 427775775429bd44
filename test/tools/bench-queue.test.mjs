// Part 6 of the bench (queue mode): its figures from small recorded inputs (bench/parts/queue-figures.mjs).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import {
	busyByWorker,
	integrateSamples,
	isLook,
	slotsOf,
	unionMs,
	verifyDeliveries,
	waitBudget,
	workerLogEvent,
} from '../../bench/parts/queue-figures.mjs';

describe('bench queue figures', () => {
	it('reads the workers’ slot lines', () => {
		assert.deepEqual(workerLogEvent('Worker started execution 12 (job 15)'), {
			kind: 'started',
			executionId: '12',
			bullJob: '15',
		});
		assert.equal(workerLogEvent('Worker finished execution 3 (job 4)').kind, 'finished');
		assert.equal(workerLogEvent('n8n worker is now ready'), undefined);
	});

	it('a parked execution is two slots, its parked time in neither; an unfinished one counts to the end', () => {
		const ev = (worker, kind, executionId, bullJob, at) => ({
			worker,
			kind,
			executionId,
			bullJob,
			at,
		});
		const slots = slotsOf(
			[
				ev('worker1', 'started', '1', '1', 0),
				ev('worker2', 'started', '2', '2', 100),
				ev('worker1', 'finished', '1', '1', 2000), // parked at its Wait node
				ev('worker2', 'started', '1', '3', 120_000), // resumed, as another queue job
				ev('worker2', 'finished', '1', '3', 121_000),
			],
			130_000,
		);
		assert.deepEqual(
			slots.map((s) => [s.worker, s.executionId, s.to - s.from, Boolean(s.open)]),
			[
				['worker1', '1', 2000, false],
				['worker2', '2', 129_900, true],
				['worker2', '1', 1000, false],
			],
		);
		assert.deepEqual(busyByWorker(slots), { worker1: 2000, worker2: 129_900 });
	});

	it('unions overlapping intervals', () => {
		assert.equal(
			unionMs([
				{ from: 0, to: 10 },
				{ from: 5, to: 15 },
				{ from: 20, to: 25 },
				{ from: 21, to: 22 },
			]),
			20,
		);
	});

	it('integrates the sampled execution list, each sample held until the next', () => {
		const r = integrateSamples(
			[
				{ at: 0, counts: { running: 4, new: 8, waiting: 0 } },
				{ at: 1000, counts: { running: 4, new: 0, waiting: 2 } },
				{ at: 3000, counts: { running: 0, new: 0, waiting: 0 } },
			],
			4000,
		);
		assert.deepEqual(r, { running: 12, new: 8, waiting: 4, maxRunning: 4 });
	});

	it('verifies deliveries: once and with the job’s sha256', () => {
		const jobs = [
			{ id: 'a', outputSha256: 'x' },
			{ id: 'b', outputSha256: 'y' },
			{ id: 'c', outputSha256: 'z' },
			{ id: 'd', outputSha256: 'w' },
		];
		const deliveries = new Map([
			['a', [{ sha256: 'x', at: 10 }]],
			[
				'b',
				[
					{ sha256: 'y', at: 30 },
					{ sha256: 'y', at: 40 },
				],
			],
			['c', [{ sha256: 'bad', at: 20 }]],
		]);
		const r = verifyDeliveries(jobs, deliveries);
		assert.equal(r.verified, 1);
		assert.deepEqual([r.twice, r.badSha, r.missing, r.lastAt], [['b'], ['c'], ['d'], 30]);
	});

	it('a look is a first list page or a job read', () => {
		assert.ok(isLook({ method: 'GET', path: '/v1/jobs', query: 'limit=100' }));
		assert.ok(!isLook({ method: 'GET', path: '/v1/jobs', query: 'limit=100&cursor=abc' }));
		assert.ok(isLook({ method: 'GET', path: '/v1/jobs/job_1', query: '' }));
		assert.ok(!isLook({ method: 'GET', path: '/v1/jobs/job_1/output', query: '' }));
		assert.ok(!isLook({ method: 'POST', path: '/v1/jobs', query: '' }));
	});

	it('the waiting budget: creates and downloads, one look per interval and a capabilities read per minute of each process', () => {
		const b = waitBudget({ n: 12, busy: { worker1: 360_000, worker2: 361_000 }, intervalMs: 5000 });
		assert.deepEqual(b.perProcess, {
			worker1: { looks: 73, capabilities: 6 },
			worker2: { looks: 74, capabilities: 7 },
		});
		assert.equal(b.total, 24 + 73 + 6 + 74 + 7);
	});
});
