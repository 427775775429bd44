import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
} from 'n8n-workflow';
import { NodeOperationError, updateDisplayOptions } from 'n8n-workflow';

import {
	binaryPropertyOutputOption,
	maxRateLimitWaitOption,
	rangeOption,
	maxWaitOf,
	optionsCollection,
} from '../../../shared/descriptions/common';
import { assetLocator } from '../../../shared/descriptions/pickers';
import { normalizeRange, readId } from '../../../shared/inputs';
import { apiRequest } from '../../../shared/service/client';
import { downloadBinary } from '../../../shared/service/files';

const properties: INodeProperties[] = [
	assetLocator('assetId', 'Asset', 'any', 'The asset whose file to download'),
	optionsCollection([rangeOption, maxRateLimitWaitOption, binaryPropertyOutputOption]),
];

export const description = updateDisplayOptions(
	{ show: { resource: ['asset'], operation: ['download'] } },
	properties,
);

interface DownloadOptions {
	binaryPropertyName?: string;
	maxRateLimitWait?: number;
	range?: string;
}

/**
 * GET /assets/{assetId} for the file name and type, then GET /assets/{assetId}/content streamed
 * into n8n's binary store (assets:read). The JSON of the item is the asset.
 */
export async function execute(this: IExecuteFunctions, i: number): Promise<INodeExecutionData[]> {
	const id = readId(this, 'assetId', 'asset', i, 'Asset');
	const options = this.getNodeParameter('options', i, {}) as DownloadOptions;
	const binaryPropertyName = (options.binaryPropertyName ?? 'data').trim();
	if (!binaryPropertyName) {
		throw new NodeOperationError(
			this.getNode(),
			`"Put Output File in Field" of item ${i} is empty: give the name of the binary field to put the file in (for example data).`,
			{ itemIndex: i },
		);
	}
	const maxWaitSeconds = maxWaitOf(options);
	// The form of the range is checked before any request; its start against the size after the GET.
	normalizeRange(this, options.range, undefined, i);
	const asset = await apiRequest<IDataObject>(this, {
		method: 'GET',
		path: `/assets/${id}`,
		itemIndex: i,
		maxWaitSeconds,
	});
	const byteSize = typeof asset.byteSize === 'number' ? asset.byteSize : undefined;
	const range = normalizeRange(this, options.range, byteSize, i);
	const binary = await downloadBinary(this, {
		path: `/assets/${id}/content`,
		itemIndex: i,
		fileName: typeof asset.filename === 'string' && asset.filename ? asset.filename : id,
		mimeType: typeof asset.mimeType === 'string' ? asset.mimeType : undefined,
		range,
		maxWaitSeconds,
	});
	return [{ json: asset, binary: { [binaryPropertyName]: binary }, pairedItem: { item: i } }];
}
