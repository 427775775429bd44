import { readOperation } from '../../../shared/operations';

/** GET /me (no scope needed): who the key belongs to and its scopes. */
export const { description, execute } = readOperation('account', 'getIdentity', '/me');
