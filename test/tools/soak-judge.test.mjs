// The chaos soak's judge (tools/lib/soak/judge.mjs) on small hand-built records, as its watchers collect
// them during a soak (scripts/soak.mjs): which early requests are collisions of processes sharing a limit
// (reported) and which are violations (failing the soak).
//
//   node --import tsx --test test/tools/*.test.mjs        (npm run test:tools)
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import {
	countCollisionKinds,
	describeCollisions,
	describeViolation,
	holdsOf,
	ipLimitedByRole,
	judgeExecutions,
	judgeViolations,
	journalFact,
	ownerNeededAtArrival,
	ownerNeededInJournal,
	processName,
	reportedCollisions,
	UNKNOWN,
	violationsProblem,
} from '../../tools/lib/soak/judge.mjs';

const T0 = 1_800_000_000_000; // a multiple of the 10 s rate window
const KEY_A = 'key_a';
const KEY_B = 'key_b';
const RULES = { sharedKeyId: KEY_A, rateWindowMs: 10_000, graceMs: 500, minPollIntervalMs: 5000 };
const W1 = processName({ name: 'worker1', pid: 101 });
const W2 = processName({ name: 'worker2', pid: 102 });
const MAIN = processName({ name: 'main', pid: 100 });
const keyLabel = (id) => (id === KEY_A ? 'A' : id === KEY_B ? 'B' : id);

/** A journal record as the soak keeps it: the entry's fields and the process behind it. */
function entry(requestId, at, process, fields = {}) {
	const e = {
		requestId,
		at,
		keyId: KEY_A,
		status: 200,
		errorCode: null,
		retryAfter: null,
		violations: [],
		jobListLook: false,
		unfinishedListed: null,
		...fields,
	};
	return journalFact(e, process);
}
/** A 429 telling `process` to wait `seconds` (scope: the key, or the IP). */
const told = (requestId, at, process, seconds, { ip = false, keyId = KEY_A } = {}) =>
	entry(requestId, at, process, {
		keyId,
		status: 429,
		errorCode: ip ? 'ip_rate_limited' : 'rate_limited',
		retryAfter: seconds,
	});
/** A first page of the key's job list, answered with `unfinished` unfinished jobs. */
const look = (requestId, at, process, unfinished = 2, keyId = KEY_A) =>
	entry(requestId, at, process, { keyId, jobListLook: true, unfinishedListed: unfinished });
/** A violation as the referee records it. */
const violation = (requestId, at, kind, keyId = KEY_A) => ({
	at,
	requestId,
	kind,
	method: 'GET',
	path: kind === 'list_poll_too_soon' ? '/v1/jobs' : '/v1/jobs/job_1',
	keyId,
	detail: `the referee's ${kind}`,
});
const judge = (violations, { arrivals = [], entries = [] }) =>
	judgeViolations(violations, { arrivals, entries }, RULES);

describe('early arrivals (retry_after_key, retry_after_ip)', () => {
	test('a request into a Retry-After window another process was told is a collision', () => {
		const entries = [
			told('r1', T0 + 1000, W1, 3),
			entry('r2', T0 + 2000, W2, { violations: ['retry_after_key'] }),
		];
		const r = judge([violation('r2', T0 + 2000, 'retry_after_key')], { entries });
		assert.deepEqual(r.violations, []);
		assert.deepEqual(r.collisions, [
			{
				kind: 'retry_after_key',
				keyId: KEY_A,
				at: T0 + 2000,
				detail: { process: W2, toldProcess: W1, afterMs: 1000, earlyMs: 2000 },
			},
		]);
	});

	test('the same process early into the wait it was told is a violation', () => {
		const entries = [
			told('r1', T0 + 1000, W1, 3),
			told('r2', T0 + 1200, W2, 3),
			entry('r3', T0 + 2000, W1, { violations: ['retry_after_key'] }),
		];
		const r = judge([violation('r3', T0 + 2000, 'retry_after_key')], { entries });
		assert.deepEqual(r.collisions, []);
		assert.equal(r.violations.length, 1);
		assert.equal(r.violations[0].process, W1);
	});

	test('a wait another process was told less than the in-flight grace before, or over, is no collision', () => {
		const entries = [
			told('r1', T0 + 1000, W1, 3),
			entry('r2', T0 + 1400, W2, { violations: ['retry_after_key'] }), // 0.4 s after: in flight
			entry('r3', T0 + 4000, W2, { violations: ['retry_after_key'] }), // the wait is over
		];
		const r = judge(
			[
				violation('r2', T0 + 1400, 'retry_after_key'),
				violation('r3', T0 + 4000, 'retry_after_key'),
			],
			{ entries },
		);
		assert.deepEqual(r.collisions, []);
		assert.equal(r.violations.length, 2);
	});

	test("the IP's wait told to another process is a collision; another scope's is not", () => {
		const entries = [
			told('r1', T0 + 1000, MAIN, 4, { ip: true }),
			told('r2', T0 + 1000, W1, 4, { keyId: KEY_B }),
			entry('r3', T0 + 3000, W2, { violations: ['retry_after_ip'] }),
			entry('r4', T0 + 3000, W2, { violations: ['retry_after_key'] }),
		];
		const r = judge(
			[violation('r3', T0 + 3000, 'retry_after_ip'), violation('r4', T0 + 3000, 'retry_after_key')],
			{ entries },
		);
		assert.deepEqual(
			r.collisions.map((c) => [c.kind, c.detail.toldProcess]),
			[['retry_after_ip', MAIN]],
		);
		assert.deepEqual(
			r.violations.map((v) => v.kind),
			['retry_after_key'],
		);
	});
});

describe('used-up windows (exhausted_window)', () => {
	const arrival = (requestId, at, process, keyId = KEY_A) => ({ requestId, at, keyId, process });

	test("a request into the shared key's window another process's requests counted in is a collision", () => {
		const arrivals = [
			arrival('a1', T0 + 100, W1),
			arrival('a2', T0 + 200, W2),
			arrival('a3', T0 + 300, W1),
		];
		const entries = [entry('a3', T0 + 300, W1, { violations: ['exhausted_window'] })];
		const r = judge([violation('a3', T0 + 300, 'exhausted_window')], { arrivals, entries });
		assert.deepEqual(r.violations, []);
		assert.deepEqual(r.collisions[0].detail, { process: W1, sharedWith: [W2] });
	});

	test('a window the process used up alone (others only in the window before, or unknown) is a violation', () => {
		const arrivals = [
			arrival('a1', T0 - 500, W2), // the window before
			arrival('a2', T0 + 100, UNKNOWN),
			arrival('a3', T0 + 200, W1),
			arrival('a4', T0 + 300, W1),
			arrival('a5', T0 + 900, W2), // after the early request
		];
		const entries = [entry('a4', T0 + 300, W1, { violations: ['exhausted_window'] })];
		const r = judge([violation('a4', T0 + 300, 'exhausted_window')], { arrivals, entries });
		assert.deepEqual(r.collisions, []);
		assert.equal(r.violations.length, 1);
	});

	test('a used-up window of another key than the shared one is a violation', () => {
		// worker2 used that window of key B and of the shared key A too
		const arrivals = [
			arrival('b1', T0 + 100, W2, KEY_B),
			arrival('a1', T0 + 150, W2),
			arrival('b2', T0 + 200, W1, KEY_B),
		];
		const entries = [entry('b2', T0 + 200, W1, { keyId: KEY_B, violations: ['exhausted_window'] })];
		const r = judge([violation('b2', T0 + 200, 'exhausted_window', KEY_B)], { arrivals, entries });
		assert.deepEqual(r.collisions, []);
		assert.equal(r.violations.length, 1);
	});
});

describe('a process is its name and pid', () => {
	// worker1 SIGKILLed (pid 101) and started again (pid 201)
	const W1_AGAIN = processName({ name: 'worker1', pid: 201 });

	test('a restarted worker is a new process', () => {
		assert.equal(W1_AGAIN, 'worker1 (pid 201)');
		assert.notEqual(W1_AGAIN, W1);
	});

	test("a restarted worker early into the killed one's wait is a collision: it was not told", () => {
		const entries = [
			told('r1', T0 + 1000, W1, 5),
			entry('r2', T0 + 3000, W1_AGAIN, { violations: ['retry_after_key'] }),
		];
		const r = judge([violation('r2', T0 + 3000, 'retry_after_key')], { entries });
		assert.deepEqual(r.violations, []);
		assert.deepEqual(r.collisions[0].detail, {
			process: W1_AGAIN,
			toldProcess: W1,
			afterMs: 2000,
			earlyMs: 3000,
		});
	});

	test("a restarted worker's list looks are not judged with the killed one's", () => {
		// the killed worker looked 6 times in 1 s; the new one looks once, 1 s later: the key's budget
		// is spent, but its own first look is not judged (it had the whole burst)
		const entries = [0, 200, 400, 600, 800, 1000].map((ms, i) => look(`l${i}`, T0 + ms, W1));
		entries.push(look('l6', T0 + 2000, W1_AGAIN));
		const r = judge([violation('l6', T0 + 2000, 'list_poll_too_soon')], { entries });
		assert.deepEqual(r.violations, []);
		assert.deepEqual(r.collisions[0].detail, {
			process: W1_AGAIN,
			ownCredit: 6,
			sharedWith: [W1],
		});
	});
});

describe('first pages of a shared job list (list_poll_too_soon)', () => {
	test("a look within its process's own budget, the key's spent with another process, is a collision", () => {
		// worker1 looks every 10 s; worker2 looks 8 times meanwhile
		const entries = [look('w1a', T0, W1), look('w1b', T0 + 10_000, W1)];
		for (let i = 0; i < 8; i++) entries.push(look(`w2${i}`, T0 + 12_000 + i * 500, W2));
		entries.push(look('w1c', T0 + 20_000, W1));
		const r = judge([violation('w1c', T0 + 20_000, 'list_poll_too_soon')], { entries });
		assert.deepEqual(r.violations, []);
		assert.deepEqual(r.collisions, [
			{
				kind: 'list_poll_too_soon',
				keyId: KEY_A,
				at: T0 + 20_000,
				detail: { process: W1, ownCredit: 6, sharedWith: [W2] },
			},
		]);
	});

	test('a look too soon by its own process alone is a violation, though another process looked too', () => {
		// worker1: 7 looks 100 ms apart (its 7th found less than one look left), worker2 one look
		const entries = [look('w2', T0 + 50, W2)];
		for (let i = 0; i < 7; i++) entries.push(look(`w1${i}`, T0 + i * 100, W1));
		const r = judge([violation('w16', T0 + 600, 'list_poll_too_soon')], { entries });
		assert.deepEqual(r.collisions, []);
		assert.equal(r.violations.length, 1);
		assert.equal(r.violations[0].ownLook.tooSoon, true);
		assert.match(describeViolation(r.violations[0], T0), /its own looks judged alone: too soon/);
	});

	test('a look within its own budget when no other process looked at that list is a violation', () => {
		const entries = [
			look('w1a', T0, W1),
			look('w1b', T0 + 10_000, W1),
			look('w2a', T0 + 10_000, W2, 2, KEY_B), // another key's list
			look('w2b', T0 - 31_000, W2), // before the budget's refill time (6 × 5 s)
		];
		const r = judge([violation('w1b', T0 + 10_000, 'list_poll_too_soon')], { entries });
		assert.deepEqual(r.collisions, []);
		assert.equal(r.violations[0].ownLook.tooSoon, false);
	});
});

describe('an unknown process', () => {
	test('is a violation, whatever another process was told or used', () => {
		const arrivals = [
			{ requestId: 'a1', at: T0 + 100, keyId: KEY_A, process: W2 },
			{ requestId: 'e2', at: T0 + 2100, keyId: KEY_A, process: UNKNOWN },
		];
		const entries = [
			told('r1', T0 + 1000, W1, 3),
			entry('e1', T0 + 2000, UNKNOWN, { violations: ['retry_after_key'] }),
			entry('e2', T0 + 2100, UNKNOWN, { violations: ['exhausted_window'] }),
			look('l1', T0 + 2200, W2),
			look('l2', T0 + 2300, UNKNOWN),
		];
		const r = judge(
			[
				violation('e1', T0 + 2000, 'retry_after_key'),
				violation('e2', T0 + 2100, 'exhausted_window'),
				violation('l2', T0 + 2300, 'list_poll_too_soon'),
				violation('gone', T0 + 2400, 'retry_after_key'), // no journal record at all
			],
			{ arrivals, entries },
		);
		assert.deepEqual(r.collisions, []);
		assert.deepEqual(
			r.violations.map((v) => v.process),
			[UNKNOWN, UNKNOWN, UNKNOWN, UNKNOWN],
		);
	});
});

describe('reads of a job too soon after another answer naming it (poll_too_soon)', () => {
	/** A read of job_1 (or a creation, `post`) as its arrival was recorded. */
	const read = (requestId, at, process, { post = false } = {}) => ({
		requestId,
		at,
		keyId: KEY_A,
		jobRead: post ? null : 'job_1',
		process,
	});
	/** The referee's poll_too_soon, naming the answer it came too soon after. */
	const tooSoon = (requestId, at, earlier) => ({
		...violation(requestId, at, 'poll_too_soon'),
		detail: `job job_1 read again 4.758 s after the previous successful read (minimum 5 s; that answer: ${earlier}, GET /v1/jobs/job_1)`,
	});

	test("a read after another process's answer, its own last read 5 s or more before, is a collision", () => {
		// worker1 follows job_1 every 5 s; the trigger on the main reads it once, 4.758 s after worker1
		const arrivals = [
			read('req_w1a', T0, W1),
			read('req_w1b', T0 + 5200, W1),
			read('req_main', T0 + 9958, MAIN),
		];
		const r = judge([tooSoon('req_main', T0 + 9958, 'req_w1b')], { arrivals });
		assert.deepEqual(r.violations, []);
		assert.deepEqual(r.collisions, [
			{
				kind: 'poll_too_soon',
				keyId: KEY_A,
				at: T0 + 9958,
				detail: { process: MAIN, sharedWith: [W1], ownGapMs: null },
			},
		]);
		const report = {
			collisions: reportedCollisions(r.collisions, keyLabel),
			sharedKeyCollisions: {},
		};
		assert.match(
			describeCollisions(report),
			/main \(pid 100\) read a job for the first time, soon after worker1/,
		);
	});

	test('a read too soon after its own last read is a violation, though another process read it too', () => {
		const arrivals = [
			read('req_w1a', T0, W1),
			read('req_main', T0 + 2000, MAIN),
			read('req_w1b', T0 + 4000, W1),
		];
		const r = judge([tooSoon('req_w1b', T0 + 4000, 'req_main')], { arrivals });
		assert.deepEqual(r.collisions, []);
		assert.equal(r.violations.length, 1);
		assert.equal(r.violations[0].earlier.process, MAIN);
		assert.match(describeViolation(r.violations[0], T0), /\[that answer by main \(pid 100\)\]/);
	});

	test("a read too soon after the process's own answer (its creation) is a violation", () => {
		const arrivals = [read('req_post', T0, W1, { post: true }), read('req_w1', T0 + 4000, W1)];
		const r = judge([tooSoon('req_w1', T0 + 4000, 'req_post')], { arrivals });
		assert.deepEqual(r.collisions, []);
		assert.equal(r.violations.length, 1);
	});

	test('an earlier answer or a reader not known is a violation', () => {
		const arrivals = [read('req_w1', T0, W1), read('req_x', T0 + 4000, UNKNOWN)];
		const r = judge(
			[
				tooSoon('req_x', T0 + 4000, 'req_w1'), // the reader unknown
				tooSoon('req_main', T0 + 4100, 'req_gone'), // the earlier answer not recorded
			],
			{ arrivals: [...arrivals, read('req_main', T0 + 4100, MAIN)] },
		);
		assert.deepEqual(r.collisions, []);
		assert.equal(r.violations.length, 2);
	});

	test('the soak looks up the process of every read and creation of a job as it arrives', () => {
		const notice = (method, path) => ({ method, path, keyId: KEY_B, violations: [] });
		assert.equal(ownerNeededAtArrival(notice('GET', '/v1/jobs/job_1'), KEY_A), true);
		assert.equal(ownerNeededAtArrival(notice('POST', '/v1/jobs'), KEY_A), true);
		assert.equal(ownerNeededAtArrival(notice('GET', '/v1/jobs/job_1/output'), KEY_A), false);
		assert.equal(ownerNeededAtArrival(notice('POST', '/v1/jobs/quote'), KEY_A), false);
	});
});

describe('other kinds of violation', () => {
	test('are violations whoever sent them, whatever another process was told', () => {
		const entries = [
			told('r0', T0 - 1000, W2, 5),
			entry('p1', T0, W1, { violations: ['idempotency_key_changed'] }),
		];
		const r = judge([violation('p1', T0, 'idempotency_key_changed')], { entries });
		assert.deepEqual(r.collisions, []);
		assert.equal(r.violations.length, 1);
	});
});

describe("executions lost with Redis's queue", () => {
	const restart = Date.parse('2026-11-26T10:00:00Z');
	const at = (s) => new Date(restart + s * 1000).toISOString();
	const executions = [
		{ id: '1', workflowId: 'wf', status: 'new', createdAt: at(-5) }, // enqueued before, never started
		{ id: '2', workflowId: 'wf', status: 'new', createdAt: at(5) }, // enqueued after the restart
		{ id: '3', workflowId: 'wf', status: 'new', createdAt: at(-5) }, // a worker started it
		{ id: '4', workflowId: 'wf', status: 'running', createdAt: at(-5) },
		{ id: '5', workflowId: 'wf', status: 'success', createdAt: at(-5) },
	];
	const byWorker = { 3: 'worker1', 4: 'worker2', 5: 'worker1' };

	test('an execution the main enqueued that no worker started across a Redis restart is lost with the queue', () => {
		const r = judgeExecutions(executions, { byWorker, redisRestartedAt: [restart] });
		assert.deepEqual(
			r.lostWithQueue.map((e) => e.id),
			['1'],
		);
		assert.deepEqual(
			r.leftRunning.map((e) => e.id),
			['2', '3', '4'],
		);
	});

	test('without a Redis restart, an execution never started is left running', () => {
		const r = judgeExecutions(executions, { byWorker, redisRestartedAt: [] });
		assert.deepEqual(r.lostWithQueue, []);
		assert.deepEqual(
			r.leftRunning.map((e) => e.id),
			['1', '2', '3', '4'],
		);
	});
});

describe('what the soak records and reports', () => {
	test('the watchers look up the process of judged, shared-key, list-look and job-naming requests only', () => {
		const notice = { violations: [], keyId: KEY_B, jobListLook: false };
		assert.equal(ownerNeededAtArrival(notice, KEY_A), false);
		assert.equal(ownerNeededAtArrival({ ...notice, keyId: KEY_A }, KEY_A), true);
		assert.equal(ownerNeededAtArrival({ ...notice, violations: ['retry_after_ip'] }, KEY_A), true);
		assert.equal(ownerNeededAtArrival({ ...notice, jobListLook: true }, KEY_A), true);
		assert.equal(ownerNeededAtArrival({ ...notice, keyId: null, jobListLook: true }, KEY_A), false);
		const plain = entry('x', T0, W1, { keyId: KEY_B });
		assert.equal(ownerNeededInJournal(plain), false);
		assert.equal(ownerNeededInJournal(told('y', T0, W1, 2, { ip: true })), true);
		assert.equal(ownerNeededInJournal({ ...plain, status: 429, errorCode: 'rate_limited' }), false);
		assert.equal(ownerNeededInJournal({ ...plain, violations: ['exhausted_window'] }), true);
		assert.equal(ownerNeededInJournal({ ...plain, violations: ['poll_too_soon'] }), true);
		assert.equal(ownerNeededInJournal({ ...plain, violations: ['idempotency_key_changed'] }), false);
	});

	test('waits told and 429 ip_rate_limited answers per role', () => {
		const entries = [
			told('r1', T0, W1, 2, { ip: true }),
			told('r2', T0, processName({ name: 'worker1', pid: 201 }), 3, { ip: true }),
			told('r3', T0, MAIN, 1),
		];
		assert.deepEqual(holdsOf(entries), [
			{ scope: 'ip', at: T0, end: T0 + 2000, process: W1 },
			{ scope: 'ip', at: T0, end: T0 + 3000, process: 'worker1 (pid 201)' },
			{ scope: KEY_A, at: T0, end: T0 + 1000, process: MAIN },
		]);
		assert.deepEqual(ipLimitedByRole(entries), { worker1: 2 });
	});

	test('violations and collisions are described as in the report', () => {
		const entries = [
			told('r1', T0 + 1000, W1, 3),
			entry('r2', T0 + 2000, W2, { violations: ['retry_after_key'] }),
			entry('r3', T0 + 2500, W1, { violations: ['retry_after_key'] }),
		];
		const r = judge(
			[
				violation('r2', T0 + 2000, 'retry_after_key'),
				violation('r3', T0 + 2500, 'retry_after_key'),
			],
			{ entries },
		);
		assert.equal(
			violationsProblem(r.violations, T0),
			"1 referee violation(s): retry_after_key GET /v1/jobs/job_1 (by worker1 (pid 101) at 2.5 s) the referee's retry_after_key",
		);
		const report = {
			collisions: reportedCollisions(r.collisions, keyLabel),
			sharedKeyCollisions: countCollisionKinds(r.collisions, (id) => (id === KEY_A ? 'A' : id)),
		};
		assert.deepEqual(report.sharedKeyCollisions, { 'retry_after_key (key A)': 1 });
		assert.equal(
			describeCollisions(report),
			'1 collision(s) of processes sharing a limit (not told themselves; list looks within their own budget): {"retry_after_key (key A)":1}: retry_after_key key A: worker2 (pid 102) 1.00 s after worker1 (pid 101) was told to wait, 2.00 s before that wait ended',
		);
		assert.equal(describeCollisions({ collisions: [] }), '');
	});
});
