import { createHash } from 'crypto';
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { IDEMPOTENCY_KEY_PATTERN } from './constants';

const KEY_RE = new RegExp(IDEMPOTENCY_KEY_PATTERN);

/** JSON with sorted keys, so the same body always gives the same key. */
export function canonicalJson(value: unknown): string {
	if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
	if (value !== null && typeof value === 'object') {
		const entries = Object.keys(value as IDataObject)
			.filter((k) => (value as IDataObject)[k] !== undefined)
			.sort()
			.map((k) => `${JSON.stringify(k)}:${canonicalJson((value as IDataObject)[k])}`);
		return `{${entries.join(',')}}`;
	}
	return JSON.stringify(value);
}

/** The fields of n8n's execution context (n8n 2.x) this package reads; undefined where n8n has none. */
export interface ExecutionContextFields {
	establishedAt?: unknown;
	source?: unknown;
	triggerNode?: { name?: unknown; type?: unknown };
}

/** n8n's execution context (`getExecutionContext()`, n8n 2.x), or undefined on versions without it. */
export function executionContextOf(ctx: IExecuteFunctions): ExecutionContextFields | undefined {
	const getContext = (ctx as Partial<IExecuteFunctions>).getExecutionContext;
	if (typeof getContext !== 'function') return undefined;
	return (getContext.call(ctx) as ExecutionContextFields | undefined) ?? undefined;
}

/**
 * What stays the same across n8n's recoveries of one execution: the root execution's start, which n8n
 * copies into every retry of it (n8n 2.x also after a crash; 1.x after a crash only with "save
 * execution progress"). Older n8n without it: the execution id (same execution: Retry On Fail).
 */
export function executionAnchor(ctx: IExecuteFunctions): string {
	const context = executionContextOf(ctx);
	if (context && typeof context.establishedAt === 'number') {
		return `${String(context.source ?? '')}@${context.establishedAt}`;
	}
	return `execution:${ctx.getExecutionId() ?? ''}`;
}

/**
 * One key per intent: the same root execution, node, item and request body always give the same
 * key, so the transport's own retries, n8n's "Retry On Fail" and n8n's Retry of a failed (or
 * crashed) execution reuse it, and the service answers `replayed: true` instead of creating a
 * second job. A new run of the workflow is a new intent: it gets a new key.
 */
export function deriveIdempotencyKey(
	ctx: IExecuteFunctions,
	itemIndex: number,
	purpose: string,
	body: unknown,
): string {
	const node = ctx.getNode();
	const workflowId = ctx.getWorkflow().id ?? '';
	const material = [
		workflowId,
		executionAnchor(ctx),
		node.id ?? node.name,
		String(itemIndex),
		purpose,
		canonicalJson(body),
	].join('\u0000');
	return `n8n.${purpose}.${createHash('sha256').update(material).digest('hex').slice(0, 48)}`;
}

/** The key of an upload is the file's sha256: the same bytes always replay the existing asset. */
export function uploadIdempotencyKey(sha256: string): string {
	return `asset.sha256.${sha256}`;
}

export function isValidIdempotencyKey(key: string): boolean {
	return KEY_RE.test(key);
}

/** A user-given key (e.g. a row id) is checked locally so a bad one costs no request. */
export function checkIdempotencyKey(
	ctx: IExecuteFunctions,
	key: string,
	itemIndex: number,
): string {
	if (!isValidIdempotencyKey(key)) {
		throw new NodeOperationError(
			ctx.getNode(),
			`Idempotency Key "${key}" is not valid: it must be 16 to 128 characters from A-Z a-z 0-9 _ . : - (it is ${key.length} characters long).`,
			{ itemIndex },
		);
	}
	return key;
}
