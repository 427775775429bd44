/**
 * Many n8n processes on one key (queue-mode workers): each has its own pacer (pacing.ts), and they learn
 * of each other only from the rate headers. Here N pacers stand for N worker processes, each with its own
 * holds, sending as fast as its pacer lets it (more than the key allows: the worst case) against the
 * emulator over real HTTP, on the virtual clock. The service sees one key: it must give no 429 and see no
 * request inside a Retry-After, while the processes together still use nearly all of the key's windows.
 */
import type { SharedHolds } from '../../nodes/shared/service/pacing';
import { KeyPacer } from '../../nodes/shared/service/pacing';
import type { ServiceErrorInfo } from '../../nodes/shared/service/errors';
import { startEmulated } from '../helpers/emulated';
import { testClock } from '../helpers/serviceClock';
import { record } from './metrics';

/** Requests per window of the key, and the emulator's window (virtual ms). */
const LIMIT = 120;
const WINDOW_MS = 60_000;
/** Whole windows each run lasts; the first and last are left out of the usage figure (start, stop). */
const WINDOWS = 6;

/** A small seeded generator (mulberry32): the processes' jitter differs, the same on every run. */
function seeded(seed: number): () => number {
	let a = seed >>> 0;
	return () => {
		a = (a + 0x6d2b79f5) >>> 0;
		let t = a;
		t = Math.imul(t ^ (t >>> 15), t | 1);
		t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
		return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
	};
}

interface RunFigures {
	processes: number;
	sent: number;
	tooMany: number;
	/** When in its window (ms after its start) each 429 was given. */
	tooManyAt: number[];
	/** Requests the service counted in the whole windows between the first and the last, ÷ their limit. */
	usage: number;
	violations: Record<string, number>;
}

async function runProcesses(processes: number, seed: number): Promise<RunFigures> {
	const emulated = await startEmulated({ rateWindowMs: WINDOW_MS, requestsPerMinute: LIMIT });
	const { emu, credentials } = emulated;
	testClock.setRandom(seeded(seed));
	// the run starts on a window's start, so whole windows can be counted
	const start = Math.ceil(emulated.clock.state.now / WINDOW_MS) * WINDOW_MS;
	await testClock.sleep(start - emulated.clock.state.now);
	const end = start + WINDOWS * WINDOW_MS;
	let sent = 0;
	const worker = async (index: number) => {
		const shared: SharedHolds = { ipBlocks: new Map(), refusals: new Map() };
		const pacer = new KeyPacer(shared, `process-${index}`, credentials.baseUrl);
		// processes start a little apart, as workers picking up executions do
		await testClock.sleep(index * 137);
		while (emulated.clock.state.now < end) {
			const ticket = await pacer.acquire({ priority: 'normal', upload: false, maxWaitMs: 120_000 });
			sent++;

			const response = await testClock.whileBusy(
				async () =>
					await fetch(`${credentials.baseUrl}/balance`, {
						headers: { Authorization: `Bearer ${credentials.apiKey}` },
					}),
			);
			await response.arrayBuffer();
			const headers = Object.fromEntries(response.headers.entries());
			pacer.settle(ticket, headers);
			if (response.status === 429) {
				const info: ServiceErrorInfo = {
					httpCode: 429,
					code: 'rate_limited',
					serviceMessage: '',
					requestId: headers['x-request-id'] ?? null,
				};
				pacer.slowDown(info, Number(headers['retry-after']));
			}
		}
	};
	await Promise.all(Array.from({ length: processes }, (_, i) => worker(i)));
	const journal = emu.control.journal().filter((e) => e.path === '/v1/balance');
	const counted = journal.filter(
		(e) => e.status === 200 && e.at >= start + WINDOW_MS && e.at < end - WINDOW_MS,
	).length;
	const figures: RunFigures = {
		processes,
		sent,
		tooMany: journal.filter((e) => e.status === 429).length,
		tooManyAt: journal.filter((e) => e.status === 429).map((e) => (e.at - start) % WINDOW_MS),
		usage: counted / (LIMIT * (WINDOWS - 2)),
		violations: Object.fromEntries(
			Object.entries(emu.control.violationCounts()).filter(([, n]) => n > 0),
		),
	};
	record('sharedKey', { ...figures });
	emulated.expectViolations(figures.violations);
	await emulated.close();
	return figures;
}

/** Each count runs with these seeds of the processes' jitter: a figure that holds on one seed only is luck. */
const SEEDS = [7, 100, 2000];

describe('one key, many worker processes', () => {
	afterEach(() => testClock.setRandom(() => 0.5));

	// recorded for the reliability report (GS_RELIABILITY_OUT): the suite counts them. 4 processes reach the
	// 95 % goal since the tail of a shared window is split by shares (pacing.ts tailAllowance: 95.8-96.0 %);
	// before, each held the tail for the others' expected requests while they held it for its own
	// (93.3-94.0 %, and this test failed with the bound at 95).
	const noTooMany = [2, 4].flatMap((processes) =>
		SEEDS.map((seed) => [processes, seed, 95] as const),
	);
	it.each(noTooMany)(
		'%i processes sending all they can (seed %i): no 429, no request inside a Retry-After, ≥ %i %% of the key used',
		async (processes, seed, minPercent) => {
			const figures = await runProcesses(processes, seed);
			expect(figures.tooMany).toBe(0);
			expect(figures.violations).toEqual({});
			expect(figures.usage).toBeGreaterThanOrEqual(minPercent / 100);
		},
		120_000,
	);

	// The goal (0 × 429, ≥ 95 %) is missed with 8: the share an alone process leaves for newcomers
	// (PACING.aloneReserveShare, 6 of 120) is smaller than 7 processes starting at once, so the last one's
	// first request finds the window used up; and 8 processes with views a spacing old stop early, each
	// allowing for what the others may have sent since its last answer. Bounds, so a regression shows.
	it.each(SEEDS)(
		'8 processes sending all they can (seed %i): at most 2 × 429 (a first request, a window tail), ≥ 90 %% of the key used',
		async (seed) => {
			const figures = await runProcesses(8, seed);
			expect(figures.tooMany).toBeLessThanOrEqual(2);
			expect(Object.values(figures.violations).reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(4);
			expect(figures.usage).toBeGreaterThanOrEqual(0.9);
		},
		120_000,
	);
});
