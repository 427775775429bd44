import type {
	IExecuteFunctions,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
} from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import { credentialsFor, resourceProperty } from '../shared/descriptions/node';
import {
	searchImageAssets,
	searchJobs,
	searchPersonas,
	searchVideoAssets,
} from '../shared/methods/listSearch';
import * as job from './actions/job';
import { router } from './actions/router';

export class GenerationServiceJob implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Generation Service Job',
		name: 'generationServiceJob',
		icon: {
			light: 'file:../../icons/generationService.svg',
			dark: 'file:../../icons/generationService.dark.svg',
		},
		group: ['transform'],
		version: [1, 1.1],
		defaultVersion: 1.1,
		subtitle:
			'={{(' +
			'$parameter["operation"] === "quote" ? "Quote" : ' +
			'$parameter["operation"] === "create" ? "Create" : ' +
			'$parameter["operation"] === "get" ? "Get" : ' +
			'$parameter["operation"] === "getAll" || $parameter["operation"] === "getMany" ? "Get Many" : ' +
			'$parameter["operation"] === "waitForJob" ? "Wait for Job" : ' +
			'$parameter["operation"] === "downloadOutput" ? "Download Output" : ' +
			'$parameter["operation"]' +
			') + ($parameter["mode"] ? ": " + (' +
			'$parameter["mode"] === "character_replacement" ? "Character Replacement" : ' +
			'$parameter["mode"] === "image_to_video" ? "Image to Video" : ' +
			'$parameter["mode"] === "text_to_video" ? "Text to Video" : ' +
			'$parameter["mode"]' +
			') : "")}}',
		description:
			'Quote, create and follow AI video generations (character replacement, image to video, text to video) and get the MP4. Create spends credits; the other operations are free.',
		defaults: { name: 'Generation Service Job' },
		usableAsTool: true,
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		credentials: credentialsFor(),
		properties: [resourceProperty('Job', 'job'), ...job.description],
	};

	methods = {
		listSearch: { searchImageAssets, searchJobs, searchPersonas, searchVideoAssets },
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return await router.call(this);
	}
}
