import { personaLocator } from '../../../shared/descriptions/pickers';
import { byIdOperation } from '../../../shared/operations';

/** GET /personas/{personaId} (personas:read). */
export const { description, execute } = byIdOperation({
	resource: 'persona',
	operation: 'get',
	method: 'GET',
	locator: personaLocator('personaId', 'Persona', 'The saved character to get'),
	kind: 'persona',
	label: 'Persona',
	path: (id) => `/personas/${id}`,
});
