import type { TransportClock } from '../../nodes/shared/transport';
import { setTransportClock } from '../../nodes/shared/transport';

/** A clock whose sleeps return at once and move virtual time forward; records every wait. */
export function installFakeClock(startMs = Date.UTC(2026, 10, 22, 12, 0, 0)) {
	const state = { now: startMs, sleeps: [] as number[] };
	const clock: TransportClock = {
		now: () => state.now,
		random: () => 0.5,
		sleep: async (ms) => {
			state.sleeps.push(ms);
			state.now += ms;
		},
	};
	setTransportClock(clock);
	return {
		state,
		restore: () => setTransportClock(undefined),
	};
}
