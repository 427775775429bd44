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

/**
 * One key per intent: the same execution, node, item and request body always give the same key,
 * so the transport's own retries and n8n's "Retry On Fail" (same execution) reuse it and the
 * service answers `replayed: true` instead of creating a second job.
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
		ctx.getExecutionId() ?? '',
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
