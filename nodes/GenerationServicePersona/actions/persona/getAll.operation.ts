import { listOperation } from '../../../shared/operations';

/** GET /personas (personas:read): one item per saved character. */
export const { description, execute } = listOperation({
	resource: 'persona',
	operations: ['getAll'],
	path: '/personas',
});
