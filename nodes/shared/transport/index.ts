import type {
	IDataObject,
	IExecuteFunctions,
	IHttpRequestMethods,
	IHttpRequestOptions,
	ILoadOptionsFunctions,
	INode,
	IPollFunctions,
} from 'n8n-workflow';
import { NodeOperationError, sleep } from 'n8n-workflow';

import { CREDENTIAL_NAME } from '../constants';
import type { ErrorContext } from './errors';
import { parseErrorBody, serviceError } from './errors';

export type ServiceContext = IExecuteFunctions | ILoadOptionsFunctions | IPollFunctions;

/** Readable as n8n's helpers type it (importing node:stream is not allowed in node code). */
export type BinaryStream = Parameters<IExecuteFunctions['helpers']['prepareBinaryData']>[0];

export interface ServiceRequest {
	method: IHttpRequestMethods;
	/** Path below the base URL, starting with '/', e.g. '/jobs'. */
	path: string;
	qs?: IDataObject;
	body?: IDataObject;
	headers?: IDataObject;
	idempotencyKey?: string;
	itemIndex?: number;
	/** Seconds a rate-limit wait may last before the node fails instead (default 60). */
	maxWaitSeconds?: number;
	/** A POST with no side effect (quote) may be retried like a GET. */
	safeToRetry?: boolean;
	timeoutMs?: number;
	/** Extra context for error messages. */
	errorContext?: Partial<ErrorContext>;
}

export interface RawResponse {
	statusCode: number;
	headers: Record<string, unknown>;
	body: unknown;
}

/** Clock used for every wait; tests swap it for a fake one (no real sleeping in unit tests). */
export interface TransportClock {
	now(): number;
	random(): number;
	sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

const realClock: TransportClock = {
	now: () => Date.now(),
	random: () => Math.random(),
	sleep: async (ms, signal) => await sleep(ms, signal),
};

let clock: TransportClock = realClock;

export function setTransportClock(next: TransportClock | undefined): void {
	clock = next ?? realClock;
}

export const RETRY_POLICY = {
	attempts: 3,
	baseDelayMs: 500,
	maxRateLimitRetries: 8,
	defaultMaxWaitSeconds: 60,
	defaultTimeoutMs: 60_000,
};

/** Rate-limit window seen per credential (and base URL): when Remaining reaches 0, wait until Reset. */
const rateWindows = new Map<string, { remaining: number; resetAtMs: number }>();

export function resetRateWindows(): void {
	rateWindows.clear();
}

const TRANSIENT_CODES = new Set([
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
function describeTransportFailure(code: string | undefined): string {
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
function findErrorCode(error: unknown, depth = 0, seen = new Set<unknown>()): string | undefined {
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

function cancelSignal(ctx: ServiceContext): AbortSignal | undefined {
	const withSignal = ctx as Partial<IExecuteFunctions>;
	return typeof withSignal.getExecutionCancelSignal === 'function'
		? withSignal.getExecutionCancelSignal()
		: undefined;
}

function isLoopbackHost(hostname: string): boolean {
	const host = hostname.replace(/^\[|\]$/g, '').toLowerCase();
	return host === 'localhost' || host === '::1' || /^127(\.\d{1,3}){3}$/.test(host);
}

/**
 * Checks the credential's Base URL: must end in /v1 (a trailing slash is tolerated), and use https
 * unless the host is loopback. Returns it without trailing slash, or an English reason.
 */
export function checkBaseUrl(raw: unknown): { baseUrl: string } | { problem: string } {
	const text = typeof raw === 'string' ? raw.trim().replace(/\/+$/, '') : '';
	if (!text)
		return {
			problem: 'The credential has no Base URL. Set it to the service address ending in /v1.',
		};
	let url: URL;
	try {
		url = new URL(text);
	} catch {
		return {
			problem: `The credential's Base URL "${text}" is not a valid URL. Use the form https://host/v1.`,
		};
	}
	if (url.protocol !== 'https:' && url.protocol !== 'http:') {
		return {
			problem: `The credential's Base URL must start with https:// (got "${url.protocol}").`,
		};
	}
	if (url.protocol === 'http:' && !isLoopbackHost(url.hostname)) {
		return {
			problem: `The credential's Base URL uses http:// for "${url.hostname}": the API key would travel in plain text. Use https://, or http:// only for a loopback host such as the local emulator (127.0.0.1).`,
		};
	}
	if (!/\/v1$/.test(url.pathname)) {
		return {
			problem: `The credential's Base URL must end in /v1 (for example https://api.example.com/v1); "${text}" does not.`,
		};
	}
	if (url.search || url.hash || url.username || url.password) {
		return {
			problem: "The credential's Base URL must not contain a query, fragment or user info.",
		};
	}
	return { baseUrl: text };
}

/** Base URL read once per node run (context), not once per request: polls and retries reuse it. */
const baseUrls = new WeakMap<object, string>();

async function resolveBaseUrl(ctx: ServiceContext, itemIndex?: number): Promise<string> {
	const known = baseUrls.get(ctx);
	if (known) return known;
	const credentials = await ctx.getCredentials(CREDENTIAL_NAME, itemIndex);
	const checked = checkBaseUrl(credentials.baseUrl);
	if ('problem' in checked) {
		throw new NodeOperationError(ctx.getNode(), checked.problem, { itemIndex });
	}
	baseUrls.set(ctx, checked.baseUrl);
	return checked.baseUrl;
}

function windowKey(node: INode, baseUrl: string): string {
	const credential = node.credentials?.[CREDENTIAL_NAME];
	return `${credential?.id ?? credential?.name ?? 'default'}@${baseUrl}`;
}

function headerNumber(headers: Record<string, unknown>, name: string): number | undefined {
	const value = headers[name];
	const text = Array.isArray(value) ? value[0] : value;
	if (typeof text !== 'string' && typeof text !== 'number') return undefined;
	const n = Number(text);
	return Number.isFinite(n) ? n : undefined;
}

function rememberWindow(key: string, headers: Record<string, unknown>): void {
	const remaining = headerNumber(headers, 'x-ratelimit-remaining');
	const reset = headerNumber(headers, 'x-ratelimit-reset');
	if (remaining === undefined || reset === undefined) return;
	rateWindows.set(key, { remaining, resetAtMs: reset * 1000 });
}

/** Current time of the transport's clock (so polling and tests share one clock). */
export function now(): number {
	return clock.now();
}

/** Waits with n8n's sleep; stops with a clear error when the execution is cancelled. */
export async function wait(
	ctx: ServiceContext,
	ms: number,
	itemIndex: number | undefined,
): Promise<void> {
	const signal = cancelSignal(ctx);
	if (signal?.aborted) {
		throw new NodeOperationError(ctx.getNode(), 'The execution was cancelled while waiting.', {
			itemIndex,
		});
	}
	if (ms <= 0) return;
	try {
		await clock.sleep(ms, signal);
	} catch {
		throw new NodeOperationError(ctx.getNode(), 'The execution was cancelled while waiting.', {
			itemIndex,
		});
	}
}

function tooLongWait(
	ctx: ServiceContext,
	seconds: number,
	maxWaitSeconds: number,
	request: ServiceRequest,
	response?: RawResponse,
) {
	const info = response
		? parseErrorBody(response.statusCode, response.body, response.headers)
		: {
				httpCode: 429,
				code: 'rate_limited',
				serviceMessage: 'X-RateLimit-Remaining is 0',
				requestId: null,
			};
	info.retryAfterSeconds = seconds;
	info.retryAt = clock.now() + seconds * 1000;
	const error = serviceError(ctx.getNode(), info, {
		method: request.method,
		path: request.path,
		itemIndex: request.itemIndex,
		...request.errorContext,
	});
	error.message = `${error.message} The node does not wait longer than ${maxWaitSeconds} s (option "Max Rate-Limit Wait").`;
	return error;
}

export function backoffMs(attempt: number): number {
	const exp = RETRY_POLICY.baseDelayMs * 2 ** (attempt - 1);
	return Math.round(exp / 2 + clock.random() * (exp / 2));
}

/**
 * The one way every node talks to the service. Applies the credential (bearer), paces on
 * X-RateLimit-*, waits Retry-After on 429, retries 5xx / timeouts / resets with the same
 * Idempotency-Key when the call is safe to repeat, and never repeats other 4xx.
 * `buildBody` is called for every attempt so streamed bodies are fresh each time.
 */
export async function sendRequest(
	ctx: ServiceContext,
	request: ServiceRequest,
	extra: {
		buildBody?: () => Promise<unknown>;
		encoding?: IHttpRequestOptions['encoding'];
		json?: boolean;
	} = { json: true },
): Promise<RawResponse> {
	const node = ctx.getNode();
	const baseUrl = await resolveBaseUrl(ctx, request.itemIndex);
	const key = windowKey(node, baseUrl);
	const maxWaitSeconds = request.maxWaitSeconds ?? RETRY_POLICY.defaultMaxWaitSeconds;
	const method = request.method.toUpperCase();
	const retryable =
		method === 'GET' || method === 'DELETE' || !!request.idempotencyKey || !!request.safeToRetry;
	const headers: IDataObject = { Accept: 'application/json', ...request.headers };
	if (request.idempotencyKey) headers['Idempotency-Key'] = request.idempotencyKey;
	const errorContext: ErrorContext = {
		method,
		path: request.path,
		itemIndex: request.itemIndex,
		...request.errorContext,
	};

	let failures = 0;
	let rateLimited = 0;
	for (;;) {
		const window = rateWindows.get(key);
		if (window && window.remaining <= 0 && window.resetAtMs > clock.now()) {
			const ms = window.resetAtMs - clock.now();
			if (ms > maxWaitSeconds * 1000) {
				throw tooLongWait(ctx, Math.ceil(ms / 1000), maxWaitSeconds, request);
			}
			ctx.logger.debug(`Generation Service: rate window exhausted, waiting ${ms} ms`, {
				path: request.path,
			});
			await wait(ctx, ms, request.itemIndex);
			rateWindows.delete(key);
		}

		const options: IHttpRequestOptions = {
			method: request.method,
			url: `${baseUrl}${request.path}`,
			qs: request.qs,
			headers,
			returnFullResponse: true,
			ignoreHttpStatusErrors: true,
			disableFollowRedirect: true,
			sendCredentialsOnCrossOriginRedirect: false,
			timeout: request.timeoutMs ?? RETRY_POLICY.defaultTimeoutMs,
		};
		if (extra.json !== false) options.json = true;
		if (extra.encoding) options.encoding = extra.encoding;
		if (extra.buildBody) {
			options.body = (await extra.buildBody()) as IHttpRequestOptions['body'];
		} else if (request.body !== undefined) {
			options.body = request.body;
		}

		let response: RawResponse | undefined;
		let transportCode: string | undefined;
		try {
			const raw = (await ctx.helpers.httpRequestWithAuthentication.call(
				ctx,
				CREDENTIAL_NAME,
				options,
			)) as { statusCode: number; headers: Record<string, unknown>; body: unknown };
			response = { statusCode: raw.statusCode, headers: raw.headers ?? {}, body: raw.body };
		} catch (error) {
			// The caught error may hold the request (and so the Authorization header): keep only its code.
			transportCode = findErrorCode(error) ?? 'EUNKNOWN';
		}

		if (!response) {
			if (transportCode === 'ERR_CANCELED' || cancelSignal(ctx)?.aborted) {
				throw new NodeOperationError(node, 'The execution was cancelled.', {
					itemIndex: request.itemIndex,
				});
			}
			failures++;
			const transient = TRANSIENT_CODES.has(transportCode ?? '');
			if (transient && retryable && failures < RETRY_POLICY.attempts) {
				ctx.logger.debug(
					`Generation Service: ${describeTransportFailure(transportCode)}, retrying`,
					{ path: request.path },
				);
				await wait(ctx, backoffMs(failures), request.itemIndex);
				continue;
			}
			throw new NodeOperationError(
				node,
				`Could not reach the Generation Service: ${describeTransportFailure(transportCode)} for ${method} ${request.path}` +
					(retryable ? ` after ${failures} tries.` : '.') +
					(request.idempotencyKey
						? ` Running the node again is safe: it reuses the Idempotency-Key ${request.idempotencyKey}, so nothing is created twice.`
						: ' Check the Base URL and the network, then run again.'),
				{ itemIndex: request.itemIndex },
			);
		}

		rememberWindow(key, response.headers);
		const status = response.statusCode;
		if (status >= 200 && status < 300) return response;

		if (status === 429) {
			const retryAfter = headerNumber(response.headers, 'retry-after') ?? 1;
			rateLimited++;
			if (retryAfter > maxWaitSeconds || rateLimited > RETRY_POLICY.maxRateLimitRetries) {
				throw tooLongWait(ctx, retryAfter, maxWaitSeconds, request, await readBody(response));
			}
			ctx.logger.debug(`Generation Service: 429, waiting ${retryAfter} s (Retry-After)`, {
				path: request.path,
			});
			await wait(ctx, retryAfter * 1000, request.itemIndex);
			continue;
		}

		if (status >= 500 && retryable) {
			failures++;
			if (failures < RETRY_POLICY.attempts) {
				await readBody(response); // let the connection go before the next try
				await wait(ctx, backoffMs(failures), request.itemIndex);
				continue;
			}
		}

		const info = parseErrorBody(status, (await readBody(response)).body, response.headers);
		throw serviceError(node, info, errorContext);
	}
}

async function streamToBuffer(stream: unknown): Promise<Buffer> {
	const chunks: Buffer[] = [];
	for await (const chunk of stream as AsyncIterable<Buffer | string>) {
		chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
	}
	return Buffer.concat(chunks);
}

function isStream(body: unknown): boolean {
	return (
		typeof body === 'object' &&
		body !== null &&
		typeof (body as { pipe?: unknown }).pipe === 'function'
	);
}

/** Error bodies of streamed responses are read as text so they can be parsed. */
async function readBody(response: RawResponse): Promise<RawResponse> {
	if (!isStream(response.body)) return response;
	try {
		const text = (await streamToBuffer(response.body)).toString('utf8');
		return { ...response, body: text };
	} catch {
		return { ...response, body: '' };
	}
}

/** The `data` of the success envelope; anything else (a proxy page, an empty 200) is a clear error. */
export function unwrapEnvelope<T>(
	ctx: ServiceContext,
	request: ServiceRequest,
	response: RawResponse,
): T {
	let body = response.body;
	if (typeof body === 'string') {
		try {
			body = JSON.parse(body);
		} catch {
			body = undefined;
		}
	}
	if (body === null || typeof body !== 'object' || !('data' in body)) {
		throw new NodeOperationError(
			ctx.getNode(),
			`The service answered ${request.method} ${request.path} with HTTP ${response.statusCode} but not with its JSON envelope. Check that the Base URL points at the service (ending in /v1).`,
			{ itemIndex: request.itemIndex },
		);
	}
	return (body as { data: T }).data;
}

/** JSON call; returns the envelope's `data`. */
export async function apiRequest<T = IDataObject>(
	ctx: ServiceContext,
	request: ServiceRequest,
): Promise<T> {
	return unwrapEnvelope<T>(ctx, request, await sendRequest(ctx, request));
}

export interface Page<T> {
	items: T[];
	nextCursor: string | null;
	[extra: string]: unknown;
}

/** Follows nextCursor. With returnAll false, stops as soon as `limit` items are in hand. */
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
	let cursor: string | null = null;
	do {
		const pageSize = Math.min(100, wanted - items.length);
		const qs: IDataObject = { ...request.qs, limit: pageSize };
		if (cursor) qs.cursor = cursor;
		const page: Page<T> = await apiRequest<Page<T>>(ctx, { ...request, qs });
		onPage?.(page);
		items.push(...page.items);
		cursor = page.nextCursor;
	} while (cursor && items.length < wanted);
	return items.slice(0, wanted === Infinity ? undefined : wanted);
}
