import type { IDataObject, IExecuteFunctions, INodeExecutionData, JsonObject } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

/** What one node run shares between its items (e.g. capabilities are read once per execution). */
export interface RunState {
	cache: Map<string, unknown>;
	/**
	 * Work an item hands over to finish after every item has started — waiting for its job — so the
	 * jobs of N items run side by side instead of one after another.
	 */
	deferred: Map<number, () => Promise<INodeExecutionData[]>>;
}

/** How many deferred waits run at once: 5 jobs polled every 5 s stay within 60 requests a minute. */
export const DEFERRED_CONCURRENCY = 5;

function asNodeError(ctx: IExecuteFunctions, error: unknown, i: number): Error {
	if (error instanceof NodeApiError) {
		// Already the clear error built by the transport: n8n's constructor hands it back as is.
		if (error.context.itemIndex === undefined) error.context.itemIndex = i;
		return new NodeApiError(ctx.getNode(), error as unknown as JsonObject, { itemIndex: i });
	}
	return new NodeOperationError(ctx.getNode(), error as Error, { itemIndex: i });
}

/** Runs the deferred work of the items, a few at a time; results by item index. */
async function runDeferred(
	state: RunState,
): Promise<Map<number, PromiseSettledResult<INodeExecutionData[]>>> {
	const queue = [...state.deferred.entries()];
	const results = new Map<number, PromiseSettledResult<INodeExecutionData[]>>();
	const worker = async () => {
		for (let next = queue.shift(); next; next = queue.shift()) {
			const [i, run] = next;
			try {
				results.set(i, { status: 'fulfilled', value: await run() });
			} catch (reason) {
				results.set(i, { status: 'rejected', reason });
			}
		}
	};
	await Promise.all(Array.from({ length: Math.min(DEFERRED_CONCURRENCY, queue.length) }, worker));
	return results;
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
	const state: RunState = { cache: new Map(), deferred: new Map() };
	const perItem: INodeExecutionData[][] = [];
	for (let i = 0; i < items.length; i++) {
		const operation = ctx.getNodeParameter('operation', i) as string;
		const module = operations[operation];
		if (!module) {
			throw new NodeOperationError(ctx.getNode(), `The operation "${operation}" is not supported`, {
				itemIndex: i,
			});
		}
		try {
			perItem[i] = await module.execute.call(ctx, i, state);
		} catch (error) {
			if (!ctx.continueOnFail()) throw asNodeError(ctx, error, i);
			perItem[i] = [errorItem(error, i)];
		}
	}
	const deferred = await runDeferred(state);
	for (const [i, result] of [...deferred.entries()].sort(([a], [b]) => a - b)) {
		if (result.status === 'fulfilled') perItem[i] = result.value;
		else if (ctx.continueOnFail()) perItem[i] = [errorItem(result.reason, i)];
		else throw asNodeError(ctx, result.reason, i);
	}
	const returnData = perItem.flatMap((output, i) =>
		(output ?? []).map((item) => ({ ...item, pairedItem: item.pairedItem ?? { item: i } })),
	);
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
