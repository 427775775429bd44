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
	assetLocator('assetId', 'Asset', 'any', 'The asset to get'),
	optionsCollection([maxRateLimitWaitOption]),
];

export const description = updateDisplayOptions(
	{ show: { resource: ['asset'], operation: ['get'] } },
	properties,
);

/** GET /assets/{assetId} (assets:read). */
export async function execute(this: IExecuteFunctions, i: number): Promise<INodeExecutionData[]> {
	const id = readId(this, 'assetId', 'asset', i, 'Asset');
	const options = this.getNodeParameter('options', i, {}) as { maxRateLimitWait?: number };
	const asset = await apiRequest(this, {
		method: 'GET',
		path: `/assets/${id}`,
		itemIndex: i,
		maxWaitSeconds: maxWaitOf(options),
	});
	return toItems(asset, i);
}
