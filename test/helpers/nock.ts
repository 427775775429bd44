import nock from 'nock';

import { resetRateWindows } from '../../nodes/shared/transport';
import { installFakeClock } from './fake-clock';

/**
 * nock patches Node's shared http module, and jest may run several test files in one process:
 * each nock suite blocks real network while it runs and fully removes nock when it ends, so the
 * emulator suites that follow talk real HTTP. Also installs the fake clock (no real sleeping).
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
		resetRateWindows();
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
