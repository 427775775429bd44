import type { INodeProperties } from 'n8n-workflow';

import * as deleteAsset from './delete.operation';
import * as download from './download.operation';
import * as get from './get.operation';
import * as getAll from './getAll.operation';
import * as upload from './upload.operation';

// `delete` is a reserved word: the module is imported as deleteAsset and exported under its value
export { deleteAsset as delete, download, get, getAll, upload };

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['asset'] } },
		options: [
			{
				name: 'Delete',
				value: 'delete',
				action: 'Delete an asset',
				description:
					'Delete an uploaded file for good (DELETE /assets/{ID}, scope assets:write). Fails with asset_in_use while a persona, project or running job references it. Free; frees quota.',
			},
			{
				name: 'Download',
				value: 'download',
				action: 'Download an asset',
				description:
					'Get the file bytes as binary data, whole or a byte range (GET /assets/{ID}/content, scope assets:read); the JSON is the asset. Free.',
			},
			{
				name: 'Get',
				value: 'get',
				action: 'Get an asset',
				description:
					'Get one asset: file name, MIME type, size, kind (image or video), reference count (GET /assets/{ID}, scope assets:read). Free.',
			},
			{
				name: 'Get Many',
				value: 'getAll',
				action: 'Get many assets',
				description:
					'List the uploaded files, newest first, one item per asset, optionally with the account upload quota (GET /assets, scope assets:read). Free.',
			},
			{
				name: 'Upload',
				value: 'upload',
				action: 'Upload an asset',
				description:
					'Upload a JPEG, PNG, WebP, MP4 or WebM file (max 20 MiB) from a binary field as a private asset, to use as a job input (POST /assets, scope assets:write). Spends no credits; counts against 20 uploads per hour and the quota of 100 files / 256 MiB, except when the same bytes were uploaded before: then the existing asset is returned with replayed = true.',
			},
		],
		default: 'upload',
	},
	...upload.description,
	...getAll.description,
	...get.description,
	...deleteAsset.description,
	...download.description,
];
