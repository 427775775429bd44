import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
} from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import {
	maxRateLimitWaitOption,
	paginationFields,
	maxWaitOf,
	optionsCollection,
} from '../../../shared/descriptions/common';
import { apiRequestAllItems } from '../../../shared/operations';
import { toItems } from '../../../shared/router';

const properties: INodeProperties[] = [
	...paginationFields,
	optionsCollection([
		{
			displayName: 'Include Quota',
			name: 'includeQuota',
			type: 'boolean',
			default: false,
			description:
				'Whether to add the account upload quota (usedBytes, maxBytes, usedAssets, maxAssets, cleanupPendingAssets) as a "quota" field of every item. When there are no assets, one item holding only "quota" is output.',
		},
		maxRateLimitWaitOption,
	]),
];

export const description = updateDisplayOptions(
	{ show: { resource: ['asset'], operation: ['getAll'] } },
	properties,
);

/** GET /assets (assets:read): one item per asset, newest first; optionally the quota on each. */
export async function execute(this: IExecuteFunctions, i: number): Promise<INodeExecutionData[]> {
	const returnAll = this.getNodeParameter('returnAll', i) as boolean;
	const limit = returnAll ? undefined : (this.getNodeParameter('limit', i) as number);
	const options = this.getNodeParameter('options', i, {}) as {
		includeQuota?: boolean;
		maxRateLimitWait?: number;
	};
	let quota: IDataObject | undefined;
	const assets = await apiRequestAllItems<IDataObject>(
		this,
		{ method: 'GET', path: '/assets', itemIndex: i, maxWaitSeconds: maxWaitOf(options) },
		{ returnAll, limit },
		(page) => {
			if (page.quota && typeof page.quota === 'object') quota = page.quota as IDataObject;
		},
	);
	if (!options.includeQuota) return toItems(assets, i);
	if (assets.length === 0) return toItems({ quota: quota ?? null }, i);
	return toItems(
		assets.map((asset) => ({ ...asset, quota: quota ?? null })),
		i,
	);
}
