// A node run: one operation per item, paired outputs, Continue On Fail, the items an operation lets go on in
// the background, and how the nodes behave as tools of an AI agent or MCP client.
import type { IDataObject, IExecuteFunctions, INode, INodeExecutionData } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { asNodeError } from './service/errors';

/** What an operation may ask of the node run it is part of, whatever the node. */
export interface RunScope {
	/**
	 * Item `itemIndex` goes on in the background (e.g. it waits while the next items are sent): the router
	 * collects its output at the end, in item order, with the same pairing and Continue On Fail.
	 */
	continueLater(itemIndex: number, work: () => Promise<INodeExecutionData[]>): void;
}

/** What a node's own per-run state (its operations' third argument) does when the run fails. */
export interface RunHooks {
	/** The run failed: background work stops sending requests. */
	stop(): void;
	/** The error the run fails with, e.g. with a note of what the run already did that is not undone. */
	explain(error: Error): Error;
}

/** Opens a node's per-run state once per node run; `scope` is the router's side of the run. */
export type RunOpener<R extends RunHooks> = (ctx: IExecuteFunctions, scope: RunScope) => R;

export type OperationExecute<R = RunScope> = (
	this: IExecuteFunctions,
	itemIndex: number,
	run: R,
) => Promise<INodeExecutionData[]>;

export interface OperationModule<R = RunScope> {
	execute: OperationExecute<R>;
}

/**
 * A resource's `actions/<resource>/index.ts`, imported whole (`import * as job from './job'`): its
 * operation modules under their operation values, beside its `description`.
 */
export type ResourceModule = object;

/** The operation module a resource's index exports under `name`, if it is one. */
function operationOf<R>(resource: ResourceModule, name: string): OperationModule<R> | undefined {
	if (!Object.prototype.hasOwnProperty.call(resource, name)) return undefined;
	const candidate = (resource as Record<string, unknown>)[name] as Partial<OperationModule<R>>;
	return typeof candidate?.execute === 'function' ? (candidate as OperationModule<R>) : undefined;
}

/** The per-run state of nodes that keep none: only the router's scope, nothing to stop or explain. */
function plainRun(_ctx: IExecuteFunctions, scope: RunScope): RunScope & RunHooks {
	return { continueLater: (i, work) => scope.continueLater(i, work), stop() {}, explain: (e) => e };
}

/** The json of a failed item under "Continue On Fail": English message, service code and request id. */
function errorItem(error: unknown, itemIndex: number): INodeExecutionData {
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
 * The operation of an item is the module `resource` (the node's `actions/<resource>/index.ts`) exports
 * under the item's operation value, as in n8n's own nodes.
 * Work an item continues in the background (RunScope.continueLater) is collected at the end, in order.
 * `openRun` gives the node's own per-run state, which its operations get as their third argument.
 */
export async function routeItems(
	ctx: IExecuteFunctions,
	resource: ResourceModule,
): Promise<INodeExecutionData[][]>;
export async function routeItems<R extends RunHooks>(
	ctx: IExecuteFunctions,
	resource: ResourceModule,
	openRun: RunOpener<R>,
): Promise<INodeExecutionData[][]>;
export async function routeItems<R extends RunHooks>(
	ctx: IExecuteFunctions,
	resource: ResourceModule,
	openRun?: RunOpener<R>,
): Promise<INodeExecutionData[][]> {
	const items = ctx.getInputData();
	const continued = new Map<number, Promise<INodeExecutionData[]>>();
	const scope: RunScope = {
		continueLater(i, work) {
			const running = work();
			running.catch(() => undefined); // collected (and reported) below
			continued.set(i, running);
		},
	};
	// without an opener the operations take the plain run (the first overload)
	const run = openRun ? openRun(ctx, scope) : (plainRun(ctx, scope) as unknown as R);
	const perItem: INodeExecutionData[][] = [];
	try {
		for (let i = 0; i < items.length; i++) {
			const operation = ctx.getNodeParameter('operation', i) as string;
			const module = operationOf<R>(resource, operation);
			if (!module) {
				throw new NodeOperationError(
					ctx.getNode(),
					`The operation "${operation}" is not supported`,
					{ itemIndex: i },
				);
			}
			try {
				perItem[i] = await module.execute.call(ctx, i, run);
			} catch (error) {
				if (!ctx.continueOnFail()) throw asNodeError(ctx.getNode(), error, i);
				perItem[i] = [errorItem(error, i)];
			}
		}
		for (const [i, running] of [...continued.entries()].sort(([a], [b]) => a - b)) {
			try {
				perItem[i] = await running;
			} catch (error) {
				if (!ctx.continueOnFail()) throw asNodeError(ctx.getNode(), error, i);
				perItem[i] = [errorItem(error, i)];
			}
		}
	} catch (error) {
		run.stop();
		throw run.explain(error as Error);
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

// ---- As a tool ----

/**
 * Whether the node runs as a tool of an AI agent or of an MCP client. n8n wraps a node declared
 * `usableAsTool` in a node type named `<package>.<name>Tool` and runs that type when an agent calls it
 * (n8n 2.x runs it as a node of the workflow on the agent's request, 1.x inside the agent) and when n8n's
 * MCP Server Trigger serves it (inside the trigger's webhook handler): `getNode().type` is the one sign
 * they all give.
 */
export function runsAsTool(ctx: { getNode(): INode }): boolean {
	return ctx.getNode().type.endsWith('Tool');
}

/**
 * A tool answer carries no binary data: n8n hands a model only the items' JSON, so a file would be read,
 * stored and thrown away. Each item that had one says which fields were left out and how to get them.
 */
export function withoutBinary(items: INodeExecutionData[]): INodeExecutionData[] {
	return items.map((item) => {
		if (!item.binary || Object.keys(item.binary).length === 0) return item;
		const { binary, ...rest } = item;
		return {
			...rest,
			json: {
				...item.json,
				binaryOmitted: `${Object.keys(binary).join(', ')}: files are not sent to an AI agent; use the node in a workflow to get them`,
			},
		};
	});
}
