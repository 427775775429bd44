import type { IDataObject, IExecuteFunctions, INodeExecutionData, JsonObject } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { runsAsTool, withoutBinary } from './agent';
import { RunState } from './jobs/run';

function asNodeError(ctx: IExecuteFunctions, error: unknown, i: number): Error {
	if (error instanceof NodeApiError) {
		// Already the clear error built by the transport: n8n's constructor hands it back as is.
		if (error.context.itemIndex === undefined) error.context.itemIndex = i;
		return new NodeApiError(ctx.getNode(), error as unknown as JsonObject, { itemIndex: i });
	}
	return new NodeOperationError(ctx.getNode(), error as Error, { itemIndex: i });
}

/**
 * A run that fails after some items created (or picked up) jobs: n8n drops the run's output, so the
 * error names those jobs — they are paid for and keep running; Wait for Job picks them up.
 */
function withJobsOfRun(error: Error, state: RunState): Error {
	if (state.claimed.size === 0) return error;
	const jobs = [...state.claimed].join(', ');
	const note = `Jobs this run already created or picked up (charged, still running, not lost: use Wait for Job or Get with their IDs, or retry the execution, which picks them up): ${jobs}.`;
	const withDescription = error as Error & { description?: string | null; context?: IDataObject };
	withDescription.description = withDescription.description
		? `${withDescription.description} · ${note}`
		: note;
	if (withDescription.context) withDescription.context.jobsOfRun = [...state.claimed];
	return error;
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
	if (e.context?.jobId) json.jobId = e.context.jobId;
	if (e.context?.job) json.job = e.context.job;
	if (e.context?.jobsOfRun) json.jobsOfRun = e.context.jobsOfRun;
	if (e.httpCode) json.httpCode = e.httpCode;
	return { json, pairedItem: { item: itemIndex } };
}

/**
 * The loop every node's router runs: one operation per item, pairedItem on every output item,
 * "Continue On Fail" turns an item's error into an output item instead of stopping the workflow.
 * Work an item continues in the background (waiting for its job) is collected at the end, in order.
 */
export async function routeItems(
	ctx: IExecuteFunctions,
	operations: Record<string, OperationModule>,
): Promise<INodeExecutionData[][]> {
	const items = ctx.getInputData();
	const state = new RunState(ctx);
	const perItem: INodeExecutionData[][] = [];
	try {
		for (let i = 0; i < items.length; i++) {
			const operation = ctx.getNodeParameter('operation', i) as string;
			const module = operations[operation];
			if (!module) {
				throw new NodeOperationError(
					ctx.getNode(),
					`The operation "${operation}" is not supported`,
					{ itemIndex: i },
				);
			}
			try {
				perItem[i] = await module.execute.call(ctx, i, state);
			} catch (error) {
				if (!ctx.continueOnFail()) throw asNodeError(ctx, error, i);
				perItem[i] = [errorItem(error, i)];
			}
		}
		for (const [i, running] of [...state.continued.entries()].sort(([a], [b]) => a - b)) {
			try {
				perItem[i] = await running;
			} catch (error) {
				if (!ctx.continueOnFail()) throw asNodeError(ctx, error, i);
				perItem[i] = [errorItem(error, i)];
			}
		}
	} catch (error) {
		state.stop();
		throw withJobsOfRun(error as Error, state);
	}
	const returnData = perItem.flatMap((output, i) =>
		(output ?? []).map((item) => ({ ...item, pairedItem: item.pairedItem ?? { item: i } })),
	);
	return [runsAsTool(ctx) ? withoutBinary(returnData) : returnData];
}

/** Wraps API objects as output items paired with the input item. */
export function toItems(
	data: IDataObject | IDataObject[],
	itemIndex: number,
): INodeExecutionData[] {
	const list = Array.isArray(data) ? data : [data];
	return list.map((json) => ({ json, pairedItem: { item: itemIndex } }));
}
