import type {
	IExecuteFunctions,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
} from 'n8n-workflow';

/** A minimal node whose execute runs a function given by the test, to drive the transport from a real context. */
export function probeNode(body: (this: IExecuteFunctions) => Promise<unknown>): INodeType {
	const description: INodeTypeDescription = {
		displayName: 'Probe',
		name: 'probe',
		group: ['transform'],
		version: 1,
		description: 'test probe',
		defaults: { name: 'Probe' },
		inputs: ['main'],
		outputs: ['main'],
		credentials: [{ name: 'generationServiceApi', required: true }],
		properties: [],
	};
	return {
		description,
		async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
			const json = (await body.call(this)) as INodeExecutionData['json'];
			return [[{ json: json ?? {}, pairedItem: { item: 0 } }]];
		},
	};
}
