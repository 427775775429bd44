import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
} from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { toItems } from '../router';
import { apiRequest } from '../transport';
import { maxRateLimitWaitOption, maxWaitOf, optionsCollection } from './common';

/**
 * An operation that reads one object with a GET and outputs it: its description (only the Options
 * collection with Max Rate-Limit Wait) and its execute, defined once.
 */
export function simpleRead(resource: string, operation: string, path: string) {
	const properties: INodeProperties[] = [optionsCollection([maxRateLimitWaitOption])];
	return {
		description: updateDisplayOptions(
			{ show: { resource: [resource], operation: [operation] } },
			properties,
		),
		async execute(this: IExecuteFunctions, i: number): Promise<INodeExecutionData[]> {
			const options = this.getNodeParameter('options', i, {}) as IDataObject;
			const data = await apiRequest(this, {
				method: 'GET',
				path,
				itemIndex: i,
				maxWaitSeconds: maxWaitOf(options),
			});
			return toItems(data, i);
		},
	};
}
