import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import {
	maxRateLimitWaitOption,
	maxWaitOf,
	optionsCollection,
} from '../../../shared/descriptions/common';
import { assetLocator } from '../../../shared/descriptions/pickers';
import { toItems } from '../../../shared/router';
import { apiRequest } from '../../../shared/transport';
import { readId } from '../../../shared/ids';

const properties: INodeProperties[] = [
	assetLocator(
		'assetId',
		'Asset',
		'any',
		'The asset to delete. An asset still referenced by a persona, project or running job cannot be deleted.',
	),
	optionsCollection([maxRateLimitWaitOption]),
];

export const description = updateDisplayOptions(
	{ show: { resource: ['asset'], operation: ['delete'] } },
	properties,
);

/** DELETE /assets/{assetId} (assets:write) → { id, deleted: true }. */
export async function execute(this: IExecuteFunctions, i: number): Promise<INodeExecutionData[]> {
	const id = readId(this, 'assetId', 'asset', i, 'Asset');
	const options = this.getNodeParameter('options', i, {}) as { maxRateLimitWait?: number };
	const result = await apiRequest(this, {
		method: 'DELETE',
		path: `/assets/${id}`,
		itemIndex: i,
		maxWaitSeconds: maxWaitOf(options),
	});
	return toItems({ id: result.id ?? id, deleted: result.deleted === true }, i);
}
