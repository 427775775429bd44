import { readOperation } from '../../../shared/operations';

/** GET /balance (balance:read): credits available, reserved, spent; frozen or not. */
export const { description, execute } = readOperation('account', 'getBalance', '/balance');
