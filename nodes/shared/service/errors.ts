// Every error the nodes show, in English with what to do: the service's error codes (its Errors table),
// what n8n's HTTP helper throws (network failures, n8n's SSRF protection), a cancelled execution, and the
// one way an error is handed to n8n (asNodeError). Errors are told apart by their code, never by the
// service's Portuguese message.
import type { INode, JsonObject } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

/** What the service said, as read from an error envelope (or what we could tell when it was not one). */
export interface ServiceErrorInfo {
	httpCode: number;
	code: string;
	/** The service's own text (Portuguese), from its error envelope; empty when there was none. */
	serviceMessage: string;
	/** What the node could tell when the answer was not the service's envelope (English). */
	detail?: string;
	requestId: string | null;
	retryAfterSeconds?: number;
	/** When the wait ends (ms since epoch), as measured by the package's clock. */
	retryAt?: number;
}

export interface ErrorContext {
	method: string;
	path: string;
	itemIndex?: number;
	/** For insufficient_credits: credits needed by the request, when the node knows it (from a quote). */
	creditsNeeded?: number;
	creditsAvailable?: number;
}

type MessageFn = (info: ServiceErrorInfo, ctx: ErrorContext) => string;

/** Which scope each API area needs, used to name it in `insufficient_scope` errors. */
const SCOPE_BY_PATH: Array<[RegExp, string, string]> = [
	[/^\/balance/, 'GET', 'balance:read'],
	[/^\/usage/, 'GET', 'usage:read'],
	[/^\/assets/, 'GET', 'assets:read'],
	[/^\/assets/, 'POST', 'assets:write'],
	[/^\/assets/, 'DELETE', 'assets:write'],
	[/^\/personas/, 'GET', 'personas:read'],
	[/^\/jobs/, 'GET', 'jobs:read'],
	[/^\/jobs/, 'POST', 'jobs:write'],
];

function scopeFor(method: string, path: string): string | undefined {
	const found = SCOPE_BY_PATH.find(([re, m]) => m === method.toUpperCase() && re.test(path));
	return found?.[2];
}

/** The id a request path names (`/assets/asset_…` → `asset_…`), for messages that must stand alone. */
function idInPath(path: string): string | undefined {
	return /\/((?:job|asset|prs)_[A-Za-z0-9]+)/.exec(path)?.[1];
}

const retryHint = (info: ServiceErrorInfo) =>
	info.retryAfterSeconds !== undefined
		? ` Try again in ${info.retryAfterSeconds} s` +
			(info.retryAt !== undefined ? ` (after ${new Date(info.retryAt).toISOString()}).` : '.')
		: ' Try again later.';

/**
 * English message with what to do, for every code of the spec's Errors table.
 * The node branches on `error.code` only; the Portuguese `message` goes to the description.
 */
export const ERROR_MESSAGES: Record<string, MessageFn> = {
	invalid_field: () =>
		'The service rejected a field of the request as invalid. Check the node parameters (ids, prompt length, duration 1–30, aspect ratio) and run again.',
	unknown_field: () =>
		'The service rejected a field it does not know. Remove extra fields from the request and run again.',
	invalid_json: () =>
		'The service could not read the request body as JSON. Check the node parameters.',
	invalid_idempotency_key: () =>
		'The Idempotency-Key is not valid: it must be 16 to 128 characters from A-Z a-z 0-9 _ . : -. Fix the "Idempotency Key" option or leave it empty to let the node make one.',
	api_key_required: () =>
		'No API key was sent. Open the Generation Service credential and fill in the API Key.',
	invalid_api_key: () =>
		'The API key was refused: it is wrong, expired or revoked. Create a new key in the dashboard and update the credential.',
	insufficient_credits: (_info, ctx) =>
		ctx.creditsNeeded !== undefined && ctx.creditsAvailable !== undefined
			? `Not enough credits: ${ctx.creditsAvailable} available, ${ctx.creditsNeeded} needed. Buy credits in the dashboard.`
			: 'Not enough credits on the account for this generation. Buy credits in the dashboard, or use a shorter duration.',
	key_credit_limit: () =>
		"This API key has reached its lifetime credit ceiling. Raise the key's ceiling or create a new key in the dashboard.",
	insufficient_scope: (_info, ctx) => {
		const scope = scopeFor(ctx.method, ctx.path);
		return scope
			? `The API key lacks the permission "${scope}" needed by this operation. Create a key with "${scope}" in the dashboard and update the credential.`
			: 'The API key lacks the permission needed by this operation. Create a key with the needed permission in the dashboard.';
	},
	origin_forbidden: () =>
		'The service refused a browser Origin header: API keys work only from servers. Call the service from n8n without an Origin header.',
	not_found: (_info, ctx) => {
		const id = idInPath(ctx.path);
		return id
			? `Not found: ${id} does not exist or belongs to another account. Check the id.`
			: 'Not found: the resource does not exist or belongs to another account. Check the id.';
	},
	asset_not_found: (_info, ctx) => {
		const id = idInPath(ctx.path);
		return `Asset not found: ${id ?? 'it'} does not exist or belongs to another account. Upload the file again or check the asset id.`;
	},
	idempotency_conflict: () =>
		'The Idempotency-Key was already used for a different request. Use another key for a new request, or send exactly the same request to get the earlier result.',
	output_not_ready: () =>
		'The job has not finished, so its video is not ready. Use "Wait for Job" (or Get) until the job has succeeded, then download.',
	asset_in_use: () =>
		'The asset is still referenced by a project, character or publication and cannot be deleted. Remove the reference first.',
	billing_financial_review: () =>
		'The account is frozen for a financial review, so new generations are blocked (running jobs still finish). Resolve the pending payment matter in the dashboard.',
	asset_too_large: () =>
		'The file is too large for the service: at most 20 MiB per file and 256 MiB / 100 files per account. Compress the file or delete old assets.',
	unsupported_media_type: () => 'The file type is not accepted. Use JPEG, PNG, WebP, MP4 or WebM.',
	media_signature_mismatch: () =>
		'The file bytes do not match the declared type (for example a PNG named .jpg). Set the right MIME type or convert the file.',
	asset_kind_mismatch: () =>
		'The file kind does not fit the mode: character replacement needs a video source and an image reference; image to video needs an image source.',
	mode_unavailable: () =>
		'This generation mode is not available now. Check Get Capabilities for the accepted modes.',
	rate_limited: (info) => `Too many requests for this API key.${retryHint(info)}`,
	ip_rate_limited: (info) => `Too many requests from this IP address.${retryHint(info)}`,
	upload_rate_limit: (info) =>
		`Upload limit reached (20 uploads per hour per account).${retryHint(info)} Uploading identical bytes again reuses the existing asset and does not count.`,
	engine_unavailable: () =>
		'The generation engine is unavailable right now; no credits were reserved. Try again later (see Get Capabilities for the reason).',
	storage_unavailable: () =>
		'File storage is unavailable right now; nothing was stored or charged. Try again later.',
	// Not in the spec's table (its 416 body is "not shown"); the local emulator answers this code.
	range_not_satisfiable: () =>
		'The byte range is outside the file. Use bytes=start-end within the file size, or leave Byte Range empty.',
	// Our own code for an answer that is not the envelope (HTML from a proxy, empty or non-JSON body).
	unexpected_response: (info) =>
		`The service answered HTTP ${info.httpCode} with something that is not its JSON error. Check that the Base URL of the credential points at the service (ending in /v1) and not at a proxy or web page.`,
	internal_error: (_info, ctx) => {
		const method = ctx.method.toUpperCase();
		// only a create or an upload carries an Idempotency-Key; the others are safe to run again for their own reason
		const safe =
			method === 'GET'
				? 'the node already retried the request; run again later (it only reads: running it again changes nothing).'
				: method === 'DELETE'
					? 'the node already retried the request; run again later (deleting again is safe: a file already deleted answers 404).'
					: /^\/jobs\/quote/.test(ctx.path)
						? 'the node already retried the request; run again later (a quote reserves nothing).'
						: 'the node already retried with the same Idempotency-Key; run again later (it is safe: the same key never creates a second generation or upload).';
		return `The service had an internal error: ${safe}`;
	},
};

function fallbackMessage(info: ServiceErrorInfo): string {
	if (info.httpCode >= 500) return `The service failed (HTTP ${info.httpCode}). Try again later.`;
	return `The service refused the request (HTTP ${info.httpCode}, code "${info.code}").`;
}

export function englishMessage(info: ServiceErrorInfo, ctx: ErrorContext): string {
	const fn = ERROR_MESSAGES[info.code];
	return fn ? fn(info, ctx) : fallbackMessage(info);
}

/** Builds the NodeApiError for an error answer of the service. Never given anything that holds the key. */
export function serviceError(node: INode, info: ServiceErrorInfo, ctx: ErrorContext): NodeApiError {
	const parts = [`Service code: ${info.code}`, `HTTP ${info.httpCode}`];
	if (info.requestId) parts.push(`Request ID: ${info.requestId}`);
	if (info.detail) parts.push(info.detail);
	if (info.serviceMessage) {
		parts.push(`The service's own words (Portuguese): "${info.serviceMessage}"`);
	}
	const body: JsonObject = {
		error: { code: info.code, message: info.serviceMessage },
		requestId: info.requestId,
		httpCode: String(info.httpCode),
	};
	const error = new NodeApiError(node, body, {
		message: englishMessage(info, ctx),
		description: parts.join(' · '),
		httpCode: String(info.httpCode),
		itemIndex: ctx.itemIndex,
	});
	error.context.errorCode = info.code;
	error.context.requestId = info.requestId;
	if (info.retryAfterSeconds !== undefined)
		error.context.retryAfterSeconds = info.retryAfterSeconds;
	return error;
}

/** Reads an error answer: the spec's envelope, or a clear stand-in for HTML / empty / non-JSON bodies. */
export function parseErrorBody(
	httpCode: number,
	body: unknown,
	headers: Record<string, unknown>,
): ServiceErrorInfo {
	const headerRequestId =
		typeof headers['x-request-id'] === 'string' ? headers['x-request-id'] : null;
	let parsed: unknown = body;
	if (typeof body === 'string') {
		try {
			parsed = body.trim() === '' ? null : JSON.parse(body);
		} catch {
			parsed = body;
		}
	}
	if (
		parsed !== null &&
		typeof parsed === 'object' &&
		'error' in parsed &&
		typeof (parsed as { error: unknown }).error === 'object'
	) {
		const envelope = parsed as {
			error: { code?: unknown; message?: unknown };
			requestId?: unknown;
		};
		return {
			httpCode,
			code: typeof envelope.error.code === 'string' ? envelope.error.code : 'unknown_error',
			serviceMessage: typeof envelope.error.message === 'string' ? envelope.error.message : '',
			requestId: typeof envelope.requestId === 'string' ? envelope.requestId : headerRequestId,
		};
	}
	const kind =
		parsed === null || parsed === undefined || parsed === ''
			? 'an empty body'
			: typeof parsed === 'string' && /<html|<!doctype/i.test(parsed)
				? 'an HTML page (probably from a proxy or gateway in front of the service)'
				: 'a body that is not the service’s JSON error';
	return {
		httpCode,
		code: 'unexpected_response',
		serviceMessage: '',
		detail: `HTTP ${httpCode} with ${kind}`,
		requestId: headerRequestId,
	};
}

// ---- What n8n's HTTP helper throws: a network failure, or n8n's SSRF protection refusing the address ----

/** Transport failures worth another try (a fixed list). */
export const TRANSIENT_CODES = new Set([
	'ECONNRESET',
	'ECONNABORTED',
	'ETIMEDOUT',
	'EPIPE',
	'ECONNREFUSED',
	'EAI_AGAIN',
	'UND_ERR_SOCKET',
	'UND_ERR_HEADERS_TIMEOUT',
	'UND_ERR_BODY_TIMEOUT',
	'ERR_STREAM_PREMATURE_CLOSE',
]);

/** Plain words for a transport failure (n8n rewrites messages that contain the raw codes). */
export function describeTransportFailure(code: string | undefined): string {
	switch (code) {
		case 'ECONNRESET':
		case 'EPIPE':
		case 'UND_ERR_SOCKET':
		case 'ERR_STREAM_PREMATURE_CLOSE':
			return 'the connection was reset';
		case 'ECONNABORTED':
		case 'ETIMEDOUT':
		case 'UND_ERR_HEADERS_TIMEOUT':
		case 'UND_ERR_BODY_TIMEOUT':
			return 'the request timed out';
		case 'ECONNREFUSED':
			return 'the connection was refused';
		case 'EAI_AGAIN':
			return 'the host name could not be resolved';
		default:
			return 'the network request failed';
	}
}

const TRANSIENT_TEXT: Array<[RegExp, string]> = [
	[/ECONNRESET|socket hang up|\baborted\b|closed unexpectedly|terminated/i, 'ECONNRESET'],
	[/ETIMEDOUT|ECONNABORTED|timeout of \d+ms|timed out/i, 'ETIMEDOUT'],
	[/ECONNREFUSED|refused the connection/i, 'ECONNREFUSED'],
	[/EPIPE/, 'EPIPE'],
	[/EAI_AGAIN/, 'EAI_AGAIN'],
];

/**
 * The transport failure behind an error thrown by n8n's HTTP helper. n8n wraps it differently across
 * versions (cause, errorResponse, or only a rewritten message), so look at codes first, then at texts.
 */
export function findErrorCode(
	error: unknown,
	depth = 0,
	seen = new Set<unknown>(),
): string | undefined {
	if (depth > 6 || typeof error !== 'object' || error === null || seen.has(error)) return undefined;
	seen.add(error);
	const e = error as Record<string, unknown>;
	if (typeof e.code === 'string' && (TRANSIENT_CODES.has(e.code) || e.code === 'ERR_CANCELED')) {
		return e.code;
	}
	if (e.name === 'AbortError' || e.name === 'CanceledError') return 'ERR_CANCELED';
	for (const key of ['cause', 'errorResponse', 'error', 'reason', 'originalError']) {
		const found = findErrorCode(e[key], depth + 1, seen);
		if (found) return found;
	}
	const texts = [e.message, e.description, ...(Array.isArray(e.messages) ? e.messages : [])];
	for (const text of texts) {
		if (typeof text !== 'string') continue;
		const hit = TRANSIENT_TEXT.find(([re]) => re.test(text));
		if (hit) return hit[1];
	}
	return undefined;
}

/** The request never got an answer (`failures` tries so far, this one included). */
export function unreachableError(
	node: INode,
	call: {
		method: string;
		path: string;
		itemIndex?: number;
		idempotencyKey?: string;
		transportCode: string;
		failures: number;
		retried: boolean;
	},
): NodeOperationError {
	return new NodeOperationError(
		node,
		`Could not reach the Generation Service: ${describeTransportFailure(call.transportCode)} for ${call.method} ${call.path}` +
			(call.retried ? ` after ${call.failures} tries.` : '.') +
			(call.idempotencyKey
				? ` Running the node again is safe: it reuses the Idempotency-Key ${call.idempotencyKey}, so nothing is created twice.`
				: ' Check the Base URL and the network, then run again.'),
		{ itemIndex: call.itemIndex },
	);
}

/**
 * n8n (2.41.x, @n8n/backend-network) throws these errors, without an error code, when its SSRF protection
 * blocks a request: the class name is the stable part (its `name` property), so it is what we branch on.
 */
const SSRF_ERROR_NAMES: Record<string, SsrfBlock['kind']> = {
	SsrfBlockedIpError: 'ip',
	SsrfBlockedHostnameError: 'hostname',
};

export interface SsrfBlock {
	kind: 'ip' | 'hostname';
	/** The refused address or host name, when n8n's error names it (never holds the key). */
	target?: string;
}

/** The SSRF block behind an error thrown by n8n's HTTP helper (wrapped by axios or n8n), if it is one. */
export function findSsrfBlock(
	error: unknown,
	depth = 0,
	seen = new Set<unknown>(),
): SsrfBlock | undefined {
	if (depth > 6 || typeof error !== 'object' || error === null || seen.has(error)) return undefined;
	seen.add(error);
	const e = error as Record<string, unknown>;
	const kind = typeof e.name === 'string' ? SSRF_ERROR_NAMES[e.name] : undefined;
	const target = kind === 'ip' ? e.ip : kind === 'hostname' ? e.hostname : undefined;
	if (kind && typeof target === 'string') return { kind, target };
	// a wrapper (axios copies the name) may come first: the original, with its address, is further in
	for (const key of ['cause', 'errorResponse', 'error', 'reason', 'originalError']) {
		const found = findSsrfBlock(e[key], depth + 1, seen);
		if (found) return found;
	}
	return kind ? { kind } : undefined;
}

/** The error the node throws for an SSRF block: what happened, and the two settings that allow the address. */
export function ssrfError(
	node: INode,
	block: SsrfBlock,
	call: string,
	itemIndex?: number,
): NodeOperationError {
	const what = block.target
		? `${block.kind === 'ip' ? 'the address' : 'the host name'} ${block.target}`
		: "the Base URL's address";
	const error = new NodeOperationError(
		node,
		`n8n's SSRF protection blocked the request to the Generation Service (${call}): ${what} is in a range n8n blocks. ` +
			'If the service really is there, allow it on the n8n instance: add its host name to N8N_SSRF_ALLOWED_HOSTNAMES or its address range (for example 10.0.0.5/32) to N8N_SSRF_ALLOWED_IP_RANGES, then restart n8n. Nothing was sent to the service.',
		{
			itemIndex,
			description:
				'N8N_SSRF_PROTECTION_ENABLED=true refuses private, loopback and link-local addresses unless they are allowed. Ask your n8n administrator, or check the Base URL of the credential.',
		},
	);
	error.context.errorCode = 'ssrf_blocked';
	return error;
}

// ---- The node's own side ----

/** The error of an execution cancelled while `what`. */
export function cancelled(node: INode, itemIndex: number | undefined, what = 'waiting') {
	return new NodeOperationError(node, `The execution was cancelled while ${what}.`, { itemIndex });
}

/**
 * `error` as n8n's error of a node, for item `itemIndex`: a NodeApiError or NodeOperationError as it is
 * (n8n's own constructors hand such an error back unchanged too), with the item named if it named none;
 * anything else wrapped. The one way the nodes rethrow.
 */
export function asNodeError(
	node: INode,
	error: unknown,
	itemIndex?: number,
): NodeApiError | NodeOperationError {
	if (error instanceof NodeApiError || error instanceof NodeOperationError) {
		if (error.context.itemIndex === undefined && itemIndex !== undefined) {
			error.context.itemIndex = itemIndex;
		}
		return error;
	}
	return new NodeOperationError(node, error as Error, { itemIndex });
}

/**
 * Whether a failed create (or upload) answer says the service made nothing: a refusal (4xx), or 503,
 * which the spec says reserves no credit. No answer at all, or another 5xx after the retries: the
 * service may have made it.
 */
export function createdNothing(error: unknown): boolean {
	if (!(error instanceof NodeApiError)) return false;
	const status = Number(error.httpCode);
	return (status >= 400 && status < 500) || status === 503;
}
