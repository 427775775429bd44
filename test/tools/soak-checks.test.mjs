// The chaos soak's end-of-run checks (tools/lib/soak/checks.mjs) on small recorded data: the emulator's jobs and
// ledger entries as `emu.control.jobs()` and `emu.control.ledger()` gave them for two text-to-video creates (the
// first sent twice with one Idempotency-Key: replayed, one job) and a character replacement (an upload, a
// persona), with the sink's deliveries as the soak's sink keeps them (job id → [{ sha256, bytes, at }]). Each
// test breaks one rule on a copy (another job for an intent, a ledger entry more, a delivery more or less).
//
//   node --import tsx --test test/tools/*.test.mjs        (npm run test:tools)
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import {
	allDelivered,
	chargedTwice,
	checkOutcomes,
	countBy,
	deliveredTwice,
	duplicateJobs,
	intentOf,
	jobsByIntent,
	jobsFinished,
	ledgerCounts,
	lostOutputs,
	reservedNotOnce,
	soakJobsOf,
	soakProblems,
	unknownDeliveries,
	wrongSha256,
} from '../../tools/lib/soak/checks.mjs';

// Recorded: emu.control.jobs() after the creates, whole.
const J1 = {
	id: 'job_1f3a3cc183da0df2f9de93eba184e620',
	state: 'succeeded',
	input: {
		mode: 'text_to_video',
		prompt: 'soak 7 b1 item 1: a lighthouse at dusk, take 1',
		sourceAssetId: null,
		referenceAssetId: null,
		personaId: null,
		durationSeconds: 5,
		aspectRatio: '16:9',
	},
	reservedCredits: 8,
	chargedCredits: 7,
	output: {
		assetId: 'asset_c2766ed0faba258d9d324371547244b3',
		mimeType: 'video/mp4',
		sha256: '91bfa2add25c062bb80f8909a71ec33abe067d58745061bd384c51c04c28bde2',
	},
	outputUrl: '/v1/jobs/job_1f3a3cc183da0df2f9de93eba184e620/output',
	errorCode: null,
	createdAt: 1795674316635,
	updatedAt: 1795674317035,
	replayed: false,
};
const J2 = {
	id: 'job_9775399ef307858c4c77ab0b0b2ff7ae',
	state: 'succeeded',
	input: {
		mode: 'text_to_video',
		prompt: 'soak 7 b1 item 2: a lighthouse at dusk, take 2',
		sourceAssetId: null,
		referenceAssetId: null,
		personaId: null,
		durationSeconds: 5,
		aspectRatio: '16:9',
	},
	reservedCredits: 8,
	chargedCredits: 7,
	output: {
		assetId: 'asset_13a88d596f86b7924433d40e7b9fcafb',
		mimeType: 'video/mp4',
		sha256: '66924de3be3f6eb05e98f65d8ddc5aa640fdb8386b24d4ac178533ac4c39c850',
	},
	outputUrl: '/v1/jobs/job_9775399ef307858c4c77ab0b0b2ff7ae/output',
	errorCode: null,
	createdAt: 1795674316648,
	updatedAt: 1795674317048,
	replayed: false,
};
const J3 = {
	id: 'job_8a8776bf26ebbc1c9f286308f7e711bf',
	state: 'succeeded',
	input: {
		mode: 'character_replacement',
		prompt: '',
		sourceAssetId: 'asset_a4f4c72bd705edb5d55970a3fafef270',
		referenceAssetId: null,
		personaId: 'prs_52ffa149edb81de5ccb27ca361c612f5',
		durationSeconds: 3,
		aspectRatio: '9:16',
	},
	reservedCredits: 10,
	chargedCredits: 8,
	output: {
		assetId: 'asset_56652dea95826039f85962eb926df797',
		mimeType: 'video/mp4',
		sha256: '15f230d80e2a7739bc57e2a46f40dc8954df3977f02403564ddfa728ba8e18ea',
	},
	outputUrl: '/v1/jobs/job_8a8776bf26ebbc1c9f286308f7e711bf/output',
	errorCode: null,
	createdAt: 1795674754931,
	updatedAt: 1795674755331,
	replayed: false,
};
const JOBS = [J3, J2, J1]; // newest first, as listed
const SHA = { j1: J1.output.sha256, j2: J2.output.sha256, j3: J3.output.sha256 };
const T0 = 1795674316499; // the account's grant: the emulator's start
const KEY = 'key_36ea366b84b41ab5b87ce4c8cc5d1584';

// Recorded: emu.control.ledger().entries (newest first): each job reserved, then settled and the rest released.
const ENTRIES = [
	['led_bdb193e64905a95ce6cd3be4528538ac', 'release', 2, J3.id, 1795674755331],
	['led_928ba46d0d1a4758b6bad4fd01c7b819', 'settle', 8, J3.id, 1795674755331],
	['led_f5957dce4e47b1649220ed618532eca9', 'reserve', 10, J3.id, 1795674754931],
	['led_8b2428523b24d57eebd1389c69b1546d', 'release', 1, J2.id, 1795674317048],
	['led_5bc0198c3b643e78076566c25e8481de', 'settle', 7, J2.id, 1795674317048],
	['led_06a1841a922f88126e5a9cd392301abb', 'release', 1, J1.id, 1795674317035],
	['led_e185205177d3a168d2d5beb1d712675e', 'settle', 7, J1.id, 1795674317035],
	['led_b5332d21b93e63c6618ac39df4502845', 'reserve', 8, J2.id, 1795674316648],
	['led_938b7a409b03546149070b088a744561', 'reserve', 8, J1.id, 1795674316635],
	['led_7c71958b05ec512ea7f81607aefdd1cd', 'grant', 10_000_000, null, T0],
].map(([id, kind, amount, jobId, createdAt]) => ({
	id,
	kind,
	amount,
	jobId,
	apiKeyId: jobId ? KEY : null,
	createdAt,
}));
const LEDGER = { entries: ENTRIES, invariantHolds: true };

/** A ledger entry made for a test (a rule broken): `kind` for job `jobId`. */
const entry = (kind, jobId, amount, at = T0 + 2000) => ({
	id: `led_test_${kind}_${jobId}`,
	kind,
	amount,
	jobId,
	apiKeyId: KEY,
	createdAt: at,
});
/** Another job for job `j`'s intent (another id), in `state`, made for a test. */
const again = (j, id, state, sha256 = null) => ({
	...j,
	id,
	state,
	output: sha256 ? { ...j.output, sha256 } : null,
	outputUrl: sha256 ? `/v1/jobs/${id}/output` : null,
});

const delivery = (sha256, at = T0 + 61_000) => ({ sha256, bytes: 48_213, at });
/** The sink after a clean run: each succeeded job's MP4 once, with its sha256. */
const deliveries = (extra = {}) =>
	new Map([
		[J2.id, [delivery(SHA.j2)]],
		[J1.id, [delivery(SHA.j1)]],
		[J3.id, [delivery(SHA.j3)]],
		...Object.entries(extra),
	]);

describe('intents and the soak jobs', () => {
	test("a prompt's intent is its prompt; a replacement's is its duration and aspect ratio", () => {
		assert.equal(intentOf(J1.input), 'prompt soak 7 b1 item 1: a lighthouse at dusk, take 1');
		assert.equal(intentOf(J3.input), 'replace 3 9:16');
		assert.notEqual(intentOf(J3.input), intentOf({ ...J3.input, aspectRatio: '16:9' }));
		assert.notEqual(intentOf(J3.input), intentOf({ ...J3.input, durationSeconds: 4 }));
	});

	test('the soak jobs are those created since it started for an intent its callers asked for', () => {
		const before = again(J1, 'job_before', 'succeeded', SHA.j1);
		const other = {
			...again(J2, 'job_other', 'queued'),
			input: { ...J2.input, prompt: 'not the soak' },
		};
		const intents = new Map([J1, J2, J3].map((j) => [intentOf(j.input), { call: 'b1' }]));
		const jobs = soakJobsOf([...JOBS, before, other], {
			jobsBefore: new Set([before.id]),
			intents,
		});
		assert.deepEqual(
			jobs.map((j) => j.id),
			JOBS.map((j) => j.id),
		);
	});

	test('jobs are grouped by intent', () => {
		const retry = again(J1, 'job_aaaa', 'failed');
		const byIntent = jobsByIntent([...JOBS, retry]);
		assert.equal(byIntent.size, 3);
		assert.deepEqual(
			byIntent.get(intentOf(J1.input)).map((j) => j.id),
			[J1.id, retry.id],
		);
	});

	test('counted by a key, in order of first appearance', () => {
		const counts = countBy([...JOBS, again(J1, 'job_b', 'failed')], (j) => j.state);
		assert.deepEqual(Object.entries(counts), [
			['succeeded', 3],
			['failed', 1],
		]);
	});
});

describe('the drain', () => {
	test('finished once no job is queued or running', () => {
		assert.equal(jobsFinished(JOBS), true);
		assert.equal(jobsFinished([...JOBS, again(J1, 'job_q', 'queued')]), false);
		assert.equal(jobsFinished([...JOBS, again(J1, 'job_r', 'running')]), false);
		assert.equal(jobsFinished([...JOBS, again(J1, 'job_f', 'failed')]), true);
	});

	test('delivered once every succeeded job is at the sink (a failed one has nothing to deliver)', () => {
		assert.equal(allDelivered(JOBS, deliveries()), true);
		assert.equal(allDelivered([...JOBS, again(J1, 'job_f', 'failed')], deliveries()), true);
		const sink = deliveries();
		sink.delete(J3.id);
		assert.equal(allDelivered(JOBS, sink), false);
		const last = deliveries();
		last.delete(J1.id);
		assert.equal(allDelivered(JOBS, last), false);
	});
});

describe('charged once', () => {
	test('the ledger counts settles and reserves per job (not releases nor grants)', () => {
		const { settles, reserves } = ledgerCounts(ENTRIES);
		assert.deepEqual([...settles.values()], [1, 1, 1]);
		assert.deepEqual([...reserves.values()], [1, 1, 1]);
		assert.equal(settles.get(null), undefined);
	});

	test('two jobs not failed for one intent are duplicates; a failed one and its retry are not', () => {
		const dup = again(J1, 'job_dup', 'succeeded', SHA.j1);
		assert.deepEqual(duplicateJobs(jobsByIntent([...JOBS, dup])), [
			{ prompt: intentOf(J1.input), jobs: [J1.id, dup.id] },
		]);
		const failed = again(J2, 'job_failed', 'failed');
		assert.deepEqual(duplicateJobs(jobsByIntent([...JOBS, failed])), []);
		const queued = again(J3, 'job_queued', 'queued');
		assert.deepEqual(duplicateJobs(jobsByIntent([...JOBS, queued])), [
			{ prompt: intentOf(J3.input), jobs: [J3.id, queued.id] },
		]);
	});

	test('an intent with two jobs settled is charged twice; one settled and one released is not', () => {
		const second = again(J1, 'job_second', 'failed');
		const byIntent = jobsByIntent([...JOBS, second]);
		const released = ledgerCounts([...ENTRIES, entry('reserve', second.id, 8)]);
		assert.deepEqual(chargedTwice(byIntent, released.settles), []);
		const settled = ledgerCounts([...ENTRIES, entry('settle', second.id, 7)]);
		assert.deepEqual(chargedTwice(byIntent, settled.settles), [
			{ prompt: intentOf(J1.input), jobs: [J1.id, second.id] },
		]);
	});

	test('a job reserved twice, or never, is reported', () => {
		assert.deepEqual(reservedNotOnce(JOBS, ledgerCounts(ENTRIES).reserves), []);
		const twice = ledgerCounts([...ENTRIES, entry('reserve', J2.id, 8)]);
		assert.deepEqual(reservedNotOnce(JOBS, twice.reserves), [J2.id]);
		const never = ledgerCounts(ENTRIES.filter((e) => !(e.kind === 'reserve' && e.jobId === J3.id)));
		assert.deepEqual(reservedNotOnce(JOBS, never.reserves), [J3.id]);
	});
});

describe('delivered once, with the right bytes', () => {
	test('a succeeded job the sink never got is lost', () => {
		const sink = deliveries();
		sink.delete(J1.id);
		assert.deepEqual(lostOutputs(JOBS, sink), [J1.id]);
		assert.deepEqual(lostOutputs(JOBS, deliveries()), []);
	});

	test('a job delivered twice is reported (even with the right bytes)', () => {
		const sink = deliveries({ [J3.id]: [delivery(SHA.j3), delivery(SHA.j3, T0 + 121_000)] });
		assert.deepEqual(deliveredTwice(JOBS, sink), [J3.id]);
		assert.deepEqual(deliveredTwice(JOBS, deliveries()), []);
	});

	test("a delivery whose sha256 is not the job's output is reported, whichever delivery it is", () => {
		assert.deepEqual(wrongSha256(JOBS, deliveries()), []);
		const first = deliveries({ [J2.id]: [delivery(SHA.j1)] });
		assert.deepEqual(wrongSha256(JOBS, first), [J2.id]);
		const later = deliveries({ [J2.id]: [delivery(SHA.j2), delivery(`${SHA.j2.slice(0, -1)}1`)] });
		assert.deepEqual(wrongSha256(JOBS, later), [J2.id]);
	});

	test('a delivery of a job that did not succeed, or is not the soak’s, is of an unknown job', () => {
		const failed = again(J1, 'job_failed', 'failed');
		const sink = deliveries({ [failed.id]: [delivery(SHA.j1)], job_stranger: [delivery(SHA.j2)] });
		assert.deepEqual(unknownDeliveries([...JOBS, failed].filter(succeeded), sink), [
			failed.id,
			'job_stranger',
		]);
		assert.deepEqual(unknownDeliveries(JOBS, deliveries()), []);
	});
});

const succeeded = (j) => j.state === 'succeeded';
const CLEAN = { drained: true, drainMinutes: 5, violations: [], leftRunning: [], t0: T0 };

describe('the checks together, and the problems they make', () => {
	test('the recorded run passes every check', () => {
		const o = checkOutcomes({ jobs: JOBS, ledger: LEDGER, deliveries: deliveries() });
		assert.equal(o.byIntent.size, 3);
		for (const k of ['duplicates', 'chargedTwice', 'doubleReserve', 'lost', 'twice', 'badSha'])
			assert.deepEqual(o[k], [], k);
		assert.deepEqual(o.strangers, []);
		assert.equal(o.ledgerInvariant, true);
		assert.deepEqual(soakProblems({ ...CLEAN, outcomes: o }), []);
	});

	test('each broken rule is one problem line, in a fixed order', () => {
		const dup = again(J1, 'job_dup', 'succeeded', SHA.j1);
		const jobs = [...JOBS, dup];
		const ledger = {
			entries: [...ENTRIES, entry('reserve', dup.id, 8), entry('settle', dup.id, 7)],
			invariantHolds: false,
		};
		const sink = deliveries({
			[J2.id]: [delivery(SHA.j2), delivery(SHA.j1)],
			[dup.id]: [delivery(SHA.j1)],
			job_stranger: [delivery(SHA.j3)],
		});
		sink.delete(J3.id);
		const outcomes = checkOutcomes({ jobs, ledger, deliveries: sink });
		const violation = {
			kind: 'retry_after_key',
			method: 'GET',
			path: `/v1/jobs/${J1.id}`,
			at: T0 + 12_300,
			process: 'worker1 (pid 101)',
			detail: 'sent 1.2 s before the end of its Retry-After',
		};
		const running = { id: '42', workflowId: 'gsSoakReplace', status: 'running' };
		const problems = soakProblems({
			...{ drained: false, drainMinutes: 5, outcomes, t0: T0 },
			...{ violations: [violation], leftRunning: [running] },
		});
		const intent = JSON.stringify([{ prompt: intentOf(J1.input), jobs: [J1.id, dup.id] }]);
		assert.deepEqual(problems, [
			'not drained after 5 min',
			`duplicate jobs: ${intent}`,
			`intents charged twice: ${intent}`,
			`outputs lost (never delivered): ${J3.id}`,
			`outputs delivered twice: ${J2.id}`,
			`outputs with a wrong sha256: ${J2.id}`,
			'deliveries of unknown jobs: job_stranger',
			'the ledger invariant does not hold',
			`1 referee violation(s): retry_after_key GET /v1/jobs/${J1.id} (by worker1 (pid 101) at 12.3 s) sent 1.2 s before the end of its Retry-After`,
			'executions left running: 42 (gsSoakReplace, running)',
		]);
	});

	test('a failed attempt (reserved, released) is not a charge; a delivery of it is of an unknown job', () => {
		const failed = again(J1, 'job_failed', 'failed');
		const ledger = {
			...LEDGER,
			entries: [...ENTRIES, entry('reserve', failed.id, 8), entry('release', failed.id, 8)],
		};
		const sink = deliveries({ [failed.id]: [delivery(SHA.j1)] });
		const outcomes = checkOutcomes({ jobs: [...JOBS, failed], ledger, deliveries: sink });
		assert.deepEqual(outcomes.chargedTwice, []);
		assert.deepEqual(outcomes.duplicates, []);
		assert.deepEqual(outcomes.strangers, [failed.id]);
		assert.deepEqual(soakProblems({ ...CLEAN, outcomes }), [
			`deliveries of unknown jobs: ${failed.id}`,
		]);
	});

	test('a job reserved ≠ once is its own line', () => {
		const ledger = { ...LEDGER, entries: [...ENTRIES, entry('reserve', J1.id, 8)] };
		const outcomes = checkOutcomes({ jobs: JOBS, ledger, deliveries: deliveries() });
		assert.deepEqual(soakProblems({ ...CLEAN, outcomes }), [`jobs reserved ≠ once: ${J1.id}`]);
	});

	test('the ledger invariant alone fails the soak', () => {
		const ledger = { ...LEDGER, invariantHolds: false };
		const outcomes = checkOutcomes({ jobs: JOBS, ledger, deliveries: deliveries() });
		assert.deepEqual(soakProblems({ ...CLEAN, outcomes }), ['the ledger invariant does not hold']);
	});
});
