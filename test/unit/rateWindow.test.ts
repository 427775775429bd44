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
