import { simpleRead } from '../../../shared/descriptions/simpleRead';

/** GET /me (no scope needed): who the key belongs to and its scopes. */
export const { description, execute } = simpleRead('account', 'getIdentity', '/me');
