/**
 * The package's clock during jest runs: jest.config.js maps nodes/shared/service/clock.ts to
 * this file, so the shipped code has no way to change its clock. The emulator shares the same clock (its
 * rate windows, job progress and referee). Three ways for time to move:
 *
 * - `auto` (the default of the emulator and nock helpers): a discrete-event clock. Time stands still while
 *   anything is still to happen now — a request of the node on its way or being answered, work woken by
 *   the last step — and jumps to the next sleep's end once everything left waits on the clock. How busy
 *   the machine is changes how long a test takes in real time, never what it sees in virtual time.
 * - `scaled`: virtual time runs `speed` times faster than real time (sleeps are real sleeps of ms / speed).
 * - `manual`: time moves only with advance() or a sleep, which jumps by its length (sequential code only).
 */
import { sleep as realSleep } from 'n8n-workflow';

const DEFAULT_START = Date.UTC(2026, 10, 22, 12, 0, 0);

interface Sleeper {
	at: number;
	seq: number;
	resolve: () => void;
}

type Mode = 'auto' | 'scaled' | 'manual';

const state = {
	mode: 'auto' as Mode,
	manualNow: DEFAULT_START,
	speed: 1000,
	virtualStart: DEFAULT_START,
	realStart: Date.now(),
	random: (): number => 0.5,
	/** auto: sleeps not yet over, and the steps that run now (requests on their way, in seq order). */
	sleepers: new Set<Sleeper>(),
	seq: 0,
	/** auto: requests of the node being sent or answered; those held on purpose by the service sleep. */
	inFlight: 0,
	heldByService: 0,
	ticking: false,
	/** A new test's clock: counts of an earlier test's requests that end late are not taken. */
	generation: 0,
};

/** One turn of the event loop (a zero-length timer: pending I/O callbacks and microtasks run first). */
const turn = async (): Promise<void> => await realSleep(0);

/**
 * Everything runnable has run: a few event-loop turns with no request on its way. A request counts from
 * the moment the node calls n8n's helper until its answer (or error) is back, so work on loopback never
 * lets time jump; a service answer held on purpose (a delay fault) is itself a sleep on this clock.
 */
async function settled(): Promise<boolean> {
	for (let i = 0; i < 4; i++) {
		await turn();
		if (state.inFlight > state.heldByService) return false;
	}
	await realSleep(1);
	return state.inFlight <= state.heldByService;
}

async function tick(): Promise<void> {
	if (state.ticking) return;
	state.ticking = true;
	try {
		while (state.mode === 'auto' && state.sleepers.size > 0) {
			if (!(await settled())) {
				await realSleep(1);
				continue;
			}
			let next: Sleeper | undefined;
			for (const s of state.sleepers) {
				if (!next || s.at < next.at || (s.at === next.at && s.seq < next.seq)) next = s;
			}
			if (!next) break;
			state.manualNow = Math.max(state.manualNow, next.at);
			// every sleep that ends now wakes, in the order the sleeps began
			const due = [...state.sleepers]
				.filter((s) => s.at <= state.manualNow)
				.sort((a, b) => a.at - b.at || a.seq - b.seq);
			for (const s of due) {
				state.sleepers.delete(s);
				s.resolve();
			}
		}
	} finally {
		state.ticking = false;
	}
}

async function autoSleep(ms: number, signal?: AbortSignal): Promise<void> {
	await new Promise<void>((resolve, reject) => {
		const sleeper: Sleeper = {
			at: state.manualNow + Math.max(0, ms),
			seq: state.seq++,
			resolve: () => {
				signal?.removeEventListener('abort', onAbort);
				resolve();
			},
		};
		const onAbort = () => {
			state.sleepers.delete(sleeper);
			reject(new Error('aborted'));
		};
		signal?.addEventListener('abort', onAbort, { once: true });
		state.sleepers.add(sleeper);
		void tick();
	});
}

export const clock = {
	now: (): number =>
		state.mode === 'scaled'
			? state.virtualStart + (Date.now() - state.realStart) * state.speed
			: state.manualNow,
	random: (): number => state.random(),
	sleep: async (ms: number, signal?: AbortSignal): Promise<void> => {
		if (signal?.aborted) throw new Error('aborted');
		if (state.mode === 'auto') return await autoSleep(ms, signal);
		if (state.mode === 'manual') {
			// sequential code only: a sleep jumps time forward, after letting other work run
			await realSleep(0, signal);
			state.manualNow += Math.max(0, ms);
			return;
		}
		await realSleep(Math.max(0, ms) / state.speed, signal);
	},
};

function reset(mode: Mode, startMs: number): void {
	state.mode = mode;
	state.manualNow = startMs;
	// sleeps of a previous test that never ended are dropped (their test is over)
	state.sleepers.clear();
	state.inFlight = 0;
	state.heldByService = 0;
	state.generation++;
}

/** Controls for tests. */
export const testClock = {
	/** Virtual time starts at `startMs` now and runs `speed` × real time. */
	use(speed: number, startMs = DEFAULT_START): void {
		reset('scaled', startMs);
		state.speed = speed;
		state.virtualStart = startMs;
		state.realStart = Date.now();
	},
	/** Discrete-event time (see above), starting at `startMs`. */
	useAuto(startMs = DEFAULT_START): void {
		reset('auto', startMs);
	},
	/**
	 * Time moves only with advance() or a sleep (which jumps by its length): for tests that step
	 * precisely across boundaries and run no concurrent waits.
	 */
	useManual(startMs = DEFAULT_START): void {
		reset('manual', startMs);
	},
	advance(ms: number): void {
		if (state.mode === 'scaled') throw new Error('advance() needs useManual() or useAuto()');
		state.manualNow += ms;
	},
	get mode(): Mode {
		return state.mode;
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
	/** auto: time stands still until `work` settles (a request of the node, on its way or being answered). */
	async whileBusy<T>(work: () => Promise<T>): Promise<T> {
		const generation = state.generation;
		state.inFlight++;
		try {
			return await work();
		} finally {
			if (generation === state.generation) state.inFlight--;
			if (state.sleepers.size > 0) void tick();
		}
	},
	/** auto: a sleep of the service while it holds a request on purpose (time may move meanwhile). */
	async serviceHold(ms: number): Promise<void> {
		const generation = state.generation;
		state.heldByService++;
		try {
			await clock.sleep(ms);
		} finally {
			if (generation === state.generation) state.heldByService--;
		}
	},
};
