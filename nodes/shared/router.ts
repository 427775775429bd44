import type { IDataObject, IExecuteFunctions, INodeExecutionData, JsonObject } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

/** What one node run shares between its items (e.g. capabilities are read once per execution). */
export interface RunState {
	cache: Map<string, unknown>;
}

export type OperationExecute = (
	this: IExecuteFunctions,
	itemIndex: number,
	state: RunState,
) => Promise<INodeExecutionData[]>;

export interface OperationModule {
	execute: OperationExecute;
}

/** The json of a failed item under "Continue On Fail": English message, service code and request id. */
export function errorItem(error: unknown, itemIndex: number): INodeExecutionData {
	const e = error as {
		message?: string;
		description?: string;
		httpCode?: string | null;
		context?: IDataObject;
	};
	const json: IDataObject = { error: e.message ?? String(error) };
	if (e.context?.errorCode) json.code = e.context.errorCode;
	if (e.context?.requestId) json.requestId = e.context.requestId;
	if (e.context?.job) json.job = e.context.job;
	if (e.httpCode) json.httpCode = e.httpCode;
	return { json, pairedItem: { item: itemIndex } };
}

/**
 * The loop every node's router runs: one operation per item, pairedItem on every output item,
 * "Continue On Fail" turns an item's error into an output item instead of stopping the workflow.
 */
export async function routeItems(
	ctx: IExecuteFunctions,
	operations: Record<string, OperationModule>,
): Promise<INodeExecutionData[][]> {
	const items = ctx.getInputData();
	const state: RunState = { cache: new Map() };
	const returnData: INodeExecutionData[] = [];
	for (let i = 0; i < items.length; i++) {
		const operation = ctx.getNodeParameter('operation', i) as string;
		const module = operations[operation];
		if (!module) {
			throw new NodeOperationError(ctx.getNode(), `The operation "${operation}" is not supported`, {
				itemIndex: i,
			});
		}
		try {
			const output = await module.execute.call(ctx, i, state);
			returnData.push(
				...output.map((item) => ({ ...item, pairedItem: item.pairedItem ?? { item: i } })),
			);
		} catch (error) {
			if (ctx.continueOnFail()) {
				returnData.push(errorItem(error, i));
				continue;
			}
			if (error instanceof NodeApiError) {
				// Already the clear error built by the transport: n8n's constructor hands it back as is.
				if (error.context.itemIndex === undefined) error.context.itemIndex = i;
				throw new NodeApiError(ctx.getNode(), error as unknown as JsonObject, { itemIndex: i });
			}
			throw new NodeOperationError(ctx.getNode(), error as Error, { itemIndex: i });
		}
	}
	return [returnData];
}

/** Wraps API objects as output items paired with the input item. */
export function toItems(
	data: IDataObject | IDataObject[],
	itemIndex: number,
): INodeExecutionData[] {
	const list = Array.isArray(data) ? data : [data];
	return list.map((json) => ({ json, pairedItem: { item: itemIndex } }));
}
