import type {
	IExecuteFunctions,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
} from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import { credentialsFor, resourceProperty } from '../shared/descriptions/node';
import { searchAssets, searchImageAssets, searchVideoAssets } from '../shared/methods/listSearch';
import * as asset from './actions/asset';
import { router } from './actions/router';

export class GenerationServiceAsset implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Generation Service Asset',
		name: 'generationServiceAsset',
		icon: {
			light: 'file:../../icons/generationService.svg',
			dark: 'file:../../icons/generationService.dark.svg',
		},
		group: ['transform'],
		version: 1,
		subtitle:
			'={{' +
			'$parameter["operation"] === "upload" ? "Upload" : ' +
			'$parameter["operation"] === "getAll" ? "Get Many" : ' +
			'$parameter["operation"] === "get" ? "Get" : ' +
			'$parameter["operation"] === "delete" ? "Delete" : ' +
			'$parameter["operation"] === "download" ? "Download" : ' +
			'$parameter["operation"]' +
			'}}',
		description:
			'Upload, list, get, delete and download the private image and video files (assets) used as inputs of Generation Service jobs. None of these operations spends credits.',
		defaults: { name: 'Generation Service Asset' },
		usableAsTool: true,
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		credentials: credentialsFor(),
		properties: [resourceProperty('Asset', 'asset'), ...asset.description],
	};

	methods = {
		listSearch: { searchAssets, searchImageAssets, searchVideoAssets },
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return await router.call(this);
	}
}
