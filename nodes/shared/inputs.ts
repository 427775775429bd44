// What a user typed in a form, checked before any request, so a mistake costs none: an ID picked or given
// (n8n checks a resource locator's pattern only in the editor; expressions reach execution unchecked), an
// Idempotency Key, a byte range.
import type { IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import {
	ASSET_ID_PATTERN,
	IDEMPOTENCY_KEY_PATTERN,
	JOB_ID_PATTERN,
	PERSONA_ID_PATTERN,
} from './constants';

const KEY_RE = new RegExp(IDEMPOTENCY_KEY_PATTERN);

const FORMS = {
	asset: {
		re: new RegExp(ASSET_ID_PATTERN),
		form: 'asset_ followed by 32 lowercase hex characters',
	},
	job: { re: new RegExp(JOB_ID_PATTERN), form: 'job_ followed by 32 lowercase hex characters' },
	persona: {
		re: new RegExp(PERSONA_ID_PATTERN),
		form: 'prs_ followed by 32 lowercase hex characters',
	},
};

/**
 * Reads a resource-locator parameter and checks the ID's form locally (n8n checks the regex only in
 * the editor; expressions reach execution unchecked), so a malformed ID costs no request.
 */
export function readId(
	ctx: IExecuteFunctions,
	parameter: string,
	kind: keyof typeof FORMS,
	i: number,
	label: string,
): string {
	const raw = ctx.getNodeParameter(parameter, i, '', { extractValue: true });
	const id = String(
		typeof raw === 'object' && raw !== null ? ((raw as { value?: unknown }).value ?? '') : raw,
	).trim();
	if (!id) {
		throw new NodeOperationError(
			ctx.getNode(),
			`${label} is required: pick one from the list or give its ID.`,
			{
				itemIndex: i,
			},
		);
	}
	if (!FORMS[kind].re.test(id)) {
		throw new NodeOperationError(
			ctx.getNode(),
			`${label} "${id}" is not a valid ${kind} ID (${FORMS[kind].form}).`,
			{ itemIndex: i },
		);
	}
	return id;
}

function isValidIdempotencyKey(key: string): boolean {
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

/**
 * Turns the Byte Range option into `bytes=<start>-<end>` (also accepts `start-end`, `start-` and
 * `-suffix`) and checks it against the asset's size, so an impossible range costs no request.
 */
export function normalizeRange(
	ctx: IExecuteFunctions,
	raw: string | undefined,
	byteSize: number | undefined,
	itemIndex: number,
): string | undefined {
	const text = (raw ?? '').replace(/\s+/g, '');
	if (!text) return undefined;
	const fail = (why: string) =>
		new NodeOperationError(
			ctx.getNode(),
			`"Byte Range" of item ${itemIndex} is not usable: ${why}. Use bytes=start-end (for example bytes=0-1023), bytes=start- or bytes=-lastBytes, or leave it empty for the whole file.`,
			{ itemIndex },
		);
	const match = /^(?:bytes=)?(\d*)-(\d*)$/i.exec(text);
	if (!match || (match[1] === '' && match[2] === ''))
		throw fail(`"${raw}" is not a single byte range`);
	const start = match[1] === '' ? undefined : Number(match[1]);
	const end = match[2] === '' ? undefined : Number(match[2]);
	if (start === undefined && end === 0) throw fail('a suffix range must ask for at least 1 byte');
	if (start !== undefined && end !== undefined && end < start) {
		throw fail(`the end (${end}) is before the start (${start})`);
	}
	if (start !== undefined && typeof byteSize === 'number' && start >= byteSize) {
		throw fail(`the start (${start}) is at or after the end of the file (${byteSize} bytes)`);
	}
	return `bytes=${match[1]}-${match[2]}`;
}
