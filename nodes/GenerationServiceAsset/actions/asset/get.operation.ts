import { assetLocator } from '../../../shared/descriptions/pickers';
import { byIdOperation } from '../../../shared/operations';

/** GET /assets/{assetId} (assets:read). */
export const { description, execute } = byIdOperation({
	resource: 'asset',
	operation: 'get',
	method: 'GET',
	locator: assetLocator('assetId', 'Asset', 'any', 'The asset to get'),
	kind: 'asset',
	label: 'Asset',
	path: (id) => `/assets/${id}`,
});
