// Operations that differ only by path and picker, built once: read one object, act on one by ID, list.
import type {
	IDataObject,
	IExecuteFunctions,
	IHttpRequestMethods,
	INodeExecutionData,
	INodeProperties,
} from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import {
	maxRateLimitWaitOption,
	maxWaitOf,
	optionsCollection,
	paginationFields,
} from './descriptions/common';
import { readId } from './ids';
import { toItems } from './router';
import type { Page } from './transport';
import { apiRequest, apiRequestAllItems } from './transport';

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
