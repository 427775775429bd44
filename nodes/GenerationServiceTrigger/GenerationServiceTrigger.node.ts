import type {
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
	IPollFunctions,
} from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import { credentialsFor } from '../shared/descriptions/node';
import { triggerProperties } from './description';
import { pollJobFinished } from './poll';

export class GenerationServiceTrigger implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Generation Service Trigger',
		name: 'generationServiceTrigger',
		icon: {
			light: 'file:../../icons/generationService.svg',
			dark: 'file:../../icons/generationService.dark.svg',
		},
		group: ['trigger'],
		version: 1,
		subtitle:
			'={{"Job Finished: " + (' +
			'$parameter["jobState"] === "succeeded" ? "Succeeded" : ' +
			'$parameter["jobState"] === "failed" ? "Failed" : ' +
			'"Succeeded or Failed")}}',
		description:
			'Starts the workflow when a Generation Service video job finishes (succeeded or failed), checking the service on a schedule. Each job is sent once; optionally with its MP4. Polling spends no credits.',
		defaults: { name: 'Generation Service Trigger' },
		polling: true,
		inputs: [],
		outputs: [NodeConnectionTypes.Main],
		credentials: credentialsFor(),
		properties: triggerProperties,
	};

	async poll(this: IPollFunctions): Promise<INodeExecutionData[][] | null> {
		return await pollJobFinished.call(this);
	}
}
