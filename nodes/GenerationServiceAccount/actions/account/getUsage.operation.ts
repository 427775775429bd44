import { listOperation } from '../../../shared/operations';

/** GET /usage (usage:read): the credit ledger, newest first, one item per entry. */
export const { description, execute } = listOperation({
	resource: 'account',
	operations: ['getUsage'],
	path: '/usage',
});
