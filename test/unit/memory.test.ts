/**
 * The process-wide state stays bounded over a long life (issue 23, point 2): thousands of keys and
 * thousands of jobs pass through one process, through n8n-core's real contexts against nock on the
 * virtual clock. Pacers stay under their cap and an idle key's pacer is forgotten after its window,
 * while a busy one is kept and its hold honoured; a refused key stays refused; job answers past their
 * reuse age are dropped and the rest stay under their cap; recent-jobs views, job durations and
 * capabilities answers stay under theirs.
 */
import { createHash } from 'crypto';
import nock from 'nock';
import type { IExecuteFunctions } from 'n8n-workflow';

import type { Job } from '../../nodes/shared/jobs/job';
import type { JobRun } from '../../nodes/shared/jobs/run';
import {
	CAPABILITIES_MEMORY,
	ensureGenerationAvailable,
	processCapabilities,
} from '../../nodes/shared/jobs/create';
import {
	ESTIMATE_MEMORY,
	JOB_READS_MEMORY,
	RECENT_JOBS_MEMORY,
	noteFinished,
	noteListLook,
	processDurations,
	processJobReads,
	processRecentJobs,
	recentSince,
	rememberJobs,
} from '../../nodes/shared/jobs/known';
import { readJob } from '../../nodes/shared/jobs/watch';
import type { Page } from '../../nodes/shared/service/client';
import { apiRequest } from '../../nodes/shared/service/client';
import { PACING, PACING_MEMORY, pacerFor, processPacing } from '../../nodes/shared/service/pacing';
import { TEST_KEY, runNode } from '../helpers/n8n';
import { useNock } from '../helpers/nock';
import { probeNode } from '../helpers/probe-node';
import { testClock } from '../helpers/serviceClock';

const BASE = 'https://api.gen.test/v1';
const ok = (data: unknown): Record<string, unknown> => ({ data });

const mocked = useNock();
const now = () => mocked.clock.state.now;

/** The n-th API key of the test (a valid key format, one per number). */
const keyOf = (n: number) =>
	`svc_sk_key_${n.toString(16).padStart(32, '0')}.${'feedbead'.repeat(8)}`;

/** The pacer's key in processPacing for an API key (as transport/service derives it). */
const serviceKeyOf = (apiKey: string) =>
	`${createHash('sha256').update(apiKey).digest('hex').slice(0, 16)}@${BASE}`;

/** Seconds (Unix) of the end of the minute that holds `ms`. */
const windowEnd = (ms: number) => (Math.floor(ms / 60_000) + 1) * 60;

const rate = (remaining: number, reset: number) => ({
	'X-RateLimit-Limit': '60',
	'X-RateLimit-Remaining': String(remaining),
	'X-RateLimit-Reset': String(reset),
});

async function call(
	fn: (this: IExecuteFunctions) => Promise<unknown>,
	apiKey = TEST_KEY,
): Promise<unknown> {
	const [[item]] = await runNode({
		node: probeNode(fn),
		parameters: {},
		credentials: { apiKey, baseUrl: BASE },
	});
	return item.json;
}

const getMe = async function (this: IExecuteFunctions) {
	return await apiRequest(this, { method: 'GET', path: '/me', maxWaitSeconds: 900 });
};

/** Answers `times` GET /me of any key with a fresh window. */
function answerMe(times: number) {
	return nock(BASE)
		.get('/me')
		.times(times)
		.reply(() => [200, ok({}), rate(59, windowEnd(now()))]);
}

/**
 * One request of the n-th key as sendRequest makes it (the pacer of its key lets it leave, then learns
 * the answer's window), without the HTTP: n8n's request helper costs ~20 ms per request on this machine,
 * too much for thousands of keys. The requests that matter to each claim go through runNode and nock.
 */
async function useKey(n: number): Promise<void> {
	const pacer = pacerFor(serviceKeyOf(keyOf(n)), BASE);
	const ticket = await pacer.acquire({ priority: 'normal', upload: false, maxWaitMs: 60_000 });
	// header names as n8n's helper gives them (lower case)
	const headers = Object.entries(rate(59, windowEnd(now())));
	pacer.settle(ticket, Object.fromEntries(headers.map(([k, v]) => [k.toLowerCase(), v])));
}

/** Waits on the virtual clock until `cond` holds; fails clearly after `maxVirtualMs` instead of hanging. */
async function until(cond: () => boolean, what: string, maxVirtualMs = 10_000): Promise<void> {
	const start = now();
	while (!cond()) {
		if (now() - start > maxVirtualMs) throw new Error(`Still waiting for: ${what}`);
		await testClock.sleep(20);
	}
}

describe('pacers: bounded, idle keys forgotten', () => {
	it('thousands of keys: never above the cap; a busy key keeps its pacer and its hold', async () => {
		const keys = 3000;
		const busyKey = keyOf(1_000_001);
		let toldBusy = 0;
		let busyArrival = 0;
		nock(BASE)
			.get('/me')
			.matchHeader('authorization', `Bearer ${busyKey}`)
			.reply(() => {
				toldBusy = now();
				return [429, { error: { code: 'rate_limited', message: 'x' } }, { 'Retry-After': '600' }];
			})
			.get('/me')
			.matchHeader('authorization', `Bearer ${busyKey}`)
			.reply(() => {
				busyArrival = now();
				return [200, ok({}), rate(59, windowEnd(now()))];
			});

		// the busy key waits out a 10-minute Retry-After while thousands of other keys come and go
		const busy = call(getMe, busyKey);
		await until(() => toldBusy > 0, 'the 429 of the busy key');
		const busyPacer = processPacing.pacers.get(serviceKeyOf(busyKey));
		expect(busyPacer).toBeDefined();

		let largest = 0;
		for (let n = 0; n < keys; n++) {
			await useKey(n);
			largest = Math.max(largest, processPacing.pacers.size);
			// the first half at one instant (the cap bounds them), then 100 keys every 10 s (sweeps do)
			if (n >= keys / 2 && n % 100 === 99) await testClock.sleep(10_000);
			// the busy key's pacer is the same one all along, still holding its waiter
			if (n % 500 === 0) {
				expect(processPacing.pacers.get(serviceKeyOf(busyKey)) === busyPacer).toBe(true);
			}
		}
		expect(largest).toBe(PACING_MEMORY.maxPacers);
		expect(processPacing.pacers.size).toBeLessThan(PACING_MEMORY.maxPacers);
		// the busy key kept its hold: its request left only after the Retry-After
		await busy;
		expect(busyArrival - toldBusy).toBeGreaterThanOrEqual(600_000);
		// once idle past its window, a sweep forgets it like the others
		await testClock.sleep(2 * PACING.defaultWindowMs + PACING_MEMORY.sweepEveryMs);
		await useKey(0);
		expect(processPacing.pacers.has(serviceKeyOf(busyKey))).toBe(false);
		expect([...processPacing.pacers.keys()]).toEqual([serviceKeyOf(keyOf(0))]);
		expect(nock.isDone()).toBe(true);
	});

	it('an idle key keeps its pacer inside its rate window and is forgotten after it', async () => {
		const adds = PACING_MEMORY.sweepEveryAdds;
		answerMe(1);
		await call(getMe, keyOf(1));
		const pacer = processPacing.pacers.get(serviceKeyOf(keyOf(1)));
		expect(pacer).toBeDefined();
		// 30 s later, enough new keys for a sweep: key 1 is inside its window (what it learned applies)
		await testClock.sleep(30_000);
		for (let n = 0; n < adds; n++) await useKey(100 + n);
		await useKey(99_999); // the sweep runs on the next look-up
		expect(processPacing.pacers.get(serviceKeyOf(keyOf(1))) === pacer).toBe(true);
		// past its window's end and idle for a whole window: the next sweep forgets it
		await testClock.sleep(35_000);
		for (let n = 0; n < adds; n++) await useKey(200 + n);
		expect(processPacing.pacers.has(serviceKeyOf(keyOf(1)))).toBe(false);
		expect(nock.isDone()).toBe(true);
	});

	it('a refused key stays refused while thousands of keys pass and hours go by; refusals are capped', async () => {
		const refused = keyOf(2_000_000);
		nock(BASE)
			.get('/me')
			.matchHeader('authorization', `Bearer ${refused}`)
			.reply(401, { error: { code: 'invalid_api_key', message: 'x' }, requestId: 'req_401' });
		const cap = PACING_MEMORY.maxRefusals;
		PACING_MEMORY.maxRefusals = 100;
		try {
			// more refused keys than the cap: the oldest refusals go, the count stays bounded
			const others = 250;
			nock(BASE)
				.get('/me')
				.times(others)
				.reply(401, { error: { code: 'invalid_api_key', message: 'x' }, requestId: 'req_other' });
			await expect(call(getMe, refused)).rejects.toThrow();
			for (let n = 0; n < others; n++) {
				await expect(call(getMe, keyOf(3_000_000 + n))).rejects.toThrow();
				expect(processPacing.refusals.size).toBeLessThanOrEqual(100);
			}
		} finally {
			PACING_MEMORY.maxRefusals = cap;
		}
		// the first refused key was pushed out by the cap above: refuse it again, then churn with good keys
		nock(BASE)
			.get('/me')
			.matchHeader('authorization', `Bearer ${refused}`)
			.reply(401, { error: { code: 'invalid_api_key', message: 'x' }, requestId: 'req_401b' });
		await expect(call(getMe, refused)).rejects.toThrow();
		const keys = 5000;
		for (let n = 0; n < keys; n++) {
			await useKey(n);
			if (n % 100 === 99) await testClock.sleep(6 * 60_000); // 5 hours in all
		}
		expect(processPacing.pacers.has(serviceKeyOf(refused))).toBe(false);
		// nothing more is sent with it (nock has no answer left for it): refused at once, naming the 401
		const error = (await call(getMe, refused).catch((e: Error) => e)) as Error;
		expect(error.message).toContain(
			'Not sent: the service already refused this API key in request req_401b',
		);
		expect(nock.isDone()).toBe(true);
	});
});

describe('job reads: bounded, answers past their reuse age dropped', () => {
	/** A page of `count` jobs numbered from `first`, all in `state`. */
	function jobs(first: number, count: number, state: Job['state']): Job[] {
		return Array.from({ length: count }, (_, i) => ({
			id: `job_${(first + i).toString(16).padStart(32, '0')}`,
			state,
			reservedCredits: 8,
			chargedCredits: state === 'succeeded' ? 8 : 0,
			output: null,
			outputUrl: null,
			errorCode: null,
			createdAt: now(),
			updatedAt: now(),
		}));
	}

	/** GET /jobs answered with pages of 100 jobs, `state` for all, numbered on from `first`. */
	function listPages(pages: number, state: Job['state'], first = 0) {
		let page = 0;
		nock(BASE)
			.get('/jobs')
			.query(true)
			.times(pages)
			.reply(() => [200, ok({ items: jobs(first + 100 * page++, 100, state), nextCursor: null })]);
	}

	const listed = (ctx: IExecuteFunctions) =>
		apiRequest<Page<Job>>(ctx, {
			method: 'GET',
			path: '/jobs',
			qs: { limit: 100 },
			priority: 'poll',
		});

	/** Lists `pages` pages 10 s apart, remembering each; returns the most job answers kept at once. */
	async function rememberEachPage(ctx: IExecuteFunctions, pages: number): Promise<number> {
		let largest = 0;
		for (let p = 0; p < pages; p++) {
			await rememberJobs(ctx, (await listed(ctx)).items);
			largest = Math.max(largest, processJobReads.answers.size);
			await testClock.sleep(10_000);
		}
		return largest;
	}

	it('thousands of unfinished jobs: answers older than 5 s are dropped as new ones arrive', async () => {
		const pages = 60; // 6000 jobs, one page every 10 s
		listPages(pages, 'running');
		let largest = 0;
		await call(async function () {
			largest = await rememberEachPage(this, pages);
			return {};
		});
		// at most one sweep's worth of answers plus the page that arrived since
		expect(largest).toBeLessThanOrEqual(JOB_READS_MEMORY.sweepEveryAdds + 100);
		expect(processJobReads.pending.size).toBe(0);
	});

	it('thousands of finished jobs: kept for reuse up to the cap, the least recent go first', async () => {
		const pages = 70; // 7000 finished jobs
		listPages(pages, 'succeeded');
		let largest = 0;
		await call(async function () {
			largest = await rememberEachPage(this, pages);
			// the newest finished job is reused without a request (nock has no answer for it)
			const [newest] = jobs(100 * (pages - 1), 1, 'succeeded');
			return { state: (await readJob(this, newest.id, {})).state };
		});
		expect(largest).toBe(JOB_READS_MEMORY.maxAnswers);
		expect(nock.isDone()).toBe(true);
	});

	it('an unfinished job read again after its reuse age is read from the service', async () => {
		const [job] = jobs(42, 1, 'running');
		let reads = 0;
		nock(BASE)
			.get(`/jobs/${job.id}`)
			.times(2)
			.reply(() => {
				reads++;
				return [200, ok({ ...job, state: reads === 2 ? 'succeeded' : 'running' })];
			});
		await call(async function () {
			await readJob(this, job.id, {});
			await readJob(this, job.id, {}); // within 5 s: the same answer
			expect(reads).toBe(1);
			await testClock.sleep(5_000);
			expect((await readJob(this, job.id, {})).state).toBe('succeeded');
			return {};
		});
		expect(reads).toBe(2);
	});
});

describe('recent-jobs views, job durations and capabilities: bounded', () => {
	const job = (n: number, state: Job['state'], createdAt: number, ms = 10_000): Job => ({
		id: `job_${n.toString(16).padStart(32, '0')}`,
		state,
		input: { mode: 'text_to_video', durationSeconds: 5 },
		reservedCredits: 8,
		chargedCredits: 0,
		output: null,
		outputUrl: null,
		errorCode: null,
		createdAt,
		updatedAt: createdAt + ms,
	});

	it('views: at most maxViews keys (the least recently used go), each at most maxJobs jobs', () => {
		const keys = RECENT_JOBS_MEMORY.maxViews + 50;
		for (let k = 0; k < keys; k++) {
			noteListLook(`key${k}`, { sentAt: now(), answeredAt: now(), jobs: [], reachedEnd: true });
		}
		expect(processRecentJobs.views.size).toBe(RECENT_JOBS_MEMORY.maxViews);
		expect(processRecentJobs.views.has('key0')).toBe(false);
		expect(processRecentJobs.views.has(`key${keys - 1}`)).toBe(true);
		// a look that listed more jobs than a view keeps: the oldest go, and the view no longer claims them
		const listed = Array.from({ length: 1500 }, (_, n) => job(n, 'queued', now() - n * 1000));
		noteListLook('busy', { sentAt: now(), answeredAt: now(), jobs: listed, reachedEnd: true });
		const view = processRecentJobs.views.get('busy')!;
		expect(view.jobs.size).toBe(RECENT_JOBS_MEMORY.maxJobs);
		expect(recentSince('busy', now() - 1400 * 1000, now())).toBeUndefined();
		expect(recentSince('busy', now() - 900 * 1000, now())).toHaveLength(901);
	});

	it('durations: at most maxKeys keys, maxKinds kinds, the samples of the jobs that ended last', () => {
		for (let k = 0; k < ESTIMATE_MEMORY.maxKeys + 20; k++) {
			noteFinished(`key${k}`, [job(k, 'succeeded', now())]);
		}
		expect(processDurations.byKey.size).toBe(ESTIMATE_MEMORY.maxKeys);
		const kinds = Array.from({ length: ESTIMATE_MEMORY.maxKinds + 20 }, (_, n) => ({
			...job(n, 'succeeded', now()),
			input: { mode: 'text_to_video', durationSeconds: n },
		}));
		noteFinished('kinds', kinds);
		expect(processDurations.byKey.get('kinds')!.size).toBe(ESTIMATE_MEMORY.maxKinds);
		// 50 jobs of one kind seen newest first (as a list shows them): the 20 that ended last are kept
		const many = Array.from({ length: 50 }, (_, n) =>
			job(n, 'succeeded', now() - n * 60_000, 1000 + n),
		);
		noteFinished('one kind', many);
		const samples = processDurations.byKey.get('one kind')!.get('text_to_video|5')!;
		expect(samples.size).toBe(ESTIMATE_MEMORY.samples);
		expect([...samples.keys()].sort()).toEqual(
			many
				.slice(0, ESTIMATE_MEMORY.samples)
				.map((j) => j.id)
				.sort(),
		);
	});

	it('capabilities: at most maxKeys answers (the least recently used go)', async () => {
		const max = CAPABILITIES_MEMORY.maxKeys;
		CAPABILITIES_MEMORY.maxKeys = 3;
		try {
			nock(BASE)
				.get('/capabilities')
				.times(5)
				.reply(200, ok({ generation: { available: true, modes: ['text_to_video'] } }));
			for (let n = 1; n <= 5; n++) {
				await call(async function () {
					return await ensureGenerationAvailable(
						this,
						'text_to_video',
						undefined as unknown as JobRun,
						0,
					);
				}, keyOf(n));
			}
			expect(processCapabilities.answers.size).toBe(3);
			expect(processCapabilities.pending.size).toBe(0);
			expect(nock.isDone()).toBe(true);
		} finally {
			CAPABILITIES_MEMORY.maxKeys = max;
		}
	});
});
