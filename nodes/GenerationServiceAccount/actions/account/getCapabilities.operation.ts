import { readOperation } from '../../../shared/operations';

/** GET /capabilities (public): engine state, accepted modes, prices, upload limits. */
export const { description, execute } = readOperation(
	'account',
	'getCapabilities',
	'/capabilities',
);
