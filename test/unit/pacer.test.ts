/**
 * The pacer (one per API key and base URL in the process) through n8n-core's real contexts and HTTP
 * helpers, against nock on the virtual clock: what it lets leave, and when. Times are virtual ms.
 */
import nock from 'nock';
import type { IExecuteFunctions } from 'n8n-workflow';
import { sleep } from 'n8n-workflow';

import { apiRequest } from '../../nodes/shared/service/client';
import { PACING, pacerFor, processPacing } from '../../nodes/shared/service/pacing';
import { resolveService } from '../../nodes/shared/service/service';
import { TEST_KEY, runNode } from '../helpers/n8n';
import { useNock } from '../helpers/nock';
import { probeNode } from '../helpers/probe-node';
import { testClock } from '../helpers/serviceClock';

const BASE = 'https://api.gen.test/v1';
const OTHER_KEY = `svc_sk_key_${'0a1b2c3d'.repeat(4)}.${'feedbead'.repeat(8)}`;
const ok = (data: unknown): Record<string, unknown> => ({ data });
const errorBody = (code: string) => ({
	error: { code, message: 'mensagem' },
	requestId: 'req_429',
});

const mocked = useNock();
const now = () => mocked.clock.state.now;

function rate(remaining: number, resetSeconds: number, limit = 10) {
	return {
		'X-RateLimit-Limit': String(limit),
		'X-RateLimit-Remaining': String(remaining),
		'X-RateLimit-Reset': String(resetSeconds),
	};
}

/** Seconds (Unix) of the end of the window that holds `ms`, for windows of `windowMs`. */
const windowEnd = (ms: number, windowMs = 60_000) =>
	(Math.floor(ms / windowMs) + 1) * (windowMs / 1000);

async function call(
	fn: (this: IExecuteFunctions) => Promise<unknown>,
	apiKey = TEST_KEY,
	baseUrl = BASE,
	credentialDelaysMs?: number[],
): Promise<unknown> {
	const [[item]] = await runNode({
		node: probeNode(fn),
		parameters: {},
		credentials: { apiKey, baseUrl },
		credentialDelaysMs,
	});
	return item.json;
}

async function callError(fn: (this: IExecuteFunctions) => Promise<unknown>, apiKey = TEST_KEY) {
	return await call(fn, apiKey).then(
		() => {
			throw new Error('expected a failure');
		},
		(error: Error & { context: Record<string, unknown>; description?: string }) => error,
	);
}

/**
 * Waits on the virtual clock, `stepMs` at a time, until `cond` holds; fails with `what` instead of
 * hanging jest once `maxVirtualMs` have passed without it.
 */
async function until(
	cond: () => boolean,
	what: string,
	maxVirtualMs = 10_000,
	stepMs = 20,
): Promise<void> {
	const start = now();
	while (!cond()) {
		if (now() - start > maxVirtualMs) {
			throw new Error(`Still waiting after ${maxVirtualMs} virtual ms for: ${what}`);
		}
		await testClock.sleep(stepMs);
	}
}

/** A GET that accepts holds of up to 2 minutes (the windows below last up to that). */
const get = (path: string) =>
	async function (this: IExecuteFunctions) {
		return await apiRequest(this, { method: 'GET', path, maxWaitSeconds: 120 });
	};
const getIn = (ctx: IExecuteFunctions, path: string) =>
	apiRequest(ctx, { method: 'GET', path, maxWaitSeconds: 120 });

/** Records the virtual time of every request nock answers on `path`, and answers with `reply`. */
function answer(
	path: string,
	times: number,
	reply: (n: number) => [number, unknown, Record<string, string>?],
	arrivals: number[] = [],
) {
	let n = 0;
	nock(BASE)
		.get(path)
		.times(times)
		.reply(() => {
			arrivals.push(now());
			return reply(n++);
		});
	return arrivals;
}

describe('Retry-After holds the whole key', () => {
	it('a request of another item waits the Retry-After another item received', async () => {
		const retryAfter = 3;
		let told = 0;
		const arrivals: number[] = [];
		nock(BASE)
			.get('/jobs/a')
			.reply(() => {
				told = now();
				return [429, errorBody('rate_limited'), { 'Retry-After': String(retryAfter) }];
			})
			.get('/jobs/a')
			.reply(() => {
				arrivals.push(now());
				return [200, ok({ id: 'a' })];
			})
			.get('/jobs/b')
			.reply(() => {
				arrivals.push(now());
				return [200, ok({ id: 'b' })];
			});
		await call(async function () {
			const first = getIn(this, '/jobs/a');
			// the other item asks once the 429 is known to the node
			await until(
				() => [...processPacing.pacers.values()].some((p) => p.heldUntil() > now()),
				'the 429 of /jobs/a to hold the key',
				10_000,
				50,
			);
			const second = getIn(this, '/jobs/b');
			return { both: await Promise.all([first, second]) };
		});
		expect(arrivals).toHaveLength(2);
		// 1 s past the Retry-After: another process told earlier may hold a whole second that ends later
		for (const at of arrivals) {
			expect(at - told).toBeGreaterThanOrEqual(retryAfter * 1000 + PACING.holdMarginMs);
		}
		expect(PACING.holdMarginMs).toBeGreaterThanOrEqual(1000);
	});

	it('a request already let go waits too when the 429 comes while n8n is still sending it (a slow send)', async () => {
		// n8n's helper reads the credential (a database read, a decryption) after the pacer let the request
		// go: under load that took 30-50 ms, and a 429 answered to another request meanwhile holds the key.
		const retryAfter = 2;
		let told = 0;
		const reset = windowEnd(now());
		const arrivals: Record<string, number[]> = { a: [], b: [] };
		nock(BASE)
			.get('/balance')
			.reply(200, ok({}), rate(9, reset))
			.get('/jobs/a')
			.reply(() => {
				told = now();
				arrivals.a.push(now());
				return [429, errorBody('rate_limited'), { 'Retry-After': String(retryAfter) }];
			})
			.get('/jobs/b')
			.reply(() => {
				arrivals.b.push(now());
				return [200, ok({ id: 'b' }), rate(7, reset)];
			})
			.get('/jobs/a')
			.reply(() => {
				arrivals.a.push(now());
				return [200, ok({ id: 'a' }), rate(6, reset)];
			});
		await call(
			async function () {
				await getIn(this, '/balance'); // the window is known: both may leave at once
				return await Promise.all([getIn(this, '/jobs/a'), getIn(this, '/jobs/b')]);
			},
			TEST_KEY,
			BASE,
			// the node run's first read of the credential, /balance, /jobs/a at once; /jobs/b takes 50 ms
			[0, 0, 0, 50],
		);
		expect(arrivals.b).toHaveLength(1);
		expect(arrivals.b[0] - told).toBeGreaterThanOrEqual(retryAfter * 1000 + PACING.holdMarginMs);
	});

	it('the margin past a Retry-After is not judged against Max Rate-Limit Wait', async () => {
		let told = 0;
		const arrivals: number[] = [];
		nock(BASE)
			.get('/balance')
			.reply(() => {
				told = now();
				return [429, errorBody('rate_limited'), { 'Retry-After': '60' }];
			})
			.get('/balance')
			.reply(() => {
				arrivals.push(now());
				return [200, ok({})];
			});
		await call(async function () {
			return await apiRequest(this, { method: 'GET', path: '/balance', maxWaitSeconds: 60 });
		});
		expect(arrivals[0] - told).toBeGreaterThanOrEqual(60_000 + PACING.holdMarginMs);
	});

	it('ip_rate_limited holds every key of that base URL, not other services', async () => {
		let told = 0;
		const otherKeyAt: number[] = [];
		nock(BASE)
			.get('/me')
			.reply(() => {
				told = now();
				return [429, errorBody('ip_rate_limited'), { 'Retry-After': '30' }];
			})
			.get('/me')
			.times(2)
			.reply(function () {
				if (this.req.headers.authorization === `Bearer ${OTHER_KEY}`) otherKeyAt.push(now());
				return [200, ok({})];
			});
		const elsewhere: number[] = [];
		nock('https://other.gen.test')
			.get('/v1/me')
			.reply(() => {
				elsewhere.push(now());
				return [200, ok({})];
			});
		const first = call(get('/me'));
		await until(
			() => processPacing.ipBlocks.size > 0,
			'the 429 ip_rate_limited to hold the base URL',
		);
		await Promise.all([
			first,
			call(get('/me'), OTHER_KEY),
			call(get('/me'), OTHER_KEY, 'https://other.gen.test/v1'),
		]);
		expect(otherKeyAt).toHaveLength(1);
		expect(otherKeyAt[0] - told).toBeGreaterThanOrEqual(30_000 + PACING.holdMarginMs);
		expect(elsewhere[0] - told).toBeLessThan(15_000);
	});

	/**
	 * A reply that the service holds `ms` of virtual time before giving it (time moves meanwhile, as for
	 * the emulator's delay faults), so a request sent first can be answered after one sent later.
	 */
	const heldFor =
		(ms: number, answer: () => nock.ReplyFnResult, arrived: () => void) =>
		(
			_uri: string,
			_body: nock.Body,
			callback: (error: null, reply: nock.ReplyFnResult) => void,
		) => {
			arrived();
			void testClock.serviceHold(ms).then(() => callback(null, answer()));
		};

	/**
	 * The 2 s hold was told after the 30 s one and would end well before it; every later request (one each
	 * in `arrivals`) still left only once the 30 s hold (and its margin) was over, and soon after.
	 */
	const expectHeldToTheLonger = (told: number, toldShort: number, arrivals: number[][]) => {
		expect(toldShort).toBeGreaterThan(told);
		expect(toldShort + 2_000 + PACING.holdMarginMs).toBeLessThan(told + 30_000);
		const holdEnd = told + 30_000 + PACING.holdMarginMs;
		for (const times of arrivals) {
			expect(times).toHaveLength(1);
			expect(times[0]).toBeGreaterThanOrEqual(holdEnd);
			expect(times[0]).toBeLessThan(holdEnd + PACING.maxSleepMs);
		}
	};

	it('a shorter Retry-After told later never shortens the key hold in force', async () => {
		// /jobs/b leaves first and is answered last: its 429 (2 s) comes about 1 s after /jobs/a's (30 s)
		let told = 0;
		let toldShort = 0;
		let bSent = false;
		const reset = windowEnd(now()) + 60; // a window that outlasts the hold: it gates nothing
		const later: Record<string, number[]> = { a: [], b: [], c: [] };
		nock(BASE)
			.get('/balance')
			.reply(200, ok({}), rate(9, reset))
			.get('/jobs/b')
			.reply(
				heldFor(
					1000,
					() => {
						toldShort = now();
						return [429, errorBody('rate_limited'), { 'Retry-After': '2', ...rate(7, reset) }];
					},
					() => (bSent = true),
				),
			)
			.get('/jobs/a')
			.reply(() => {
				told = now();
				return [429, errorBody('rate_limited'), { 'Retry-After': '30', ...rate(7, reset) }];
			});
		for (const path of ['a', 'b', 'c']) {
			nock(BASE)
				.get(`/jobs/${path}`)
				.reply(() => {
					later[path].push(now());
					return [200, ok({ id: path }), rate(6, reset)];
				});
		}
		await call(async function () {
			await getIn(this, '/balance'); // the window is known: requests may leave together
			const b = getIn(this, '/jobs/b');
			await until(() => bSent, '/jobs/b to reach the service');
			const a = getIn(this, '/jobs/a');
			// another item asks once both 429s were told
			await until(() => told > 0 && now() >= told + 1000, 'both 429s', 10_000, 50);
			const c = getIn(this, '/jobs/c');
			return { all: await Promise.all([a, b, c]) };
		});
		expectHeldToTheLonger(told, toldShort, [later.a, later.b, later.c]);
	});

	it('a shorter ip_rate_limited Retry-After told later, for another key, never shortens the hold of the base URL', async () => {
		// OTHER_KEY's /me leaves first and is answered last: its 429 (2 s) comes after TEST_KEY's (30 s)
		let told = 0;
		let toldShort = 0;
		let otherSent = false;
		const later: Record<string, number[]> = { [TEST_KEY]: [], [OTHER_KEY]: [] };
		const bearer = (key: string) => `Bearer ${key}`;
		nock(BASE)
			.get('/me')
			.matchHeader('authorization', bearer(OTHER_KEY))
			.reply(
				heldFor(
					1000,
					() => {
						toldShort = now();
						return [429, errorBody('ip_rate_limited'), { 'Retry-After': '2' }];
					},
					() => (otherSent = true),
				),
			)
			.get('/me')
			.matchHeader('authorization', bearer(TEST_KEY))
			.reply(() => {
				told = now();
				return [429, errorBody('ip_rate_limited'), { 'Retry-After': '30' }];
			})
			.get('/me')
			.times(2)
			.reply(function () {
				const key = String(this.req.headers.authorization).replace('Bearer ', '');
				later[key].push(now());
				return [200, ok({})];
			});
		const other = call(get('/me'), OTHER_KEY);
		await until(() => otherSent, "OTHER_KEY's /me to reach the service");
		await Promise.all([call(get('/me')), other]);
		expectHeldToTheLonger(told, toldShort, [later[TEST_KEY], later[OTHER_KEY]]);
	});

	it("a shorter upload_rate_limit Retry-After told later never shortens the uploads' hold", async () => {
		// the upload of file 1 leaves first and is answered last: its 429 (2 s) comes after file 2's (30 s)
		let told = 0;
		let toldShort = 0;
		let firstSent = false;
		const reset = windowEnd(now()) + 60;
		const later: number[] = [];
		const upload = (ctx: IExecuteFunctions, n: number) =>
			apiRequest(ctx, {
				method: 'POST',
				path: '/assets',
				idempotencyKey: ['asset', 'sha256', String(n).repeat(16)].join('.'),
				maxWaitSeconds: 120,
			});
		nock(BASE)
			.get('/balance')
			.reply(200, ok({}), rate(9, reset))
			.post('/assets')
			.reply(
				heldFor(
					1000,
					() => {
						toldShort = now();
						return [429, errorBody('upload_rate_limit'), { 'Retry-After': '2', ...rate(7, reset) }];
					},
					() => (firstSent = true),
				),
			)
			.post('/assets')
			.reply(() => {
				told = now();
				return [429, errorBody('upload_rate_limit'), { 'Retry-After': '30', ...rate(7, reset) }];
			})
			.post('/assets')
			.times(3)
			.reply(() => {
				later.push(now());
				return [201, ok({ asset: {}, replayed: false }), rate(6, reset)];
			});
		await call(async function () {
			await getIn(this, '/balance'); // the window is known: requests may leave together
			const first = upload(this, 1);
			await until(() => firstSent, 'the upload of file 1 to reach the service');
			const second = upload(this, 2);
			// a third upload asks once both 429s were told
			await until(() => told > 0 && now() >= told + 1000, 'both 429s', 10_000, 50);
			return { all: await Promise.all([first, second, upload(this, 3)]) };
		});
		expect(later).toHaveLength(3);
		expectHeldToTheLonger(
			told,
			toldShort,
			later.map((at) => [at]),
		);
	});

	it('fails at once, sending nothing, when the hold is longer than Max Rate-Limit Wait', async () => {
		nock(BASE)
			.post('/assets')
			.reply(429, errorBody('upload_rate_limit'), { 'Retry-After': '3600' });
		const error = await callError(async function () {
			return await apiRequest(this, {
				method: 'POST',
				path: '/assets',
				idempotencyKey: ['asset', 'sha256', '0123456789abcdef'].join('.'),
			});
		});
		expect(error.message).toContain('Upload limit reached (20 uploads per hour per account).');
		expect(error.message).toMatch(/Try again in 3600 s/);
		expect(error.message).toContain('does not wait longer than 60 s');
		expect(error.context.errorCode).toBe('upload_rate_limit');
		expect(error.description).toContain('req_429');
		// a second upload of the run is refused without a request (nock would fail on it)
		const again = await callError(async function () {
			return await apiRequest(this, {
				method: 'POST',
				path: '/assets',
				idempotencyKey: ['asset', 'sha256', 'fedcba9876543210'].join('.'),
			});
		});
		expect(again.context.errorCode).toBe('upload_rate_limit');
		expect(nock.isDone()).toBe(true);
	});
});

describe('the rate window', () => {
	it('waits for X-RateLimit-Reset once Remaining is 0', async () => {
		const reset = windowEnd(now());
		const arrivals = answer('/balance', 2, (n) => [
			200,
			ok({ n }),
			n === 0 ? rate(0, reset) : rate(9, reset + 60),
		]);
		await call(async function () {
			await getIn(this, '/balance');
			return await getIn(this, '/balance');
		});
		expect(arrivals[1]).toBeGreaterThanOrEqual(reset * 1000 + PACING.resetMarginMs);
	});

	/**
	 * /slow is sent first and answered last with `slowView`; /fast, sent second, says the window `reset` is
	 * used up. Returns when /next, sent after both answers, reached the service.
	 */
	async function outOfOrder(reset: number, primeRemaining: number, slowView: [number, number]) {
		const arrivals: number[] = [];
		nock(BASE)
			.get('/prime')
			.reply(200, ok({}), rate(primeRemaining, reset))
			.get('/slow')
			.delay(100)
			.reply(200, ok({}), rate(...slowView))
			.get('/fast')
			.reply(200, ok({}), rate(0, reset))
			.get('/next')
			.reply(() => {
				arrivals.push(now());
				return [200, ok({}), rate(9, reset + 60)];
			});
		await call(async function () {
			await getIn(this, '/prime');
			await Promise.all([getIn(this, '/slow'), getIn(this, '/fast')]);
			return await getIn(this, '/next');
		});
		return arrivals[0];
	}

	it('an older answer arriving late never replaces a fresher view of the window', async () => {
		const reset = windowEnd(now()) + 60; // a window that lasts long enough for the test
		// the late answer has the view the service had when it was sent: 3 left in the same window
		expect(await outOfOrder(reset, 8, [3, reset])).toBeGreaterThanOrEqual(reset * 1000);
	});

	it('an answer about an older window arriving late is ignored', async () => {
		// 45 s into a minute (a past reset would look like 45 s of clock skew)
		testClock.useAuto(Math.floor(now() / 60_000) * 60_000 + 45_000);
		const reset = windowEnd(now());
		// the late answer still describes the previous window, with room left (and a reset long past,
		// which is no sign of clock skew either: the next request leaves right after this window's reset)
		const next = await outOfOrder(reset, 5, [6, reset - 60]);
		expect(next).toBeGreaterThanOrEqual(reset * 1000);
		expect(next).toBeLessThan(reset * 1000 + PACING.resetMarginMs + 10_000);
	});

	it('counts its own requests in flight: the service never gets more than the window has left', async () => {
		const reset = windowEnd(now());
		const limit = 31;
		let left = 30; // what the service has left for the key: the prime was its only request
		let refused = 0;
		nock(BASE)
			.get('/prime')
			.reply(200, ok({}), rate(left, reset, limit))
			.get('/item')
			.times(40)
			.reply((_uri, _body, callback) => {
				const inThisWindow = now() < reset * 1000;
				if (inThisWindow && left === 0) refused++;
				if (inThisWindow && left > 0) left--;
				const answer: [number, Record<string, unknown>, Record<string, string>] =
					inThisWindow && refused > 0 && left === 0
						? [429, errorBody('rate_limited'), { 'Retry-After': '1', ...rate(0, reset, limit) }]
						: [200, ok({}), inThisWindow ? rate(left, reset, limit) : rate(99, reset + 60, limit)];
				// answers come 100 ms (real) later, so the requests overlap
				void sleep(100).then(() => callback(null, answer));
			});
		await call(async function () {
			await getIn(this, '/prime');
			return await Promise.all(Array.from({ length: 40 }, async () => await getIn(this, '/item')));
		});
		expect(refused).toBe(0);
	});

	it('alone on a key: not spread — every request of the window leaves at once while Remaining > 0, then waits for the reset', async () => {
		const reset = windowEnd(now());
		const limit = 12;
		const counted = new Map<number, number>();
		// answers consistent with this process being the only user of the key, over two windows
		const arrivals = answer('/balance', limit + 3, () => {
			const end = windowEnd(now());
			const n = (counted.get(end) ?? 0) + 1;
			counted.set(end, n);
			return [200, ok({}), rate(limit - n, end, limit)];
		});
		await call(async function () {
			for (let i = 0; i < limit + 3; i++) await getIn(this, '/balance');
			return {};
		});
		// the whole window's budget at once: no request waits for another
		for (const at of arrivals.slice(0, limit)) expect(at).toBe(arrivals[0]);
		// then the reset, and the next window's requests at once again
		expect(arrivals[limit]).toBe(reset * 1000 + PACING.resetMarginMs);
		for (const at of arrivals.slice(limit)) expect(at).toBe(arrivals[limit]);
	});

	it('a request lost on the way (the service counted it, no answer came) does not pass for another process', async () => {
		const limit = 10;
		let counted = 0;
		const arrivals: number[] = [];
		nock(BASE)
			.get('/balance')
			.replyWithError(Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }))
			.get('/balance')
			.times(limit)
			.reply(() => {
				arrivals.push(now());
				counted++;
				return [200, ok({}), rate(limit - counted - 1, windowEnd(now()), limit)];
			});
		// the service counted the reset request too: its first answer shows one more than was answered
		await call(async function () {
			for (let i = 0; i < limit - 1; i++) await getIn(this, '/balance');
			return {};
		});
		// still alone: the rest of the window leaves at once, not spread
		for (const at of arrivals.slice(1)) expect(at).toBe(arrivals[0]);
	});

	it('when another process uses the key too, keeps one request of the window in reserve', async () => {
		const reset = windowEnd(now()) + 60;
		// each answer shows two more requests counted than this process sent: someone else uses the key
		let remaining = 10;
		const arrivals = answer('/balance', 4, () => {
			remaining -= 2;
			return [200, ok({}), rate(Math.max(remaining, 0), reset, 10)];
		});
		await call(async function () {
			for (let i = 0; i < 4; i++) await getIn(this, '/balance');
			return {};
		});
		// remaining went 8, 6, 4, 2: with one in reserve the 4th was spaced, not sent at once
		expect(arrivals[3] - arrivals[2]).toBeGreaterThan(1000);
	});

	it("after a window another process used too, waits 1 s past its reset: that process's Retry-After may end up to 1 s after it", async () => {
		const reset = windowEnd(now());
		// each answer shows two requests counted for each one of ours: someone else uses the key
		const arrivals = answer('/balance', 3, (n) => [
			200,
			ok({}),
			n < 2 ? rate(2 - 2 * n, reset, 4) : rate(3, reset + 60, 4),
		]);
		await call(async function () {
			for (let i = 0; i < 3; i++) await getIn(this, '/balance');
			return {};
		});
		expect(arrivals[1]).toBeLessThan(reset * 1000);
		expect(arrivals[2]).toBeGreaterThanOrEqual(reset * 1000 + PACING.sharedResetMarginMs);
		expect(PACING.sharedResetMarginMs).toBeGreaterThanOrEqual(1000);
	});

	it('a shared key is spread with its reserve until a whole window passes with no request of another process, then goes at full pace', async () => {
		const limit = 10;
		const start = now();
		const [w1, w2, w3] = [1, 2, 3].map((n) => start + n * 60_000); // window ends (ms)
		const counted = new Map<number, number>();
		// in the first window another process sends 2 requests for each of ours; then it stops
		const arrivals = answer('/balance', 40, () => {
			const end = windowEnd(now());
			const n = (counted.get(end) ?? 0) + (end * 1000 === w1 ? 3 : 1);
			counted.set(end, n);
			return [200, ok({}), rate(Math.max(limit - n, 0), end, limit)];
		});
		await call(async function () {
			while (now() < w3) await getIn(this, '/balance');
			return {};
		});
		const inWindow = (end: number) => arrivals.filter((at) => at >= end - 60_000 && at < end);
		const gaps = (list: number[]) => list.slice(1).map((t, i) => t - list[i]);
		// first window: shared once the first answer showed it: spaced, and stops with one left (3 × 3 = 9)
		expect(inWindow(w1)).toHaveLength(3);
		expect(gaps(inWindow(w1))[1]).toBeGreaterThan(1000);
		// the next window still counts as shared (the other process might only be slower): spaced, one kept
		expect(inWindow(w2).length).toBeLessThanOrEqual(limit - PACING.sharedReserve);
		for (const gap of gaps(inWindow(w2))) expect(gap).toBeGreaterThan(1000);
		// a whole window without another process's requests: back to full pace, the window at once
		// (the second window still counted as shared: its reset is trusted 1 s after it, not 0.5 s)
		expect(inWindow(w3)).toHaveLength(limit);
		for (const at of inWindow(w3)) expect(at).toBe(w2 + PACING.sharedResetMarginMs);
		expect(arrivals[arrivals.length - 1]).toBe(w3 + PACING.resetMarginMs);
	});
});

describe('priorities', () => {
	it('a file transfer waits while creates are sent one after another, then leaves', async () => {
		const order: string[] = [];
		nock(BASE)
			.post('/jobs')
			.times(3)
			.delay(100)
			.reply(() => {
				order.push('create');
				return [201, ok({}), rate(50, windowEnd(now()) + 60, 60)];
			})
			.get('/file')
			.reply(() => {
				order.push('transfer');
				return [200, ok({}), rate(50, windowEnd(now()) + 60, 60)];
			});
		await call(async function () {
			const creates = (async () => {
				for (let i = 0; i < 3; i++) {
					await apiRequest(this, { method: 'POST', path: '/jobs', body: {}, maxWaitSeconds: 120 });
				}
			})();
			await sleep(10);
			const transfer = apiRequest(this, {
				method: 'GET',
				path: '/file',
				priority: 'transfer',
				maxWaitSeconds: 120,
			});
			await Promise.all([creates, transfer]);
			return {};
		});
		expect(order).toEqual(['create', 'create', 'create', 'transfer']);
	});

	it("keeps the window's last request for a look a watcher has due within it, until the look is withdrawn", async () => {
		const limit = 6;
		let counted = 0;
		const reset = windowEnd(now());
		const arrivals = answer('/balance', limit, () => {
			counted++;
			return [200, ok({}), rate(limit - counted, reset, limit)];
		});
		await call(async function () {
			await getIn(this, '/balance'); // learns the window: 5 left
			const watcher = {};
			const { serviceKey, baseUrl } = await resolveService(this);
			pacerFor(serviceKey, baseUrl).reserve(watcher, now() + 5000, 'poll');
			for (let i = 0; i < 4; i++) await getIn(this, '/balance'); // 1 left: the look's
			const held = getIn(this, '/balance');
			await testClock.sleep(2000);
			expect(arrivals).toHaveLength(5);
			pacerFor(serviceKey, baseUrl).release(watcher); // e.g. the batch ended
			return await held;
		});
		expect(arrivals[5] - arrivals[0]).toBe(2000);
	});

	it('alone on a key, job reads are not spaced either', async () => {
		const reset = windowEnd(now());
		const limit = 12;
		let remaining = limit;
		// the same window as 'alone on a key' above
		const arrivals = answer('/jobs/job_1', limit, () => [
			200,
			ok({}),
			rate(--remaining, reset, limit),
		]);
		await call(async function () {
			for (let i = 0; i < limit; i++) {
				await apiRequest(this, {
					method: 'GET',
					path: '/jobs/job_1',
					priority: 'poll',
					maxWaitSeconds: 120,
				});
			}
			return {};
		});
		const gaps = arrivals.slice(1).map((t, i) => t - arrivals[i]);
		for (const gap of gaps) expect(gap).toBeLessThan(3000);
	});
});

describe('a refused key', () => {
	it('after 401 invalid_api_key nothing more is sent with that key, in any node run', async () => {
		const scope = nock(BASE)
			.get('/balance')
			.once()
			.reply(401, { error: { code: 'invalid_api_key', message: 'x' }, requestId: 'req_401' });
		const first = await callError(get('/balance'));
		expect(first.context.errorCode).toBe('invalid_api_key');
		const second = await callError(get('/balance'));
		expect(second.context.errorCode).toBe('invalid_api_key');
		expect(second.message).toContain(
			'Not sent: the service already refused this API key in request req_401',
		);
		expect(scope.isDone()).toBe(true);
		// another key of the same service is not affected
		nock(BASE)
			.get('/balance')
			.reply(200, ok({ available: 1 }));
		expect(await call(get('/balance'), OTHER_KEY)).toEqual({ available: 1 });
	});
});
