import type { INodeProperties } from 'n8n-workflow';

import * as get from './get.operation';
import * as getAll from './getAll.operation';

export { get, getAll };

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['persona'] } },
		options: [
			{
				name: 'Get',
				value: 'get',
				action: 'Get a persona',
				description:
					'Get one saved character: name, description, species, humor style, identity and style asset IDs (GET /personas/{ID}, scope personas:read). Free.',
			},
			{
				name: 'Get Many',
				value: 'getAll',
				action: 'Get many personas',
				description:
					'List the characters saved in the studio, one item per persona; use an ID as personaId of a character replacement job (GET /personas, scope personas:read). Free.',
			},
		],
		default: 'getAll',
	},
	...getAll.description,
	...get.description,
];
