import nock from 'nock';

import { installFakeClock } from './fake-clock';
import { forgetProcessState } from './processState';

/**
 * nock patches Node's shared http module, and jest may run several test files in one process:
 * each nock suite blocks real network while it runs and fully removes nock when it ends, so the
 * emulator suites that follow talk real HTTP. Also starts the virtual clock (discrete-event time, see serviceClock.ts) and forgets the package's process state.
 */
export function useNock() {
	const state: { clock: ReturnType<typeof installFakeClock> } = {
		clock: undefined as unknown as ReturnType<typeof installFakeClock>,
	};
	beforeAll(() => {
		if (!nock.isActive()) nock.activate();
	});
	beforeEach(() => {
		nock.disableNetConnect();
		forgetProcessState();
		state.clock = installFakeClock();
	});
	afterEach(() => {
		state.clock.restore();
		nock.cleanAll();
	});
	afterAll(() => {
		nock.enableNetConnect();
		nock.restore();
	});
	return state;
}
