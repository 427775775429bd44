import type {
	IExecuteFunctions,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
} from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import { credentialsFor, resourceProperty } from '../shared/descriptions/node';
import * as account from './actions/account';
import { router } from './actions/router';

export class GenerationServiceAccount implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Generation Service Account',
		name: 'generationServiceAccount',
		icon: {
			light: 'file:../../icons/generationService.svg',
			dark: 'file:../../icons/generationService.dark.svg',
		},
		group: ['input'],
		version: 1,
		subtitle:
			'={{' +
			'$parameter["operation"] === "getIdentity" ? "Get Identity" : ' +
			'$parameter["operation"] === "getBalance" ? "Get Balance" : ' +
			'$parameter["operation"] === "getUsage" ? "Get Usage" : ' +
			'$parameter["operation"] === "getCapabilities" ? "Get Capabilities" : ' +
			'$parameter["operation"] === "getPlans" ? "Get Plans" : ' +
			'$parameter["operation"]' +
			'}}',
		description:
			'Read the Generation Service account: identity of the key, credit balance, credit ledger, capabilities and plans. None of these operations spends credits.',
		defaults: { name: 'Generation Service Account' },
		usableAsTool: true,
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		credentials: credentialsFor(),
		properties: [resourceProperty('Account', 'account'), ...account.description],
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return await router.call(this);
	}
}
