import { clock, testClock } from './serviceClock';

/**
 * Starts the package's virtual clock for a test: 'auto' (the default) is discrete-event time that jumps
 * from one sleep's end to the next once nothing else is running, so a busy machine slows the test but
 * never changes what it sees; a number runs virtual time that many times faster than real time.
 * `state.now` is the virtual time.
 */
export function installFakeClock(speed: number | 'auto' = 'auto', startMs?: number) {
	if (speed === 'auto') testClock.useAuto(startMs);
	else testClock.use(speed, startMs);
	return {
		state: {
			get now() {
				return clock.now();
			},
		},
		clock,
		restore: () => testClock.useAuto(),
	};
}
