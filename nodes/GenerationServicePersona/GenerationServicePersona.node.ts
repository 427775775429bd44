import type {
	IExecuteFunctions,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
} from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import { credentialsFor, resourceProperty } from '../shared/descriptions/node';
import { searchPersonas } from '../shared/methods/listSearch';
import * as persona from './actions/persona';
import { router } from './actions/router';

export class GenerationServicePersona implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Generation Service Persona',
		name: 'generationServicePersona',
		icon: {
			light: 'file:../../icons/generationService.svg',
			dark: 'file:../../icons/generationService.dark.svg',
		},
		group: ['input'],
		version: 1,
		subtitle:
			'={{' +
			'$parameter["operation"] === "getAll" ? "Get Many" : ' +
			'$parameter["operation"] === "get" ? "Get" : ' +
			'$parameter["operation"]' +
			'}}',
		description:
			'Read the characters (personas) saved in the Generation Service studio; a persona ID can replace the reference image of a character replacement job. None of these operations spends credits.',
		defaults: { name: 'Generation Service Persona' },
		usableAsTool: true,
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		credentials: credentialsFor(),
		properties: [resourceProperty('Persona', 'persona'), ...persona.description],
	};

	methods = {
		listSearch: { searchPersonas },
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return await router.call(this);
	}
}
