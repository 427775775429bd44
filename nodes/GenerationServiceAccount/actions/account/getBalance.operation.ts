import { simpleRead } from '../../../shared/descriptions/simpleRead';

/** GET /balance (balance:read): credits available, reserved, spent; frozen or not. */
export const { description, execute } = simpleRead('account', 'getBalance', '/balance');
