/**
 * The package's clock during jest runs: jest.config.js maps nodes/shared/transport/serviceClock to
 * this file, so the shipped code has no way to change its clock. Virtual time runs `speed` times
 * faster than real time (sleeps are real sleeps of ms / speed): concurrent waits keep their real
 * order, and the emulator shares the same clock (its rate windows, job progress and referee).
 */
import { sleep as realSleep } from 'n8n-workflow';

const DEFAULT_START = Date.UTC(2026, 10, 22, 12, 0, 0);

const state = {
	/** Scaled: virtual time runs `speed` × real time. Manual: it moves only when told (or slept). */
	manual: false,
	manualNow: DEFAULT_START,
	speed: 1000,
	virtualStart: DEFAULT_START,
	realStart: Date.now(),
	random: (): number => 0.5,
};

export const clock = {
	now: (): number =>
		state.manual
			? state.manualNow
			: state.virtualStart + (Date.now() - state.realStart) * state.speed,
	random: (): number => state.random(),
	sleep: async (ms: number, signal?: AbortSignal): Promise<void> => {
		if (signal?.aborted) throw new Error('aborted');
		if (state.manual) {
			// sequential code only: a sleep jumps time forward, after letting other work run
			await realSleep(0, signal);
			state.manualNow += Math.max(0, ms);
			return;
		}
		await realSleep(Math.max(0, ms) / state.speed, signal);
	},
};

/** Controls for tests. */
export const testClock = {
	/** Virtual time starts at `startMs` now and runs `speed` × real time. */
	use(speed: number, startMs = DEFAULT_START): void {
		state.manual = false;
		state.speed = speed;
		state.virtualStart = startMs;
		state.realStart = Date.now();
	},
	/**
	 * Time moves only with advance() or a sleep (which jumps by its length): for tests that step
	 * precisely across boundaries and run no concurrent waits.
	 */
	useManual(startMs = DEFAULT_START): void {
		state.manual = true;
		state.manualNow = startMs;
	},
	advance(ms: number): void {
		if (!state.manual) throw new Error('advance() needs useManual()');
		state.manualNow += ms;
	},
	get speed(): number {
		return state.speed;
	},
	/** Jitter source of the pacer (default: always 0.5). */
	setRandom(random: () => number): void {
		state.random = random;
	},
	/** Waits `ms` of virtual time. */
	async sleep(ms: number): Promise<void> {
		await clock.sleep(ms);
	},
};
