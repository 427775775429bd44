// One request to the service, its whole life in one place. Prepared once; each attempt waits for the key's
// pacer (pacing.ts), is checked once more at the last moment the package controls (a 429 answered to another
// request meanwhile holds the key), and is sent with the credential by n8n's httpRequestWithAuthentication;
// its answer teaches the pacer (rate headers, Retry-After, a refused key) and is classified: a result, a
// failure worth another try (no answer, a 5xx, a body that came wrong), a 429 that holds the key, or a
// refusal that is final. It is repeated only when that is safe — a GET, a DELETE, a POST with its
// Idempotency-Key (the same key on every try) or one without side effects — after a backoff, at most
// RETRY_POLICY.attempts times; 4xx are never sent twice. Also the one pager of the list endpoints.
import type { IDataObject, IHttpRequestMethods, IHttpRequestOptions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { CREDENTIAL_NAME } from '../constants';
import { runStore } from '../processState';
import { clock } from './clock';
import type { ErrorContext, ServiceErrorInfo, SsrfBlock } from './errors';
import {
	TRANSIENT_CODES,
	asNodeError,
	cancelled,
	describeTransportFailure,
	findErrorCode,
	findSsrfBlock,
	parseErrorBody,
	serviceError,
	ssrfError,
	unreachableError,
} from './errors';
import type { KeyPacer, Priority } from './pacing';
import { PacerStop, pacerFor, refuseKey } from './pacing';
import { headerNumber } from './rateWindow';
import type { ServiceContext, ServiceTarget } from './service';
import { cancelSignal, resolveService, wait } from './service';

export type { Priority } from './pacing';

export const RETRY_POLICY = {
	/** Tries of one request at most, whatever failed: no answer, a 5xx, a body that came wrong. */
	attempts: 3,
	baseDelayMs: 500,
	/** 429s one request sits out (each waits its Retry-After) before it fails. */
	maxRateLimitRetries: 8,
	defaultMaxWaitSeconds: 60,
	defaultTimeoutMs: 60_000,
};

/** Items per page of a list endpoint: the service's maximum. */
export const PAGE_SIZE = 100;

export interface ServiceRequest {
	method: IHttpRequestMethods;
	/** Path below the base URL, starting with '/', e.g. '/assets'. */
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
	priority?: Priority;
	/** Extra context for error messages. */
	errorContext?: Partial<ErrorContext>;
}

export interface RawResponse {
	statusCode: number;
	headers: Record<string, unknown>;
	body: unknown;
}

export interface Page<T> {
	items: T[];
	nextCursor: string | null;
	[extra: string]: unknown;
}

/** How a request's body and answer are carried, and how a 2xx answer is taken. */
export interface Exchange<T> {
	/** JSON body and answer (default); false for files. */
	json?: boolean;
	encoding?: IHttpRequestOptions['encoding'];
	/** A fresh body for every try (a stream is read once). */
	buildBody?: () => Promise<unknown>;
	/**
	 * Takes a 2xx answer: returns the result, or a BadAnswer when the answer came wrong (cut off, short, a
	 * checksum that does not match): it is asked for again like any failure. Default: the answer as is.
	 */
	receive?: (response: RawResponse) => Promise<T | BadAnswer>;
	/** The error when the last try's answer came wrong too (default: the BadAnswer's words). */
	giveUpOnBadAnswer?: (problem: string, tries: number) => Error;
}

/** A 2xx answer that came wrong, in words: the request is tried again, as after a failure without an answer. */
export class BadAnswer {
	constructor(readonly problem: string) {}
}

/** What every try of one request shares. */
interface Prepared {
	request: ServiceRequest;
	service: ServiceTarget;
	/** Upper case. */
	method: string;
	headers: IDataObject;
	errorContext: ErrorContext;
	signal: AbortSignal | undefined;
	maxWaitSeconds: number;
	timeoutMs: number;
	/** The request may be sent twice (GET, DELETE, an Idempotency-Key, or no side effect). */
	retryable: boolean;
	/** POST /assets: also held by a 429 upload_rate_limit. */
	upload: boolean;
}

/** A try's result: the service's answer, or the code of the transport failure that stopped it. */
type Sent =
	| { pacer: KeyPacer; response: RawResponse; transportCode?: undefined; ssrf?: undefined }
	| { pacer: KeyPacer; response?: undefined; transportCode: string; ssrf?: SsrfBlock };

/** What one try came to, as the loop of sendRequest needs it. */
type Outcome<T> =
	/** A 2xx taken: the request is done. */
	| { kind: 'answer'; value: T }
	/**
	 * No answer, a 5xx, or an answer that came wrong: tried again after a backoff when the request is safe
	 * to repeat, `worthRetry` and fewer than RETRY_POLICY.attempts failures; else `giveUp(failures)`.
	 */
	| {
			kind: 'failure';
			worthRetry: boolean;
			beforeRetry: () => Promise<void>;
			giveUp: (failures: number) => Promise<Error>;
	  }
	/** A 429: the key's pacer holds the key as told; sent again once it lets go, up to a bound. */
	| { kind: 'rateLimited'; giveUp: () => Error }
	/** An answer the same request would get again (4xx), or a cancelled execution. */
	| { kind: 'final'; error: Error };

/**
 * The one way the nodes talk to the service (see the top of this file). `exchange.receive` takes the
 * 2xx answer; without it the answer itself is the result.
 */
export async function sendRequest<T = RawResponse>(
	ctx: ServiceContext,
	request: ServiceRequest,
	exchange: Exchange<T> = {},
): Promise<T> {
	const method = request.method.toUpperCase();
	const headers: IDataObject = { Accept: 'application/json', ...request.headers };
	if (request.idempotencyKey) headers['Idempotency-Key'] = request.idempotencyKey;
	const prepared: Prepared = {
		request,
		service: await resolveService(ctx, request.itemIndex),
		method,
		headers,
		errorContext: {
			method,
			path: request.path,
			itemIndex: request.itemIndex,
			...request.errorContext,
		},
		signal: cancelSignal(ctx),
		maxWaitSeconds: request.maxWaitSeconds ?? RETRY_POLICY.defaultMaxWaitSeconds,
		timeoutMs: request.timeoutMs ?? RETRY_POLICY.defaultTimeoutMs,
		retryable:
			method === 'GET' || method === 'DELETE' || !!request.idempotencyKey || !!request.safeToRetry,
		upload: method === 'POST' && request.path === '/assets',
	};
	const refused = refusedBefore(ctx, prepared);
	if (refused) throw refused;
	let failures = 0;
	let rateLimited = 0;
	for (;;) {
		const outcome = await classify(
			ctx,
			prepared,
			await sendOnce(ctx, prepared, exchange),
			exchange,
		);
		switch (outcome.kind) {
			case 'answer':
				return outcome.value;
			case 'final':
				throw outcome.error;
			case 'rateLimited':
				rateLimited++;
				if (rateLimited > RETRY_POLICY.maxRateLimitRetries) throw outcome.giveUp();
				continue;
			case 'failure':
				failures++;
				if (outcome.worthRetry && prepared.retryable && failures < RETRY_POLICY.attempts) {
					await outcome.beforeRetry();
					await wait(ctx, backoffMs(failures), request.itemIndex);
					continue;
				}
				throw await outcome.giveUp(failures);
		}
	}
}

/** JSON call; returns the envelope's `data`. */
export async function apiRequest<T = IDataObject>(
	ctx: ServiceContext,
	request: ServiceRequest,
): Promise<T> {
	return unwrapEnvelope<T>(ctx, request, await sendRequest(ctx, request));
}

/**
 * The pages of a list endpoint, newest first, following nextCursor while the caller reads on (it stops by
 * leaving the loop). `pageSize` is asked before each page (default PAGE_SIZE).
 */
export async function* listPages<T = IDataObject>(
	ctx: ServiceContext,
	request: ServiceRequest,
	pageSize: () => number = () => PAGE_SIZE,
): AsyncGenerator<Page<T>> {
	let cursor: string | null = null;
	do {
		const qs: IDataObject = { ...request.qs, limit: pageSize() };
		if (cursor) qs.cursor = cursor;
		const page: Page<T> = await apiRequest<Page<T>>(ctx, { ...request, qs });
		yield page;
		cursor = page.nextCursor;
	} while (cursor);
}

/** Exponential backoff with jitter: attempt 1 → 250–500 ms, 2 → 500–1000 ms, … */
function backoffMs(attempt: number): number {
	const exp = RETRY_POLICY.baseDelayMs * 2 ** (attempt - 1);
	return Math.round(exp / 2 + clock.random() * (exp / 2));
}

// ---- One try: the pacer, the last moment, n8n's helper ----

/**
 * Requests on their way through n8n's helper, by the options object n8n hands the credential: the check
 * the credential's `authenticate` makes just before the request goes out (checkAtSend). Bounded by the
 * requests in flight: keyed weakly by their options, an entry goes with its request.
 */
const atSend = runStore<object, MayLeave>('requestsAtSend');

/** Whether a request the pacer let go may still leave (KeyPacer.mayStillLeave). */
type MayLeave = () => boolean;

/** The name of the error a request held back at the last moment is thrown with (through n8n's helper). */
const HELD_AT_SEND = 'GenerationServiceHeldAtSend';

/**
 * Called by the credential's `authenticate`, the last step of n8n's helper before the request goes out
 * (after n8n read the credential, which can take tens of milliseconds under load): a request of the package
 * that a hold or a refusal has overtaken since its pacer let it go is thrown back, not sent. Anything else
 * (n8n's credential test, another node using the credential) passes.
 */
export function checkAtSend(requestOptions: object): void {
	const mayLeave = atSend.get(requestOptions);
	if (!mayLeave || mayLeave()) return;
	const error = new Error(
		`${HELD_AT_SEND}: held back, the key was held or refused after the request was let go`,
	);
	error.name = HELD_AT_SEND;
	throw error;
}

/**
 * Whether n8n's helper threw because checkAtSend held the request back: n8n wraps the error (as its cause, or
 * only its message, depending on the version).
 */
function heldAtSend(error: unknown, depth = 0): boolean {
	if (depth > 6 || typeof error !== 'object' || error === null) return false;
	const e = error as Record<string, unknown>;
	if (e.name === HELD_AT_SEND) return true;
	if (typeof e.message === 'string' && e.message.startsWith(HELD_AT_SEND)) return true;
	return ['cause', 'errorResponse', 'error', 'reason'].some((key) => heldAtSend(e[key], depth + 1));
}

/** Waits until the key's pacer lets the request leave; a request it will not let leave fails here. */
async function admitted(ctx: ServiceContext, pacer: KeyPacer, prepared: Prepared): Promise<number> {
	try {
		return await pacer.acquire({
			priority: prepared.request.priority ?? 'normal',
			upload: prepared.upload,
			maxWaitMs: prepared.maxWaitSeconds * 1000,
			signal: prepared.signal,
		});
	} catch (error) {
		throw error instanceof PacerStop
			? notSent(ctx, error, prepared)
			: asNodeError(ctx.getNode(), error, prepared.request.itemIndex);
	}
}

/**
 * Sends the request once: when the key's pacer lets it leave, and as long as no hold or refusal overtook
 * it before it went out (then it waits for the pacer again; that is no try).
 */
async function sendOnce<T>(
	ctx: ServiceContext,
	prepared: Prepared,
	exchange: Exchange<T>,
): Promise<Sent> {
	const { request, service } = prepared;
	for (;;) {
		// Asked again for each try: an idle key's pacer may have been forgotten during a backoff.
		const pacer = pacerFor(service.serviceKey, service.baseUrl);
		const ticket = await admitted(ctx, pacer, prepared);
		if (!pacer.mayStillLeave(prepared.upload)) {
			pacer.giveBack(ticket);
			continue;
		}
		const options: IHttpRequestOptions = {
			method: request.method,
			url: `${service.baseUrl}${request.path}`,
			qs: request.qs,
			headers: prepared.headers,
			returnFullResponse: true,
			ignoreHttpStatusErrors: true,
			disableFollowRedirect: true,
			sendCredentialsOnCrossOriginRedirect: false,
			timeout: prepared.timeoutMs,
		};
		if (exchange.json !== false) options.json = true;
		if (exchange.encoding) options.encoding = exchange.encoding;
		let response: RawResponse;
		try {
			if (exchange.buildBody) {
				options.body = (await exchange.buildBody()) as IHttpRequestOptions['body'];
			} else if (request.body !== undefined) {
				options.body = request.body;
			}
			atSend.set(options, () => pacer.mayStillLeave(prepared.upload));
			const raw = (await ctx.helpers.httpRequestWithAuthentication.call(
				ctx,
				CREDENTIAL_NAME,
				options,
			)) as { statusCode: number; headers: Record<string, unknown>; body: unknown };
			response = { statusCode: raw.statusCode, headers: raw.headers ?? {}, body: raw.body };
		} catch (error) {
			if (heldAtSend(error)) {
				(options.body as { destroy?: () => void } | undefined)?.destroy?.();
				pacer.giveBack(ticket);
				continue;
			}
			pacer.settle(ticket);
			// The caught error may hold the request (and so the Authorization header): keep only its code, and
			// whether n8n's SSRF protection refused the address.
			return {
				pacer,
				transportCode: findErrorCode(error) ?? 'EUNKNOWN',
				ssrf: findSsrfBlock(error),
			};
		}
		pacer.settle(ticket, response.headers);
		return { pacer, response };
	}
}

// ---- The answer ----

/** Client errors that the same request would get again: it is not sent twice in a node run (fixed). */
const DEFINITIVE = new Set([400, 402, 403, 413, 415, 422]);

/**
 * Per node run: identical requests already refused with a definitive client error. Bounded by the runs
 * alive: keyed weakly by the run's context, an entry goes with its run; each holds ≤ the run's requests.
 */
const refusedInRun = runStore<object, Map<string, ServiceErrorInfo>>('refusedInRun');

function requestIdentity(request: ServiceRequest): string {
	return JSON.stringify([
		request.method.toUpperCase(),
		request.path,
		request.qs ?? null,
		request.body ?? null,
		request.idempotencyKey ?? null,
	]);
}

/** The error of a request this node run already saw refused for good; undefined when there is none. */
function refusedBefore(ctx: ServiceContext, prepared: Prepared): Error | undefined {
	const known = refusedInRun.get(ctx)?.get(requestIdentity(prepared.request));
	if (!known) return undefined;
	const error = serviceError(ctx.getNode(), known, prepared.errorContext);
	error.message = `${error.message} (Not sent again: the same request was just refused${known.requestId ? ` in request ${known.requestId}` : ''}.)`;
	return error;
}

function rememberRefusal(ctx: ServiceContext, request: ServiceRequest, info: ServiceErrorInfo) {
	const refused = refusedInRun.get(ctx) ?? new Map<string, ServiceErrorInfo>();
	refused.set(requestIdentity(request), info);
	refusedInRun.set(ctx, refused);
}

/** The error of a request the pacer did not let leave. */
function notSent(ctx: ServiceContext, stop: PacerStop, prepared: Prepared): Error {
	const { request, errorContext, maxWaitSeconds } = prepared;
	if (stop.reason === 'cancelled') {
		return cancelled(ctx.getNode(), request.itemIndex, 'waiting to send a request');
	}
	const info: ServiceErrorInfo = { ...(stop.info as ServiceErrorInfo) };
	if (stop.reason === 'refused') {
		const error = serviceError(ctx.getNode(), info, errorContext);
		error.message = `${error.message} (Not sent: the service already refused this API key${info.requestId ? ` in request ${info.requestId}` : ''}, and a refused key never works again.)`;
		return error;
	}
	const seconds = Math.ceil(stop.waitMs / 1000);
	info.retryAfterSeconds = seconds;
	info.retryAt = clock.now() + stop.waitMs;
	const error = serviceError(ctx.getNode(), info, errorContext);
	error.message = `${error.message} The node does not wait longer than ${maxWaitSeconds} s (option "Max Rate-Limit Wait").`;
	return error;
}

/** A non-2xx answer that ends the request: the service's error in English. */
async function refusal(
	ctx: ServiceContext,
	prepared: Prepared,
	sent: Sent & { response: RawResponse },
): Promise<Error> {
	const { response, pacer } = sent;
	const status = response.statusCode;
	const info = parseErrorBody(status, (await readBody(response)).body, response.headers);
	if (status === 401) refuseKey(pacer, info);
	if (DEFINITIVE.has(status)) rememberRefusal(ctx, prepared.request, info);
	return serviceError(ctx.getNode(), info, prepared.errorContext);
}

/** What one try's result means for the request (see Outcome). */
async function classify<T>(
	ctx: ServiceContext,
	prepared: Prepared,
	sent: Sent,
	exchange: Exchange<T>,
): Promise<Outcome<T>> {
	const { request, method } = prepared;
	if (!sent.response) {
		const code = sent.transportCode;
		if (code === 'ERR_CANCELED' || prepared.signal?.aborted) {
			return {
				kind: 'final',
				error: cancelled(ctx.getNode(), request.itemIndex, `calling ${method} ${request.path}`),
			};
		}
		if (sent.ssrf) {
			// n8n refused the address itself: nothing was sent, and another try would be refused the same way
			return {
				kind: 'final',
				error: ssrfError(ctx.getNode(), sent.ssrf, `${method} ${request.path}`, request.itemIndex),
			};
		}
		return {
			kind: 'failure',
			worthRetry: TRANSIENT_CODES.has(code),
			beforeRetry: async () =>
				ctx.logger.debug(`Generation Service: ${describeTransportFailure(code)}, retrying`, {
					path: request.path,
				}),
			giveUp: async (failures) =>
				unreachableError(ctx.getNode(), {
					method,
					path: request.path,
					itemIndex: request.itemIndex,
					idempotencyKey: request.idempotencyKey,
					transportCode: code,
					failures,
					retried: prepared.retryable,
				}),
		};
	}

	const { response, pacer } = sent;
	const status = response.statusCode;
	if (status >= 200 && status < 300) {
		if (!exchange.receive) return { kind: 'answer', value: response as T };
		const received = await exchange.receive(response);
		if (!(received instanceof BadAnswer)) return { kind: 'answer', value: received };
		const { problem } = received;
		ctx.logger.debug(`Generation Service: ${problem}, asking again`, { path: request.path });
		return {
			kind: 'failure',
			worthRetry: true,
			beforeRetry: async () => undefined,
			giveUp: async (failures) =>
				exchange.giveUpOnBadAnswer?.(problem, failures) ??
				new NodeOperationError(ctx.getNode(), problem, { itemIndex: request.itemIndex }),
		};
	}

	if (status === 429) {
		const info = parseErrorBody(status, (await readBody(response)).body, response.headers);
		pacer.slowDown(info, headerNumber(response.headers, 'retry-after'));
		ctx.logger.debug(`Generation Service: 429 ${info.code}, the key is held as told`, {
			path: request.path,
			heldUntil: new Date(pacer.heldUntil()).toISOString(),
		});
		return {
			kind: 'rateLimited',
			giveUp: () => notSent(ctx, new PacerStop('too_long', info, 0), prepared),
		};
	}

	if (status >= 500 && prepared.retryable) {
		return {
			kind: 'failure',
			worthRetry: true,
			beforeRetry: async () => {
				await readBody(response); // let the connection go before the next try
			},
			giveUp: async () => await refusal(ctx, prepared, sent),
		};
	}
	return { kind: 'final', error: await refusal(ctx, prepared, sent) };
}

// ---- Bodies ----

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
		const chunks: Buffer[] = [];
		for await (const chunk of response.body as AsyncIterable<Buffer | string>) {
			chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
		}
		return { ...response, body: Buffer.concat(chunks).toString('utf8') };
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
