import { sleep } from 'n8n-workflow';

import { LIST_LOOK_BURST, startEmulator, VIOLATION_KINDS } from '../../emulator/src';
import type { EmulatorOptions, ViolationKind } from '../../emulator/src';
import { responses } from '../../emulator/src/schemas';
import { CHARACTER_PNG } from '../../emulator/src/samples';

type Emulator = Awaited<ReturnType<typeof startEmulator>>;

/**
 * Virtual time: `sleep` moves the clock at once, or, while the test holds the clock (`hold()`), once the
 * test releases it: a delayed answer then waits for the test's own step, not for a guess of real time.
 */
function virtualClock(start = 1_800_000_000_000) {
	let gate: Promise<void> | undefined;
	const clock = {
		t: start,
		/** Sleeps of the emulator waiting for release(). */
		held: 0,
		now: () => clock.t,
		sleep: async (ms: number) => {
			if (gate) {
				clock.held++;
				await gate;
				clock.held--;
			}
			clock.t += ms;
		},
		/** Sleeps wait until the returned release() is called. */
		hold: (): (() => void) => {
			let release = () => {};
			gate = new Promise<void>((resolve) => {
				release = () => {
					gate = undefined;
					resolve();
				};
			});
			return release;
		},
	};
	return clock;
}

/** Waits (real time, bounded) until `done()` holds: for what the emulator does on its own after an answer. */
async function until(done: () => boolean, what: string, maxMs = 20_000): Promise<void> {
	for (let waited = 0; !done(); waited += 5) {
		if (waited > maxMs) throw new Error(`not within ${maxMs} ms: ${what}`);
		await sleep(5);
	}
}

interface Harness {
	emu: Emulator;
	clock: ReturnType<typeof virtualClock>;
	call(path: string, init?: RequestInit & { key?: string | null }): Promise<Response>;
	json(
		path: string,
		init?: RequestInit & { key?: string | null },
	): Promise<{ res: Response; body: unknown }>;
	createJob(idempotencyKey: string, body: unknown, key?: string): Promise<Response>;
	upload(idempotencyKey: string, bytes: Buffer, key?: string): Promise<Response>;
	control(method: string, path: string, body?: unknown): Promise<{ status: number; data: unknown }>;
}

async function boot(options: EmulatorOptions = {}): Promise<Harness> {
	const clock = virtualClock();
	const emu = await startEmulator({
		port: 0,
		clock,
		jobTiming: { queuedMs: 2000, runningMs: 8000 },
		...options,
	});
	const call: Harness['call'] = (path, init = {}) => {
		const { key, ...rest } = init;
		const headers = new Headers(rest.headers);
		const secret = key === undefined ? emu.keys.full : key;
		if (secret !== null) headers.set('Authorization', `Bearer ${secret}`);
		return fetch(`${emu.baseUrl}${path}`, { ...rest, headers });
	};
	return {
		emu,
		clock,
		call,
		json: async (path, init) => {
			const res = await call(path, init);
			return { res, body: await res.json() };
		},
		createJob: (idempotencyKey, body, key) =>
			call('/jobs', {
				method: 'POST',
				key,
				headers: { 'Content-Type': 'application/json', 'Idempotency-Key': idempotencyKey },
				body: JSON.stringify(body),
			}),
		upload: (idempotencyKey, bytes, key) =>
			call('/assets', {
				method: 'POST',
				key,
				headers: {
					'Content-Type': 'image/png',
					'Idempotency-Key': idempotencyKey,
					'X-Service-Filename': 'character.png',
				},
				body: new Uint8Array(bytes),
			}),
		control: async (method, path, body) => {
			const res = await fetch(`${emu.origin}/_control${path}`, {
				method,
				body: body === undefined ? undefined : JSON.stringify(body),
			});
			return { status: res.status, data: ((await res.json()) as { data: unknown }).data };
		},
	};
}

let counter = 0;
function idem(label: string): string {
	counter += 1;
	return `referee-${label}-${counter}-${'0'.repeat(12)}`;
}

function pngWith(tag: string): Buffer {
	return Buffer.concat([Buffer.from(CHARACTER_PNG, 'base64'), Buffer.from(tag)]);
}

const TEXT_JOB = { mode: 'text_to_video', prompt: 'a cat surfing' };

/** The kinds recorded, in order. */
function kinds(h: Harness): ViolationKind[] {
	return h.emu.control.violations().map((v) => v.kind);
}

describe('referee: each kind is recorded once', () => {
	let h: Harness;
	beforeEach(async () => {
		h = await boot();
	});
	afterEach(() => h.emu.close());

	test('retry_after_key: a request of the key before the end of a Retry-After (fault)', async () => {
		h.emu.control.injectFault({ path: '/v1/me', action: 'rate_limit', retryAfter: 5 });
		const limited = await h.call('/me');
		expect(limited.status).toBe(429);
		expect(limited.headers.get('retry-after')).toBe('5');
		await h.clock.sleep(4000);
		expect((await h.call('/balance')).status).toBe(200);
		expect(kinds(h)).toEqual(['retry_after_key']);
		const [v] = h.emu.control.violations();
		expect(v).toMatchObject({ method: 'GET', path: '/v1/balance', at: h.clock.t });
		expect(v.keyId).toMatch(/^key_[0-9a-f]{32}$/);
		expect(v.requestId).toMatch(/^req_/);
		expect(v.detail).toContain('1 s early');
		await h.clock.sleep(1000);
		expect((await h.call('/balance')).status).toBe(200);
		// Public routes do not count toward a key.
		expect((await h.call('/capabilities')).status).toBe(200);
		expect(h.emu.control.violationCounts().retry_after_key).toBe(1);
	});

	test('requests already in flight when a 429 or a 401 was sent are not judged (inFlightGraceMs)', async () => {
		h.emu.control.injectFault({ path: '/v1/me', action: 'rate_limit', retryAfter: 5 });
		expect((await h.call('/me')).status).toBe(429);
		await h.clock.sleep(400); // within the 500 ms allowance: sent before the client could know
		expect((await h.call('/balance')).status).toBe(200);
		expect(kinds(h)).toEqual([]);
		await h.clock.sleep(200); // past it
		expect((await h.call('/balance')).status).toBe(200);
		expect(kinds(h)).toEqual(['retry_after_key']);
		const revoked = h.emu.control.createKey();
		h.emu.control.revokeKey(revoked.keyId);
		expect((await h.call('/me', { key: revoked.secret })).status).toBe(401);
		await h.clock.sleep(100);
		await h.call('/me', { key: revoked.secret });
		expect(kinds(h)).toEqual(['retry_after_key']);
		await h.clock.sleep(500);
		await h.call('/me', { key: revoked.secret });
		expect(kinds(h)).toEqual(['retry_after_key', 'revoked_key_reuse']);
	});

	test('retry_after_ip: any /v1 request of the IP before the end of its Retry-After', async () => {
		const set = await h.control('POST', '/settings', {
			ipLimit: { requests: 2, windowMs: 10_000 },
		});
		expect(set.status).toBe(200);
		h.clock.t = 1_800_000_000_000; // a multiple of 10 s: the window ends in 10 s
		expect((await h.call('/me')).status).toBe(200);
		expect((await h.call('/capabilities', { key: null })).status).toBe(200);
		const limited = await h.call('/me');
		expect(limited.status).toBe(429);
		expect(((await limited.json()) as { error: { code: string } }).error.code).toBe(
			'ip_rate_limited',
		);
		expect(limited.headers.get('retry-after')).toBe('10');
		expect(limited.headers.get('x-ratelimit-limit')).toBeNull();
		expect(limited.headers.get('x-ratelimit-remaining')).toBeNull();
		expect(kinds(h)).toEqual([]);
		await h.clock.sleep(2000);
		expect((await h.call('/capabilities', { key: null })).status).toBe(429);
		expect(kinds(h)).toEqual(['retry_after_ip']);
		await h.clock.sleep(8000);
		expect((await h.call('/capabilities', { key: null })).status).toBe(200);
		expect(kinds(h)).toEqual(['retry_after_ip']);
	});

	test('retry_after_upload: an upload of the account (any key) before the end of upload_rate_limit', async () => {
		h.emu.control.injectFault({
			method: 'POST',
			path: '/v1/assets',
			action: 'rate_limit',
			code: 'upload_rate_limit',
			retryAfter: 30,
		});
		const key = idem('up');
		expect((await h.upload(key, pngWith('a'))).status).toBe(429);
		await h.clock.sleep(10_000);
		// Other requests are fine; another key of the same account may not upload yet.
		expect((await h.call('/assets')).status).toBe(200);
		const other = h.emu.control.createKey();
		expect((await h.upload(idem('up'), pngWith('b'), other.secret)).status).toBe(201);
		expect(kinds(h)).toEqual(['retry_after_upload']);
		await h.clock.sleep(20_000);
		expect((await h.upload(key, pngWith('a'))).status).toBe(201);
		expect(kinds(h)).toEqual(['retry_after_upload']);
	});

	test('exhausted_window: a request while the key has no request left in its window', async () => {
		const slow = h.emu.control.createKey({ requestsPerMinute: 1 });
		const first = await h.call('/me', { key: slow.secret });
		expect(first.headers.get('x-ratelimit-remaining')).toBe('0');
		const limited = await h.call('/me', { key: slow.secret });
		expect(limited.status).toBe(429);
		expect(kinds(h)).toEqual(['exhausted_window']);
		expect(h.emu.control.violations()[0].keyId).toBe(slow.keyId);
		// Waiting the Retry-After exactly is fine.
		await h.clock.sleep(Number(limited.headers.get('retry-after')) * 1000);
		expect((await h.call('/me', { key: slow.secret })).status).toBe(200);
		expect(kinds(h)).toEqual(['exhausted_window']);
	});

	test('poll_too_soon: a job read less than 5 s after the previous successful read', async () => {
		const created = await h.createJob(idem('poll'), TEXT_JOB);
		expect(created.status).toBe(202);
		const job = responses.job.parse(await created.json()).data;
		await h.clock.sleep(1000);
		expect((await h.call(`/jobs/${job.id}`)).status).toBe(200);
		expect(kinds(h)).toEqual(['poll_too_soon']);
		// The early read was successful: the next one counts from it, whatever key of the account.
		await h.clock.sleep(4999);
		const other = h.emu.control.createKey();
		expect((await h.call(`/jobs/${job.id}`, { key: other.secret })).status).toBe(200);
		expect(kinds(h)).toEqual(['poll_too_soon', 'poll_too_soon']);
		await h.clock.sleep(5000);
		expect((await h.call(`/jobs/${job.id}`)).status).toBe(200);
		expect(h.emu.control.violationCounts().poll_too_soon).toBe(2);
	});

	test('poll_too_soon: reading a job again after an answer that showed it finished is not a poll', async () => {
		h.emu.control.scriptJobs([{ queuedMs: 0, runningMs: 1000 }]);
		const created = await h.createJob(idem('finished'), TEXT_JOB);
		const job = responses.job.parse(await created.json()).data;
		await h.clock.sleep(5000);
		const read = async () => {
			const res = await h.call(`/jobs/${job.id}`);
			expect(res.status).toBe(200);
			return responses.job.parse(await res.json()).data.state;
		};
		expect(await read()).toBe('succeeded');
		// two workflows (a trigger's Download Output, a caller's repeat) each read the finished job once
		expect(await read()).toBe('succeeded');
		expect(await read()).toBe('succeeded');
		expect(kinds(h)).toEqual([]);
		// a page of the job list that showed it finished counts too: a node of another key (Download
		// Output after a Create whose watcher saw the end in the list) reads it once, within 5 s of its creation
		h.emu.control.scriptJobs([{ queuedMs: 0, runningMs: 1000 }]);
		const listed = responses.job.parse(
			await (await h.createJob(idem('listed'), { ...TEXT_JOB, prompt: 'listed' })).json(),
		).data;
		await h.clock.sleep(2000);
		const page = await h.json('/jobs?limit=10');
		const items = (page.body as { data: { items: Array<{ id: string; state: string }> } }).data
			.items;
		expect(items.find((j) => j.id === listed.id)?.state).toBe('succeeded');
		expect((await h.call(`/jobs/${listed.id}`)).status).toBe(200);
		expect(kinds(h)).toEqual([]);
		// a job answered unfinished is still judged: the next read within 5 s is a poll too soon
		h.emu.control.scriptJobs([{ queuedMs: 600_000, runningMs: 600_000 }]);
		const slow = responses.job.parse(
			await (await h.createJob(idem('unfinished'), { ...TEXT_JOB, prompt: 'slow' })).json(),
		).data;
		await h.clock.sleep(5000);
		expect((await h.call(`/jobs/${slow.id}`)).status).toBe(200);
		expect((await h.call(`/jobs/${slow.id}`)).status).toBe(200);
		expect(kinds(h)).toEqual(['poll_too_soon']);
	});

	test('list_poll_too_soon: the job list looked at more often than every 5 s while it shows unfinished jobs', async () => {
		// jobs that stay unfinished for the whole test (the referee's boot default ends them in 10 s)
		h.emu.control.scriptJobs([
			{ queuedMs: 600_000, runningMs: 600_000 },
			{ queuedMs: 600_000, runningMs: 600_000 },
		]);
		expect((await h.createJob(idem('list-a'), TEXT_JOB)).status).toBe(202);
		expect((await h.createJob(idem('list-b'), { ...TEXT_JOB, prompt: 'b' })).status).toBe(202);
		const page = async (query = '') => {
			const { res, body } = await h.json(`/jobs${query}`);
			expect(res.status).toBe(200);
			return (body as { data: { nextCursor: string | null } }).data;
		};
		// separate node runs may each look once: a burst of LIST_LOOK_BURST looks at once is fine
		for (let i = 0; i < LIST_LOOK_BURST; i++) await page('?limit=100');
		expect(kinds(h)).toEqual([]);
		await page('?limit=100');
		expect(kinds(h)).toEqual(['list_poll_too_soon']);
		const [v] = h.emu.control.violations();
		expect(v).toMatchObject({
			method: 'GET',
			path: '/v1/jobs',
			keyId: h.emu.keys.full.slice(7, 43),
		});
		expect(v.detail).toContain('2 unfinished job(s)');
		// one look per 5 s is fine; further pages (cursor) of one look are not looks
		for (let i = 0; i < 10; i++) {
			await h.clock.sleep(5000);
			const first = await page('?limit=1');
			await page(`?limit=1&cursor=${encodeURIComponent(String(first.nextCursor))}`);
		}
		expect(kinds(h)).toHaveLength(1);
		// a look every second (a watcher that ignores the interval) is caught within a few looks
		for (let i = 0; i < 10; i++) {
			await h.clock.sleep(1000);
			await page();
		}
		expect(kinds(h).length).toBeGreaterThanOrEqual(8);
		// each key is judged on its own looks
		const other = h.emu.control.createKey();
		const before = kinds(h).length;
		expect((await h.call('/jobs', { key: other.secret })).status).toBe(200);
		expect(kinds(h)).toHaveLength(before);
		expect(h.emu.control.violationCounts().list_poll_too_soon).toBe(before);
	});

	test('list_poll_too_soon: not judged while the list shows no unfinished job', async () => {
		expect((await h.createJob(idem('done'), TEXT_JOB)).status).toBe(202);
		await h.clock.sleep(10_000); // queued 2 s, running 8 s: finished
		for (let i = 0; i < 3 * LIST_LOOK_BURST; i++) expect((await h.call('/jobs')).status).toBe(200);
		expect(kinds(h)).toEqual([]);
		// a job created meanwhile shows in the next look: from then on the looks are counted again
		expect((await h.createJob(idem('new'), TEXT_JOB)).status).toBe(202);
		for (let i = 0; i < LIST_LOOK_BURST; i++) expect((await h.call('/jobs')).status).toBe(200);
		expect(kinds(h)).toEqual([]);
		expect((await h.call('/jobs')).status).toBe(200);
		expect(kinds(h)).toEqual(['list_poll_too_soon']);
	});

	test('revoked_key_reuse: a secret already answered 401 invalid_api_key', async () => {
		const key = h.emu.control.createKey();
		h.emu.control.revokeKey(key.keyId);
		expect((await h.call('/me', { key: key.secret })).status).toBe(401);
		expect(kinds(h)).toEqual([]);
		await h.clock.sleep(60_000);
		expect((await h.call('/balance', { key: key.secret })).status).toBe(401);
		expect(kinds(h)).toEqual(['revoked_key_reuse']);
		const stored = JSON.stringify(h.emu.control.violations());
		expect(stored).not.toContain(key.secret);
	});

	test('idempotency_key_changed: a job retried with a new key after a 500', async () => {
		h.emu.control.injectFault({
			method: 'POST',
			path: '/v1/jobs',
			action: 'error_500_before_commit',
		});
		expect((await h.createJob(idem('a'), TEXT_JOB)).status).toBe(500);
		// Key order does not matter: the body is compared as canonical JSON.
		const reordered = { prompt: TEXT_JOB.prompt, mode: TEXT_JOB.mode };
		expect((await h.createJob(idem('b'), reordered)).status).toBe(202);
		expect(kinds(h)).toEqual(['idempotency_key_changed']);
		// Answered definitively: a new key with the same body is now a deliberate second job.
		expect((await h.createJob(idem('c'), TEXT_JOB)).status).toBe(202);
		expect(kinds(h)).toEqual(['idempotency_key_changed']);
	});

	test('idempotency_key_changed: an upload retried with a new key after a reset connection', async () => {
		h.emu.control.injectFault({ method: 'POST', path: '/v1/assets', action: 'reset_after_commit' });
		const bytes = pngWith('reset');
		await expect(h.upload(idem('r1'), bytes)).rejects.toThrow();
		expect((await h.upload(idem('r2'), bytes)).status).toBe(201);
		expect(kinds(h)).toEqual(['idempotency_key_changed']);
	});

	test('idempotency_key_changed: a new key while a delayed creation is still unanswered', async () => {
		const release = h.clock.hold(); // the delay fault waits until released, so the client gives up first
		h.emu.control.injectFault({
			method: 'POST',
			path: '/v1/jobs',
			action: 'delay',
			delayMs: 60_000,
		});
		const first = idem('slow');
		const giveUp = new AbortController();
		const attempt = h.call('/jobs', {
			method: 'POST',
			headers: { 'Content-Type': 'application/json', 'Idempotency-Key': first },
			body: JSON.stringify(TEXT_JOB),
			signal: giveUp.signal,
		});
		// the client gives up once the service holds its attempt
		await until(() => h.clock.held === 1, 'the service holds the first attempt');
		giveUp.abort();
		await expect(attempt).rejects.toThrow();
		expect((await h.createJob(idem('impatient'), TEXT_JOB)).status).toBe(202);
		expect(kinds(h)).toEqual(['idempotency_key_changed']);
		release();
		// the delayed attempt is handled too (a job is created, the client is gone)
		await until(() => h.emu.control.jobs().length === 2, 'the held attempt creates its job');
		expect(h.emu.control.jobs()).toHaveLength(2);
		// Retrying the first attempt with its own key is what the client should have done.
		expect((await h.createJob(first, TEXT_JOB)).status).toBe(200);
		expect(kinds(h)).toEqual(['idempotency_key_changed']);
	});

	test('idempotency_body_changed: an Idempotency-Key reused with another body (jobs and assets)', async () => {
		const jobKey = idem('jobs');
		expect((await h.createJob(jobKey, TEXT_JOB)).status).toBe(202);
		const conflict = await h.createJob(jobKey, { ...TEXT_JOB, prompt: 'a dog surfing' });
		expect(conflict.status).toBe(409);
		expect(kinds(h)).toEqual(['idempotency_body_changed']);
		const assetKey = idem('assets');
		expect((await h.upload(assetKey, pngWith('1'))).status).toBe(201);
		expect((await h.upload(assetKey, pngWith('2'))).status).toBe(409);
		expect(kinds(h)).toEqual(['idempotency_body_changed', 'idempotency_body_changed']);
		expect(h.emu.control.violations()[1].path).toBe('/v1/assets');
	});

	test('idempotency_body_changed: a key whose first attempt failed with a 5xx is still bound', async () => {
		h.emu.control.injectFault({
			method: 'POST',
			path: '/v1/jobs',
			action: 'error_500_before_commit',
		});
		const key = idem('bound');
		expect((await h.createJob(key, TEXT_JOB)).status).toBe(500);
		expect((await h.createJob(key, { ...TEXT_JOB, durationSeconds: 10 })).status).toBe(202);
		expect(kinds(h)).toEqual(['idempotency_body_changed']);
	});

	test('repeated_client_error: the same request repeated within 60 s of a 400', async () => {
		const quote = () =>
			h.call('/jobs/quote?x=1', {
				method: 'POST',
				headers: { 'Content-Type': 'application/json' },
				body: JSON.stringify({ ...TEXT_JOB, colour: 'red' }),
			});
		expect((await quote()).status).toBe(400);
		await h.clock.sleep(59_000);
		expect((await quote()).status).toBe(400);
		expect(kinds(h)).toEqual(['repeated_client_error']);
		await h.clock.sleep(60_000);
		expect((await quote()).status).toBe(400);
		expect(kinds(h)).toEqual(['repeated_client_error']);
	});
});

describe('referee: a careful client records nothing', () => {
	test('polling every 5 s, waiting Retry-After exactly, retrying with the same key, fixing 4xx', async () => {
		const h = await boot({ rateWindowMs: 10_000 });
		try {
			const full = h.emu.keys.full;
			// Create a job and poll it every 5 s until it ends.
			const created = await h.createJob(idem('clean'), TEXT_JOB);
			expect(created.status).toBe(202);
			const jobId = responses.job.parse(await created.json()).data.id;
			let state = 'queued';
			let polls = 0;
			while (state !== 'succeeded' && state !== 'failed' && polls < 20) {
				await h.clock.sleep(5000);
				const { body } = await h.json(`/jobs/${jobId}`);
				state = responses.job.parse(body).data.state;
				polls += 1;
			}
			expect(polls).toBe(2);
			expect((await h.call(`/jobs/${jobId}/output`)).status).toBe(200);

			// Follow a batch through the job list: one look every 5 s until every job has ended.
			for (const label of ['batch-1', 'batch-2', 'batch-3']) {
				expect((await h.createJob(idem(label), { ...TEXT_JOB, prompt: label })).status).toBe(202);
			}
			let looks = 0;
			for (let unfinished = 1; unfinished > 0 && looks < 20; looks++) {
				await h.clock.sleep(5000);
				const { body } = await h.json('/jobs?limit=100');
				const { items } = (body as { data: { items: Array<{ state: string }> } }).data;
				unfinished = items.filter((j) => j.state === 'queued' || j.state === 'running').length;
			}
			expect(looks).toBe(2);

			// The key window: wait until X-RateLimit-Reset when X-RateLimit-Remaining is 0.
			const slow = h.emu.control.createKey({ requestsPerMinute: 2 });
			let last = await h.call('/me', { key: slow.secret });
			for (let i = 0; last.headers.get('x-ratelimit-remaining') !== '0'; i++) {
				expect(i).toBeLessThan(5); // the key allows 2 per minute
				last = await h.call('/me', { key: slow.secret });
			}
			const resetMs = Number(last.headers.get('x-ratelimit-reset')) * 1000;
			await h.clock.sleep(resetMs - h.clock.t);
			expect((await h.call('/me', { key: slow.secret })).status).toBe(200);

			// An injected 429 rate_limited: wait the Retry-After exactly.
			h.emu.control.injectFault({ path: '/v1/balance', action: 'rate_limit', retryAfter: 3 });
			const limited = await h.call('/balance');
			expect(limited.status).toBe(429);
			await h.clock.sleep(Number(limited.headers.get('retry-after')) * 1000);
			expect((await h.call('/balance')).status).toBe(200);

			// A reset on creation: retry with the same Idempotency-Key (then a deliberate new job).
			h.emu.control.injectFault({ method: 'POST', path: '/v1/jobs', action: 'reset_after_commit' });
			const key = idem('retry');
			await expect(h.createJob(key, TEXT_JOB)).rejects.toThrow();
			const replay = await h.createJob(key, TEXT_JOB);
			expect(replay.status).toBe(200);
			const replayed = responses.job.parse(await replay.json()).data;
			await h.clock.sleep(5000);
			expect((await h.call(`/jobs/${replayed.id}`)).status).toBe(200);
			expect((await h.createJob(idem('second'), TEXT_JOB)).status).toBe(202);

			// Upload limit: wait the Retry-After, retry the same upload with the same key.
			h.emu.control.injectFault({
				method: 'POST',
				path: '/v1/assets',
				action: 'rate_limit',
				code: 'upload_rate_limit',
				retryAfter: 2,
			});
			const upKey = idem('upload');
			expect((await h.upload(upKey, pngWith('clean'))).status).toBe(429);
			await h.clock.sleep(2000);
			expect((await h.upload(upKey, pngWith('clean'))).status).toBe(201);

			// A 400: fix the request (same Idempotency-Key is fine, nothing was created).
			const fixKey = idem('fix');
			expect((await h.createJob(fixKey, { ...TEXT_JOB, durationSeconds: 99 })).status).toBe(400);
			expect((await h.createJob(fixKey, TEXT_JOB)).status).toBe(202);

			// A revoked key gets one 401; the client stops using it.
			const revoked = h.emu.control.createKey();
			h.emu.control.revokeKey(revoked.keyId);
			expect((await h.call('/me', { key: revoked.secret })).status).toBe(401);
			expect((await h.call('/me', { key: full })).status).toBe(200);

			expect(h.emu.control.violations()).toEqual([]);
			expect(Object.values(h.emu.control.violationCounts()).every((n) => n === 0)).toBe(true);
			expect(h.emu.control.journal().every((e) => e.violations.length === 0)).toBe(true);
		} finally {
			await h.emu.close();
		}
	});

	test('the per-IP limit: waiting its Retry-After exactly', async () => {
		const h = await boot({ ipLimit: { requests: 3, windowMs: 20_000 } });
		try {
			h.clock.t = 1_800_000_000_000 + 15_000; // window [..000, ..020 000): 5 s left
			for (let i = 0; i < 3; i++) expect((await h.call('/capabilities')).status).toBe(200);
			const limited = await h.call('/me');
			expect(limited.status).toBe(429);
			expect(limited.headers.get('retry-after')).toBe('5');
			await h.clock.sleep(5000);
			expect((await h.call('/me')).status).toBe(200);
			expect(h.emu.control.violations()).toEqual([]);
		} finally {
			await h.emu.close();
		}
	});
});

describe('referee: journal and control', () => {
	test('journal entries carry the kinds; clearJournal keeps violations; HTTP routes', async () => {
		const h = await boot();
		try {
			const created = await h.createJob(idem('j'), TEXT_JOB);
			const jobId = responses.job.parse(await created.json()).data.id;
			await h.call(`/jobs/${jobId}`);
			const journal = h.emu.control.journal();
			expect(journal.map((e) => e.violations)).toEqual([[], ['poll_too_soon']]);
			h.emu.control.clearJournal();
			expect(h.emu.control.violations()).toHaveLength(1);

			const listed = await h.control('GET', '/violations');
			expect(listed.status).toBe(200);
			expect(listed.data).toEqual(h.emu.control.violations());
			const counts = (await h.control('GET', '/violations/counts')).data as Record<string, number>;
			expect(Object.keys(counts).sort()).toEqual([...VIOLATION_KINDS].sort());
			expect(counts.poll_too_soon).toBe(1);
			expect((await h.control('DELETE', '/violations')).status).toBe(200);
			expect(h.emu.control.violations()).toEqual([]);
			expect(h.emu.control.violationCounts().poll_too_soon).toBe(0);
		} finally {
			await h.emu.close();
		}
	});

	test('settings over HTTP: minPollIntervalMs, rateWindowMs, ipLimit; bad values refused', async () => {
		const h = await boot();
		try {
			expect((await h.control('GET', '/settings')).data).toEqual({
				rateWindowMs: 60_000,
				ipLimit: null,
				minPollIntervalMs: 5000,
				inFlightGraceMs: 500,
			});
			const set = await h.control('POST', '/settings', {
				minPollIntervalMs: 1000,
				rateWindowMs: 10_000,
			});
			expect(set.data).toEqual({
				rateWindowMs: 10_000,
				ipLimit: null,
				minPollIntervalMs: 1000,
				inFlightGraceMs: 500,
			});
			expect((await h.control('POST', '/settings', { rateWindowMs: 0 })).status).toBe(400);
			expect((await h.control('POST', '/settings', { ipLimit: { requests: 1 } })).status).toBe(400);
			expect(h.emu.control.settings().rateWindowMs).toBe(10_000);

			const created = await h.createJob(idem('s'), TEXT_JOB);
			const jobId = responses.job.parse(await created.json()).data.id;
			await h.clock.sleep(1000);
			expect((await h.call(`/jobs/${jobId}`)).status).toBe(200);
			expect(h.emu.control.violations()).toEqual([]);
		} finally {
			await h.emu.close();
		}
	});
});

describe('options that shorten time', () => {
	test('rateWindowMs: X-RateLimit-Limit per window, X-RateLimit-Reset at the window end', async () => {
		const h = await boot({ rateWindowMs: 10_000 });
		try {
			h.clock.t = 1_800_000_003_000;
			const slow = h.emu.control.createKey({ requestsPerMinute: 2 });
			const res = await h.call('/me', { key: slow.secret });
			expect(res.headers.get('x-ratelimit-limit')).toBe('2');
			expect(res.headers.get('x-ratelimit-remaining')).toBe('1');
			expect(res.headers.get('x-ratelimit-reset')).toBe('1800000010');
			await h.call('/me', { key: slow.secret });
			const limited = await h.call('/me', { key: slow.secret });
			expect(limited.status).toBe(429);
			expect(limited.headers.get('retry-after')).toBe('7');
			await h.clock.sleep(7000);
			const next = await h.call('/me', { key: slow.secret });
			expect(next.status).toBe(200);
			expect(next.headers.get('x-ratelimit-reset')).toBe('1800000020');
		} finally {
			await h.emu.close();
		}
	});

	test('clock: jobs progress and the delay fault waits on the virtual clock', async () => {
		const h = await boot();
		try {
			const created = await h.createJob(idem('vc'), TEXT_JOB);
			const jobId = responses.job.parse(await created.json()).data.id;
			h.emu.control.injectFault({ path: `/v1/jobs/${jobId}`, action: 'delay', delayMs: 600_000 });
			const startedAt = Date.now();
			const { body } = await h.json(`/jobs/${jobId}`);
			expect(Date.now() - startedAt).toBeLessThan(5000);
			expect(responses.job.parse(body).data.state).toBe('succeeded');
			expect(h.clock.t).toBe(1_800_000_000_000 + 600_000);
		} finally {
			await h.emu.close();
		}
	});

	test('delay_response: handled at arrival, answered later, so answers arrive out of order with stale rate headers', async () => {
		const h = await boot();
		try {
			const release = h.clock.hold();
			h.emu.control.injectFault({ path: '/v1/me', action: 'delay_response', delayMs: 1000 });
			const order: string[] = [];
			const slowRequest = h.call('/me').then((res) => {
				order.push('me');
				return res;
			});
			await until(() => h.clock.held === 1, '/me is handled and held');
			const fast = await h.call('/balance');
			order.push('balance');
			release();
			const slow = await slowRequest;
			expect(order).toEqual(['balance', 'me']);
			expect(slow.status).toBe(200);
			// The late answer carries the rate headers of its arrival: more remaining than the newer one.
			expect(Number(slow.headers.get('x-ratelimit-remaining'))).toBe(
				Number(fast.headers.get('x-ratelimit-remaining')) + 1,
			);
			const journal = h.emu.control.journal();
			expect(journal.map((e) => [e.path, e.fault])).toEqual([
				['/v1/me', 'delay_response'],
				['/v1/balance', null],
			]);
			expect(h.clock.t).toBe(1_800_000_000_000 + 1000);
		} finally {
			await h.emu.close();
		}
	});

	test('now option alone keeps working (real waits)', async () => {
		const t = 1_800_000_000_000;
		const emu = await startEmulator({
			port: 0,
			now: () => t,
			jobTiming: { queuedMs: 0, runningMs: 0 },
		});
		try {
			emu.control.injectFault({ path: '/v1/me', action: 'delay', delayMs: 100 });
			const started = Date.now();
			const res = await fetch(`${emu.baseUrl}/me`, {
				headers: { Authorization: `Bearer ${emu.keys.full}` },
			});
			expect(res.status).toBe(200);
			expect(Date.now() - started).toBeGreaterThanOrEqual(90);
			expect(emu.control.journal()[0].at).toBe(t);
		} finally {
			await emu.close();
		}
	});
});
