import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import {
	maxRateLimitWaitOption,
	maxWaitOf,
	optionsCollection,
} from '../../../shared/descriptions/common';
import { personaLocator } from '../../../shared/descriptions/pickers';
import { toItems } from '../../../shared/router';
import { apiRequest } from '../../../shared/transport';
import { readId } from '../../../shared/ids';

const properties: INodeProperties[] = [
	personaLocator('personaId', 'Persona', 'The saved character to get'),
	optionsCollection([maxRateLimitWaitOption]),
];

export const description = updateDisplayOptions(
	{ show: { resource: ['persona'], operation: ['get'] } },
	properties,
);

/** GET /personas/{personaId} (personas:read). */
export async function execute(this: IExecuteFunctions, i: number): Promise<INodeExecutionData[]> {
	const id = readId(this, 'personaId', 'persona', i, 'Persona');
	const options = this.getNodeParameter('options', i, {}) as { maxRateLimitWait?: number };
	const persona = await apiRequest(this, {
		method: 'GET',
		path: `/personas/${id}`,
		itemIndex: i,
		maxWaitSeconds: maxWaitOf(options),
	});
	return toItems(persona, i);
}
