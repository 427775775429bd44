// Two idioms the job code needs often: a promise's outcome as a value (to decide before rethrowing),
// and an error rethrown as n8n's own kind.
import type { INode } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

export type Settled<T> = { ok: true; value: T; error?: undefined } | { ok: false; error: unknown };

/** The outcome of `promise`, resolved or rejected, as a value (never throws). */
export async function settle<T>(promise: Promise<T>): Promise<Settled<T>> {
	return await promise.then(
		(value): Settled<T> => ({ ok: true, value }),
		(error: unknown): Settled<T> => ({ ok: false, error }),
	);
}

/** `error` as n8n's error of a node: a NodeApiError or NodeOperationError as is, anything else wrapped. */
export function asNodeError(
	node: INode,
	error: unknown,
	itemIndex?: number,
): NodeApiError | NodeOperationError {
	return error instanceof NodeApiError || error instanceof NodeOperationError
		? error
		: new NodeOperationError(node, error as Error, { itemIndex });
}
