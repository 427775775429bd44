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
	rangeOption, maxWaitOf
} from '../../../shared/descriptions/common';
import { assetLocator } from '../../../shared/descriptions/pickers';
import { apiRequest } from '../../../shared/transport';
import { downloadBinary } from '../../../shared/transport/binary';
import { readId } from '../../../shared/ids';

const properties: INodeProperties[] = [
	assetLocator('assetId', 'Asset', 'any', 'The asset whose file to download'),
	{
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add option',
		default: {},
		options: [rangeOption, maxRateLimitWaitOption, binaryPropertyOutputOption],
	},
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
 * Turns the Byte Range option into `bytes=<start>-<end>` (also accepts `start-end`, `start-` and
 * `-suffix`) and checks it against the asset's size, so an impossible range costs no request.
 */
export function normalizeRange(
	ctx: IExecuteFunctions,
	raw: string | undefined,
	byteSize: number | undefined,
	itemIndex: number,
): string | undefined {
	const text = (raw ?? '').replace(/\s+/g, '');
	if (!text) return undefined;
	const fail = (why: string) =>
		new NodeOperationError(
			ctx.getNode(),
			`"Byte Range" of item ${itemIndex} is not usable: ${why}. Use bytes=start-end (for example bytes=0-1023), bytes=start- or bytes=-lastBytes, or leave it empty for the whole file.`,
			{ itemIndex },
		);
	const match = /^(?:bytes=)?(\d*)-(\d*)$/i.exec(text);
	if (!match || (match[1] === '' && match[2] === ''))
		throw fail(`"${raw}" is not a single byte range`);
	const start = match[1] === '' ? undefined : Number(match[1]);
	const end = match[2] === '' ? undefined : Number(match[2]);
	if (start === undefined && end === 0) throw fail('a suffix range must ask for at least 1 byte');
	if (start !== undefined && end !== undefined && end < start) {
		throw fail(`the end (${end}) is before the start (${start})`);
	}
	if (start !== undefined && typeof byteSize === 'number' && start >= byteSize) {
		throw fail(`the start (${start}) is at or after the end of the file (${byteSize} bytes)`);
	}
	return `bytes=${match[1]}-${match[2]}`;
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
