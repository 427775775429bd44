// The chaos soak's seeded schedule (tools/lib/soak/faults.mjs prng, tools/lib/soak/process-faults.mjs
// planProcessFaults): one seed gives the same process faults at the same moments, whichever kinds a run picks
// (the moments below are those the soak planned for seed 7 before it was split into modules, as its log line
// 'process faults at …' says).
//
//   node --import tsx --test test/tools/*.test.mjs        (npm run test:tools)
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { prng } from '../../tools/lib/soak/faults.mjs';
import { PROCESS_FAULTS, planProcessFaults } from '../../tools/lib/soak/process-faults.mjs';

const plan = (minutes, kinds = PROCESS_FAULTS, seed = 7) =>
	planProcessFaults({ minutes, loadMs: minutes * 60_000, rand: prng(seed), kinds }).map(
		(p) => `${p.kind} ${(p.at / 1000).toFixed(1)} s`,
	);

test('seed 7: a 2-minute and a 10-minute soak get one of each process fault, at the same seeded moments', () => {
	assert.deepEqual(plan(2), [
		'SIGKILL a worker mid-wait 12.2 s',
		'SIGKILL a worker mid-download 37.1 s',
		'restart the main 77.6 s',
		'restart Redis 96.6 s',
	]);
	assert.deepEqual(plan(10), [
		'SIGKILL a worker mid-wait 61.1 s',
		'SIGKILL a worker mid-download 185.6 s',
		'restart the main 387.9 s',
		'restart Redis 482.9 s',
	]);
});

test('each 10-minute block gets its own moments; a subset of kinds keeps the others’ moments', () => {
	const all = plan(30);
	assert.equal(all.length, 12);
	assert.deepEqual(all.slice(0, 4), plan(10));
	const restarts = plan(30, ['restart the main', 'restart Redis']);
	assert.deepEqual(
		restarts,
		all.filter((p) => p.startsWith('restart')),
	);
	assert.deepEqual(restarts.slice(2, 4), ['restart the main 942.0 s', 'restart Redis 1041.6 s']);
});

test('the seeded streams are the same for a seed and differ between seeds', () => {
	const draws = (seed) => Array.from({ length: 5 }, prng(seed));
	assert.deepEqual(draws(7), draws(7));
	assert.notDeepEqual(draws(7), draws(8));
	const r = prng(20261125);
	const seen = new Set(Array.from({ length: 200 }, () => r.int(1, 3)));
	assert.deepEqual([...seen].sort(), [1, 2, 3]); // int(lo, hi): both ends, nothing beyond
});
