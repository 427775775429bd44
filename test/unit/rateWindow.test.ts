/**
 * The rate window's allowance for other processes on a shared key (RateWindow.foreignSince): what they are
 * expected to have sent since this process last saw the key's Remaining. Direct, on the manual clock.
 */
import { RateWindow } from '../../nodes/shared/service/rateWindow';
import { testClock } from '../helpers/serviceClock';

const LIMIT = 120;
const headers = (remaining: number, resetMs: number) => ({
	'x-ratelimit-limit': String(LIMIT),
	'x-ratelimit-remaining': String(remaining),
	'x-ratelimit-reset': String(resetMs / 1000),
});

afterEach(() => testClock.useAuto());

it('a burst of another process seen between two answers 1 ms apart never holds this process back for good', () => {
	testClock.useManual(Date.UTC(2026, 10, 28, 12, 0, 0));
	const start = Date.UTC(2026, 10, 28, 12, 0, 0);
	const reset = start + 60_000;
	const rate = new RateWindow();
	const none = new Set<number>();
	testClock.advance(10_000);
	rate.observe(1, headers(100, reset), none); // 20 counted: 19 of another process
	testClock.advance(1);
	rate.observe(2, headers(10, reset), none); // 89 more of theirs within 1 ms: a burst
	// the next window: this process assumes it full and may send, allowing for the others at most the key's
	// whole budget spread over the window (2 requests a second), not the burst's pace (89 a millisecond)
	testClock.advance(60_000 - 10_001 + 1_000);
	const now = start + 61_000;
	const window = rate.current(now, 0);
	expect(window?.resetAt).toBe(reset + 60_000);
	expect(rate.foreignSince(now)).toBeLessThanOrEqual((LIMIT / 60_000) * 1_000);
	expect((window?.remaining ?? 0) - rate.foreignSince(now)).toBeGreaterThan(100);
});

it("a process's share of the key's requests: its own over all the service counted, the lesser of this window's and the last one's", () => {
	testClock.useManual(Date.UTC(2026, 10, 29, 12, 0, 0));
	const start = Date.UTC(2026, 10, 29, 12, 0, 0);
	const reset = start + 60_000;
	const rate = new RateWindow();
	const none = new Set<number>();
	expect(rate.share()).toBe(1); // nobody else seen
	testClock.advance(10_000);
	rate.observe(1, headers(LIMIT - 4, reset), none); // 4 counted: 1 of ours, 3 of theirs
	expect(rate.share()).toBeCloseTo(1 / 4);
	rate.observe(2, headers(LIMIT - 6, reset), none); // 6 counted: 2 of ours
	expect(rate.share()).toBeCloseTo(2 / 6);
	// the next window's first answer comes before the others' first requests are counted: 1 of 1, but the
	// share stays the last window's until this one shows more
	testClock.advance(60_000);
	rate.observe(3, headers(LIMIT - 1, reset + 60_000), none);
	expect(rate.share()).toBeCloseTo(2 / 6);
	rate.observe(4, headers(LIMIT - 8, reset + 60_000), none); // 8 counted: 2 of ours
	expect(rate.share()).toBeCloseTo(2 / 8);
});
