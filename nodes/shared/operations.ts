// Operations that differ only by path and picker, built once: read one object, act on one by ID, list.
import type {
	IDataObject,
	IExecuteFunctions,
	IHttpRequestMethods,
	INodeExecutionData,
	INodeProperties,
} from 'n8n-workflow';
import { NodeOperationError, updateDisplayOptions } from 'n8n-workflow';

import {
	maxRateLimitWaitOption,
	maxWaitOf,
	optionsCollection,
	paginationFields,
} from './descriptions/common';
import { readId } from './inputs';
import { toItems } from './router';
import type { Page, ServiceRequest } from './service/client';
import { PAGE_SIZE, apiRequest, listPages } from './service/client';
import type { ServiceContext } from './service/service';

export interface Operation {
	description: INodeProperties[];
	execute(this: IExecuteFunctions, i: number): Promise<INodeExecutionData[]>;
}

function placed(resource: string, operations: string[], properties: INodeProperties[]) {
	return updateDisplayOptions(
		{ show: { resource: [resource], operation: operations } },
		properties,
	);
}

function options(ctx: IExecuteFunctions, i: number): IDataObject {
	return ctx.getNodeParameter('options', i, {}) as IDataObject;
}

/** GET of one object with no parameter (e.g. /balance): outputs it. */
export function readOperation(resource: string, operation: string, path: string): Operation {
	return {
		description: placed(resource, [operation], [optionsCollection([maxRateLimitWaitOption])]),
		async execute(this: IExecuteFunctions, i: number) {
			const data = await apiRequest(this, {
				method: 'GET',
				path,
				itemIndex: i,
				maxWaitSeconds: maxWaitOf(options(this, i)),
			});
			return toItems(data, i);
		},
	};
}

export interface ByIdSpec {
	resource: string;
	operation: string;
	method: IHttpRequestMethods;
	/** The resource-locator field (from descriptions/pickers). */
	locator: INodeProperties;
	kind: 'asset' | 'job' | 'persona';
	label: string;
	path: (id: string) => string;
	/** The output object (default: the answer as is). */
	output?: (data: IDataObject, id: string) => IDataObject;
}

/** GET or DELETE of one object picked by ID (checked locally first): outputs the answer. */
export function byIdOperation(spec: ByIdSpec): Operation {
	return {
		description: placed(
			spec.resource,
			[spec.operation],
			[spec.locator, optionsCollection([maxRateLimitWaitOption])],
		),
		async execute(this: IExecuteFunctions, i: number) {
			const id = readId(this, spec.locator.name, spec.kind, i, spec.label);
			const data = await apiRequest<IDataObject>(this, {
				method: spec.method,
				path: spec.path(id),
				itemIndex: i,
				maxWaitSeconds: maxWaitOf(options(this, i)),
			});
			return toItems(spec.output ? spec.output(data, id) : data, i);
		},
	};
}

export interface ListSpec {
	resource: string;
	/** Operation values (a node version may name the operation differently). */
	operations: string[];
	path: string;
	/** Sees every page (e.g. to remember jobs or the quota). */
	onPage?: (ctx: IExecuteFunctions, page: Page<IDataObject>) => void;
}

/** A list endpoint with n8n's Return All / Limit: one item per entry, newest first. */
export function listOperation(spec: ListSpec): Operation {
	return {
		description: placed(spec.resource, spec.operations, [
			...paginationFields,
			optionsCollection([maxRateLimitWaitOption]),
		]),
		async execute(this: IExecuteFunctions, i: number) {
			const returnAll = this.getNodeParameter('returnAll', i) as boolean;
			const limit = returnAll ? undefined : (this.getNodeParameter('limit', i) as number);
			const entries = await apiRequestAllItems<IDataObject>(
				this,
				{
					method: 'GET',
					path: spec.path,
					itemIndex: i,
					maxWaitSeconds: maxWaitOf(options(this, i)),
				},
				{ returnAll, limit },
				spec.onPage ? (page) => spec.onPage?.(this, page) : undefined,
			);
			return toItems(entries, i);
		},
	};
}

/**
 * n8n's Return All / Limit over a list endpoint: its pages (client.ts listPages) until `limit` items are in
 * hand, or all of them. `onPage` sees every page (e.g. the assets' quota).
 */
export async function apiRequestAllItems<T = IDataObject>(
	ctx: ServiceContext,
	request: ServiceRequest,
	paging: { returnAll: boolean; limit?: number },
	onPage?: (page: Page<T>) => void,
): Promise<T[]> {
	const limit = paging.limit ?? 50;
	if (!paging.returnAll && (!Number.isInteger(limit) || limit < 1)) {
		throw new NodeOperationError(
			ctx.getNode(),
			`Limit must be a whole number of at least 1 (got ${limit}), or turn on Return All.`,
			{ itemIndex: request.itemIndex },
		);
	}
	const wanted = paging.returnAll ? Infinity : limit;
	const items: T[] = [];
	for await (const page of listPages<T>(ctx, request, () =>
		Math.min(PAGE_SIZE, wanted - items.length),
	)) {
		onPage?.(page);
		items.push(...page.items);
		if (items.length >= wanted) break;
	}
	return items.slice(0, wanted === Infinity ? undefined : wanted);
}
