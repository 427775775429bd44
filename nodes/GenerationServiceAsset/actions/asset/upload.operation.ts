import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
} from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { MIME_TYPES } from '../../../shared/constants';
import {
	maxRateLimitWaitOption,
	maxWaitOf,
	optionsCollection,
} from '../../../shared/descriptions/common';
import { checkIdempotencyKey } from '../../../shared/inputs';
import { toItems } from '../../../shared/router';
import {
	checkUploadSource,
	readUploadSource,
	uploadAsset,
	uploadIdempotencyKey,
} from '../../../shared/service/files';

const properties: INodeProperties[] = [
	{
		displayName: 'Input Binary Field',
		name: 'binaryPropertyName',
		type: 'string',
		default: 'data',
		required: true,
		hint: 'The name of the input binary field containing the file to be uploaded',
	},
	optionsCollection([
		{
			displayName: 'File Name',
			name: 'fileName',
			type: 'string',
			default: '',
			description:
				'Name stored with the asset. Leave empty to use the file name of the binary data. Sent percent-encoded; names longer than 180 encoded characters are shortened before the extension.',
		},
		{
			displayName: 'Idempotency Key',
			name: 'idempotencyKey',
			type: 'string',
			default: '',
			description:
				'16 to 128 characters from A-Z a-z 0-9 _ . : -. Leave empty to use a key made from the sha256 of the file, so uploading the same bytes again returns the existing asset (replayed = true) instead of storing a copy.',
		},
		maxRateLimitWaitOption,
		{
			displayName: 'MIME Type',
			name: 'mimeType',
			type: 'options',
			default: 'image/png',
			description:
				'Type to declare for the file. Leave unset to use the MIME type of the binary data. The first bytes of the file must match it.',
			options: MIME_TYPES.map((type) => ({ name: type, value: type })),
		},
	]),
];

export const description = updateDisplayOptions(
	{ show: { resource: ['asset'], operation: ['upload'] } },
	properties,
);

interface UploadOptions {
	fileName?: string;
	idempotencyKey?: string;
	maxRateLimitWait?: number;
	mimeType?: string;
}

/**
 * POST /assets (assets:write). Checks type, magic bytes, size and file name locally first; the
 * default Idempotency-Key is the file's sha256, so the same bytes replay the existing asset.
 */
export async function execute(this: IExecuteFunctions, i: number): Promise<INodeExecutionData[]> {
	const binaryPropertyName = (this.getNodeParameter('binaryPropertyName', i) as string).trim();
	const options = this.getNodeParameter('options', i, {}) as UploadOptions;
	const givenKey = (options.idempotencyKey ?? '').trim();
	const customKey = givenKey ? checkIdempotencyKey(this, givenKey, i) : undefined;
	const source = await readUploadSource(this, i, binaryPropertyName, {
		fileName: (options.fileName ?? '').trim() || undefined,
		mimeType: options.mimeType || undefined,
	});
	const encodedFileName = checkUploadSource(this, source, i);
	const result = await uploadAsset(this, source, {
		itemIndex: i,
		encodedFileName,
		idempotencyKey: customKey ?? uploadIdempotencyKey(source.sha256),
		maxWaitSeconds: maxWaitOf(options),
	});
	return toItems({ ...(result.asset as IDataObject), replayed: result.replayed === true }, i);
}
