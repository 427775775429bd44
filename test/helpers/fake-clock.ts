import { clock, testClock } from './serviceClock';

/**
 * Starts the package's virtual clock for a test: `speed` × real time (default 1000: a 60 s rate window
 * lasts 60 ms, a 5 s poll interval 5 ms). `state.now` is the virtual time.
 */
export function installFakeClock(speed = 1000, startMs?: number) {
	testClock.use(speed, startMs);
	return {
		state: {
			get now() {
				return clock.now();
			},
		},
		clock,
		restore: () => testClock.use(1000),
	};
}
