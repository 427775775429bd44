import { simpleRead } from '../../../shared/descriptions/simpleRead';

/** GET /capabilities (public): engine state, accepted modes, prices, upload limits. */
export const { description, execute } = simpleRead('account', 'getCapabilities', '/capabilities');
