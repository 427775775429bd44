import { assetLocator } from '../../../shared/descriptions/pickers';
import { byIdOperation } from '../../../shared/operations';

/** DELETE /assets/{assetId} (assets:write) → { id, deleted: true }. */
export const { description, execute } = byIdOperation({
	resource: 'asset',
	operation: 'delete',
	method: 'DELETE',
	locator: assetLocator(
		'assetId',
		'Asset',
		'any',
		'The asset to delete. An asset still referenced by a persona, project or running job cannot be deleted.',
	),
	kind: 'asset',
	label: 'Asset',
	path: (id) => `/assets/${id}`,
	output: (data, id) => ({ id: data.id ?? id, deleted: data.deleted === true }),
});
