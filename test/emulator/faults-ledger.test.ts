import axios from 'axios';
import { createHash } from 'crypto';

import { startEmulator } from '../../emulator/src';
import { responses } from '../../emulator/src/schemas';
import { boot, bearer, expectError, idem, jpeg, png, upload } from './helpers';
import type { Harness } from './helpers';

const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

describe('emulator: faults', () => {
	let h: Harness;
	beforeAll(async () => {
		h = await boot();
	});
	afterAll(() => h.emu.close());
	const createJob = (key: string, prompt = 'x', secret = h.emu.keys.full) =>
		h.http.post('/jobs', JSON.stringify({ mode: 'text_to_video', prompt }), {
			headers: {
				...bearer(secret),
				'Content-Type': 'application/json',
				'Idempotency-Key': key,
			},
		});

	test('reset_after_commit: job committed, connection reset, retry with the same key replays', async () => {
		h.emu.control.injectFault({ method: 'POST', path: '/v1/jobs', action: 'reset_after_commit' });
		const key = idem('reset');
		await expect(createJob(key)).rejects.toThrow();
		expect(h.emu.control.jobs()).toHaveLength(1);
		const retry = await createJob(key);
		expect(retry.status).toBe(200);
		expect(responses.job.parse(retry.data).data.replayed).toBe(true);
		expect(h.emu.control.journal().some((e) => e.fault === 'reset_after_commit')).toBe(true);
	});

	test('error_500_before_commit: 500 internal_error and nothing created', async () => {
		h.emu.control.injectFault({ path: /^\/v1\/jobs$/, action: 'error_500_before_commit' });
		const before = h.emu.control.jobs().length;
		expectError(await createJob(idem()), 500, 'internal_error');
		expect(h.emu.control.jobs()).toHaveLength(before);
	});

	test('a fault with keyId hits only requests bearing that key', async () => {
		const other = h.emu.control.createKey({ label: 'fault-key-filter' });
		h.emu.control.injectFault({
			path: '/v1/jobs',
			keyId: other.keyId,
			action: 'error_500_before_commit',
		});
		const created = await createJob(idem('keyid-full'));
		expect(created.status).toBe(202);
		expect(h.emu.control.faults()).toHaveLength(1);
		expectError(await createJob(idem('keyid-other'), 'x', other.secret), 500, 'internal_error');
		expect(h.emu.control.faults()).toHaveLength(0);
	});

	test('error_503: 503 engine_unavailable / storage_unavailable with Retry-After', async () => {
		h.emu.control.injectFault({ path: '/v1/jobs', action: 'error_503', retryAfter: 3 });
		const res = await createJob(idem());
		expectError(res, 503, 'engine_unavailable');
		expect(res.headers['retry-after']).toBe('3');
		h.emu.control.injectFault({
			path: '/v1/assets',
			method: 'POST',
			action: 'error_503',
			code: 'storage_unavailable',
		});
		expectError(await upload(h, h.emu.keys.full, png, 'image/png'), 503, 'storage_unavailable');
	});

	test('rate_limit: 429 ip_rate_limited with Retry-After', async () => {
		h.emu.control.injectFault({
			path: '/v1/me',
			action: 'rate_limit',
			code: 'ip_rate_limited',
			retryAfter: 7,
		});
		const res = await h.http.get('/me', { headers: bearer(h.emu.keys.full) });
		expectError(res, 429, 'ip_rate_limited');
		expect(res.headers['retry-after']).toBe('7');
		expect((await h.http.get('/me', { headers: bearer(h.emu.keys.full) })).status).toBe(200);
	});

	test('truncate: download cut after N bytes', async () => {
		const job = h.emu.control.jobs()[0];
		h.emu.control.injectFault({
			path: `/v1/jobs/${job.id}/output`,
			action: 'truncate',
			afterBytes: 100,
		});
		await expect(
			h.http.get(`/jobs/${job.id}/output`, {
				headers: bearer(h.emu.keys.full),
				responseType: 'arraybuffer',
			}),
		).rejects.toThrow();
		const ok = await h.http.get(`/jobs/${job.id}/output`, {
			headers: bearer(h.emu.keys.full),
			responseType: 'arraybuffer',
		});
		expect(sha(Buffer.from(ok.data))).toBe(job.output!.sha256);
	});

	test('corrupt: same length, other sha256', async () => {
		const job = h.emu.control.jobs()[0];
		h.emu.control.injectFault({ path: /\/output$/, action: 'corrupt' });
		const res = await h.http.get(`/jobs/${job.id}/output`, {
			headers: bearer(h.emu.keys.full),
			responseType: 'arraybuffer',
		});
		expect(res.status).toBe(200);
		const bytes = Buffer.from(res.data);
		const output = h.emu.control.assets().find((a) => a.id === job.output!.assetId)!;
		expect(bytes.length).toBe(output.byteSize);
		expect(sha(bytes)).not.toBe(job.output!.sha256);
	});

	test('delay: answers normally after delayMs', async () => {
		h.emu.control.injectFault({ path: '/v1/balance', action: 'delay', delayMs: 120 });
		const started = Date.now();
		const res = await h.http.get('/balance', { headers: bearer(h.emu.keys.full) });
		expect(res.status).toBe(200);
		expect(Date.now() - started).toBeGreaterThanOrEqual(100);
	});

	test('delay: the request counts in the rate window it arrived in, not the one its late answer leaves in', async () => {
		const key = h.emu.control.createKey({ requestsPerMinute: 2 });
		const windowMs = h.emu.control.settings().rateWindowMs;
		h.clock.t = Math.ceil(h.clock.t / windowMs) * windowMs + 1000; // early in a window
		const arrivedWindowEnd = Math.ceil(h.clock.t / windowMs) * windowMs;
		h.emu.control.injectFault({ path: '/v1/me', action: 'delay', delayMs: 300 });
		let arrived: () => void = () => undefined;
		const arrival = new Promise<void>((resolve) => (arrived = resolve));
		const stop = h.emu.control.watchArrivals((a) => {
			if (a.keyId === key.keyId) arrived();
		});
		try {
			const late = h.http.get('/me', { headers: bearer(key.secret) });
			await arrival;
			h.clock.t += windowMs; // the answer leaves in the next window
			const answer = await late;
			expect(answer.status).toBe(200);
			expect(answer.headers['x-ratelimit-reset']).toBe(String(arrivedWindowEnd / 1000));
			const next = await h.http.get('/me', { headers: bearer(key.secret) });
			expect(next.headers['x-ratelimit-remaining']).toBe('1'); // the late one did not count here
		} finally {
			stop();
		}
	});

	test('html_body and empty_body: 502 like a proxy; times: 2', async () => {
		h.emu.control.injectFault({ path: '/v1/capabilities', action: 'html_body', times: 2 });
		for (let i = 0; i < 2; i++) {
			const res = await h.http.get('/capabilities');
			expect(res.status).toBe(502);
			expect(res.headers['content-type']).toContain('text/html');
			expect(String(res.data)).toContain('<html>');
		}
		h.emu.control.injectFault({ path: '/v1/capabilities', action: 'empty_body' });
		const empty = await h.http.get('/capabilities', { responseType: 'arraybuffer' });
		expect(empty.status).toBe(502);
		expect(Buffer.from(empty.data).length).toBe(0);
		expect((await h.http.get('/capabilities')).status).toBe(200);
	});

	test('watchJournal: each entry as it is recorded, with the client port and the Retry-After', async () => {
		const seen: Array<{ port: number | null; retryAfter: number | null; status: number }> = [];
		const stop = h.emu.control.watchJournal((e) =>
			seen.push({ port: e.remotePort, retryAfter: e.retryAfter, status: e.status }),
		);
		h.emu.control.setSettings({ ipLimit: { requests: 1, windowMs: 60_000 } });
		try {
			// the client's end of each connection, as the service saw it
			const portOf = (res: { request?: { socket?: { localPort?: number } } }) =>
				res.request?.socket?.localPort;
			const first = await h.http.get('/capabilities');
			expect(first.status).toBe(200);
			const limited = await h.http.get('/capabilities');
			expect(limited.status).toBe(429);
			stop();
			expect((await h.http.get('/capabilities')).status).toBe(429); // not watched any more
			expect(seen).toEqual([
				{ port: portOf(first), retryAfter: null, status: 200 },
				{ port: portOf(limited), retryAfter: Number(limited.headers['retry-after']), status: 429 },
			]);
			expect(portOf(first)).toEqual(expect.any(Number));
			const journal = h.emu.control.journal().slice(-3);
			expect(journal.map((e) => e.errorCode)).toEqual([null, 'ip_rate_limited', 'ip_rate_limited']);
			expect(journal[1].retryAfter).toBeGreaterThan(0);
		} finally {
			h.emu.control.setSettings({ ipLimit: null });
		}
	});

	test('watchArrivals: a request as it arrives, with its arrival violations, while an answer slower than the client is pending', async () => {
		const slow = h.emu.control.createKey({ requestsPerMinute: 1 });
		const me = (timeout = 0) => h.http.get('/me', { headers: bearer(slow.secret), timeout });
		expect((await me()).status).toBe(200);
		const limited = await me();
		expect(limited.status).toBe(429);
		const arrived: Array<{ port: number | null; violations: string[]; open: boolean }> = [];
		const recorded: string[][] = [];
		let clientPort: number | undefined;
		h.emu.control.injectFault({ path: '/v1/me', action: 'delay', delayMs: 1500 });
		h.clock.t += 2000; // past the grace of a request in flight, well before the end of Retry-After
		let clientGaveUp = false;
		const stopArrivals = h.emu.control.watchArrivals((a) => {
			if (a.keyId === slow.keyId)
				arrived.push({ port: a.remotePort, violations: a.violations, open: !clientGaveUp });
		});
		let journalled: () => void = () => undefined;
		const answered = new Promise<void>((resolve) => (journalled = resolve));
		const stopJournal = h.emu.control.watchJournal((e) => {
			if (e.keyId !== slow.keyId) return;
			recorded.push(e.violations);
			journalled();
		});
		try {
			// sent before the end of its Retry-After, answered after the client stopped waiting (300 ms)
			const early = me(300).catch((error: { request?: { socket?: { localPort?: number } } }) => {
				clientGaveUp = true;
				clientPort = error.request?.socket?.localPort;
				return undefined;
			});
			expect(await early).toBeUndefined();
			expect(arrived).toEqual([
				{
					port: expect.any(Number),
					violations: expect.arrayContaining(['retry_after_key']),
					open: true,
				},
			]);
			if (clientPort !== undefined) expect(arrived[0].port).toBe(clientPort);
			expect(recorded).toEqual([]); // the journal entry is not written yet: the answer is still delayed
			await answered; // 1.5 s after it arrived
			expect(arrived[0].violations).toContain('exhausted_window'); // counted at arrival too
			expect(recorded).toEqual([expect.arrayContaining(['retry_after_key', 'exhausted_window'])]);
		} finally {
			stopArrivals();
			stopJournal();
			h.emu.control.clearViolations();
		}
	});

	test('journal: first pages of the job list, with the unfinished jobs a 2xx page showed', async () => {
		h.emu.control.scriptJobs([{ queuedMs: 600_000, runningMs: 600_000 }]); // stays unfinished
		expect([200, 202]).toContain((await createJob(idem('journal-look'), 'journal look')).status);
		const list = (query: string) =>
			h.http.get(`/jobs${query}`, { headers: bearer(h.emu.keys.full) });
		expect((await list('?limit=100')).status).toBe(200);
		expect((await list('?limit=1&cursor=nope')).status).toBe(400);
		const [look, next] = h.emu.control.journal().slice(-2);
		expect(look).toMatchObject({ jobListLook: true, unfinishedListed: expect.any(Number) });
		expect(look.unfinishedListed).toBeGreaterThanOrEqual(1);
		expect(next).toMatchObject({ jobListLook: false, unfinishedListed: null });
	});

	test('clearFaults removes pending faults', async () => {
		h.emu.control.injectFault({ path: '/v1/me', action: 'error_500_before_commit', times: 5 });
		expect(h.emu.control.faults()).toHaveLength(1);
		h.emu.control.clearFaults();
		expect((await h.http.get('/me', { headers: bearer(h.emu.keys.full) })).status).toBe(200);
	});
});

describe('emulator: ledger invariant after a mixed run', () => {
	test('successes, failures and releases keep available + reserved + spent + revoked = granted + debt', async () => {
		const h = await boot({ jobTiming: { queuedMs: 500, runningMs: 1000 }, chargeRatio: 0.55 });
		try {
			h.emu.control.scriptJobs([
				{},
				{ outcome: 'failed' },
				{ chargeRatio: 1 },
				{ outcome: 'failed', runningMs: 5000 },
			]);
			const full = h.emu.keys.full;
			const ids: string[] = [];
			for (const duration of [5, 10, 12, 30, 7]) {
				const res = await h.http.post(
					'/jobs',
					JSON.stringify({
						mode: 'text_to_video',
						prompt: `d${duration}`,
						durationSeconds: duration,
					}),
					{
						headers: {
							...bearer(full),
							'Content-Type': 'application/json',
							'Idempotency-Key': idem(),
						},
					},
				);
				expect(res.status).toBe(202);
				ids.push(responses.job.parse(res.data).data.id);
				h.clock.t += 300;
			}
			const mid = responses.balance.parse(
				(await h.http.get('/balance', { headers: bearer(full) })).data,
			).data;
			expect(mid.reserved).toBeGreaterThan(0);
			expect(h.emu.control.ledger().invariantHolds).toBe(true);
			h.clock.t += 10_000;
			const jobs = await Promise.all(
				ids.map(
					async (id) =>
						responses.job.parse((await h.http.get(`/jobs/${id}`, { headers: bearer(full) })).data)
							.data,
				),
			);
			expect(jobs.map((j) => j.state)).toEqual([
				'succeeded',
				'failed',
				'succeeded',
				'failed',
				'succeeded',
			]);
			expect(jobs.map((j) => j.chargedCredits)).toEqual([5, 0, 24, 0, 9]);
			const { balance, entries, invariantHolds } = h.emu.control.ledger();
			expect(invariantHolds).toBe(true);
			expect(balance).toMatchObject({ reserved: 0, spent: 38, available: 1000 - 38 });
			expect(balance.available + balance.reserved + balance.spent + balance.revoked).toBe(
				balance.granted + balance.debt,
			);
			expect(new Set(entries.map((e) => e.kind))).toEqual(
				new Set(['grant', 'reserve', 'settle', 'release']),
			);
			const usage = responses.usage.parse(
				(await h.http.get('/usage', { headers: bearer(full), params: { limit: 100 } })).data,
			).data;
			expect(usage.items).toHaveLength(entries.length);
			expect(usage.items.map((e) => e.createdAt)).toEqual(
				[...usage.items.map((e) => e.createdAt)].sort((a, b) => b - a),
			);
		} finally {
			await h.emu.close();
		}
	});
});

describe('emulator: upload limits', () => {
	test('429 upload_rate_limit after 20 uploads per hour; replays do not count; 413 asset_too_large on quota', async () => {
		const h = await boot();
		try {
			const full = h.emu.keys.full;
			const key = idem('first');
			for (let i = 0; i < 20; i++) {
				const bytes = Buffer.concat([jpeg, Buffer.from(`#${i}`)]);
				expect(
					(await upload(h, full, bytes, 'image/jpeg', `f${i}.jpg`, i === 0 ? key : idem())).status,
				).toBe(201);
				h.clock.t += 1000;
			}
			const replay = await upload(
				h,
				full,
				Buffer.concat([jpeg, Buffer.from('#0')]),
				'image/jpeg',
				'f0.jpg',
				key,
			);
			expect(replay.status).toBe(200);
			const limited = await upload(h, full, jpeg, 'image/jpeg');
			expectError(limited, 429, 'upload_rate_limit');
			expect(Number(limited.headers['retry-after'])).toBe(3600 - 20);
			h.clock.t += 3600_000;
			for (let n = 0; n < 80; n++) {
				if (n % 20 === 0) h.clock.t += 3600_000;
				const res = await upload(
					h,
					full,
					Buffer.concat([jpeg, Buffer.from(`@${n}`)]),
					'image/jpeg',
				);
				const list = responses.assetList.parse(
					(await h.http.get('/assets', { headers: bearer(full), params: { limit: 1 } })).data,
				).data;
				if (list.quota.usedAssets > 100) throw new Error('quota exceeded');
				if (res.status !== 201) {
					expectError(res, 413, 'asset_too_large');
					expect(list.quota.usedAssets).toBe(100);
					return;
				}
			}
			throw new Error('quota never reached');
		} finally {
			await h.emu.close();
		}
	});
});

describe('emulator: HTTP control routes and snapshots', () => {
	test('/_control routes drive the emulator; snapshot restores state and seeded keys', async () => {
		const h = await boot();
		try {
			const control = axios.create({
				baseURL: `${h.emu.origin}/_control`,
				validateStatus: () => true,
			});
			expect((await control.post('/engine', { available: false, reason: 'offline' })).status).toBe(
				200,
			);
			expect(
				responses.capabilities.parse((await h.http.get('/capabilities')).data).data.generation
					.available,
			).toBe(false);
			await control.post('/engine', { available: true });
			await control.post('/credits', { amount: 50 });
			const created = (await control.post('/keys', { scopes: ['balance:read'] })).data.data as {
				keyId: string;
				secret: string;
			};
			expect(
				(await h.http.get('/balance', { headers: bearer(created.secret) })).data.data.granted,
			).toBe(1050);
			await control.post('/keys/revoke', { key: created.keyId });
			expectError(
				await h.http.get('/balance', { headers: bearer(created.secret) }),
				401,
				'invalid_api_key',
			);
			await control.post('/faults', { pathRegex: '^/v1/me$', action: 'error_500_before_commit' });
			expectError(
				await h.http.get('/me', { headers: bearer(h.emu.keys.full) }),
				500,
				'internal_error',
			);
			await control.post('/freeze', { frozen: true });
			expect((await control.get('/ledger')).data.data.balance.frozen).toBe(true);
			await control.post('/freeze', { frozen: false });
			await control.post('/jobs/script', { scripts: [{ outcome: 'failed' }] });
			await h.http.post('/jobs', JSON.stringify({ mode: 'text_to_video', prompt: 'x' }), {
				headers: {
					...bearer(h.emu.keys.full),
					'Content-Type': 'application/json',
					'Idempotency-Key': idem(),
				},
			});
			expect((await control.get('/jobs')).data.data[0].state).toBe('failed');
			expect((await control.get('/journal')).data.data.length).toBeGreaterThan(0);
			expect((await control.get('/assets')).data.data.length).toBe(3);
			expect((await control.post('/keys/revoke', { key: 'nope' })).status).toBe(400);

			const snapshot = JSON.parse(JSON.stringify(h.emu.control.snapshot()));
			const restored = await startEmulator({ port: 0, state: snapshot });
			try {
				const res = await axios.get(`${restored.baseUrl}/balance`, {
					headers: bearer(restored.keys.full),
				});
				expect(res.data.data.granted).toBe(1050);
				expect(restored.control.jobs()).toHaveLength(1);
			} finally {
				await restored.close();
			}
		} finally {
			await h.emu.close();
		}
	});
});
