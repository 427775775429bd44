// One request to the service: paced, authenticated by n8n, retried when safe, errors made clear.
import type { IDataObject, IExecuteFunctions, IHttpRequestOptions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { CREDENTIAL_NAME } from '../constants';
import { readBody, unwrapEnvelope } from './envelope';
import type { ErrorContext, ServiceErrorInfo } from './errors';
import { parseErrorBody, serviceError } from './errors';
import { PacerStop } from './pacer';
import { pacerFor, refuseKey } from './pacers';
import {
	RETRY_POLICY,
	TRANSIENT_CODES,
	backoffMs,
	describeTransportFailure,
	findErrorCode,
} from './retry';
import { knownService, resolveService } from './service';
import { findSsrfBlock, ssrfError } from './ssrf';
import { clock } from './serviceClock';
import type { Priority, RawResponse, ServiceContext, ServiceRequest } from './types';

/** The execution's cancel signal, when the context has one (poll and load-options contexts do not). */
export function cancelSignal(ctx: ServiceContext): AbortSignal | undefined {
	const withSignal = ctx as Partial<IExecuteFunctions>;
	return typeof withSignal.getExecutionCancelSignal === 'function'
		? withSignal.getExecutionCancelSignal()
		: undefined;
}

/** Current time of the package's clock (so polling and tests share one clock). */
export function now(): number {
	return clock.now();
}

function cancelled(ctx: ServiceContext, itemIndex: number | undefined, what = 'waiting') {
	return new NodeOperationError(ctx.getNode(), `The execution was cancelled while ${what}.`, {
		itemIndex,
	});
}

/** Waits on the package's clock; stops with a clear error when the execution is cancelled. */
export async function wait(
	ctx: ServiceContext,
	ms: number,
	itemIndex: number | undefined,
	what?: string,
): Promise<void> {
	const signal = cancelSignal(ctx);
	if (signal?.aborted) throw cancelled(ctx, itemIndex, what);
	if (ms <= 0) return;
	try {
		await clock.sleep(ms, signal);
	} catch {
		throw cancelled(ctx, itemIndex, what);
	}
}

function headerNumber(headers: Record<string, unknown>, name: string): number | undefined {
	const value = headers[name];
	const n = Number(Array.isArray(value) ? value[0] : value);
	return value !== undefined && Number.isFinite(n) ? n : undefined;
}

/** Client errors that the same request would get again: it is not sent twice in a node run (fixed). */
const DEFINITIVE = new Set([400, 402, 403, 413, 415, 422]);

/**
 * Per node run: identical requests already refused with a definitive client error. Bounded by the runs
 * alive: keyed weakly by the run's context, an entry goes with its run; each holds ≤ the run's requests.
 */
const refusedInRun = new WeakMap<object, Map<string, ServiceErrorInfo>>();

function requestIdentity(request: ServiceRequest): string {
	return JSON.stringify([
		request.method.toUpperCase(),
		request.path,
		request.qs ?? null,
		request.body ?? null,
		request.idempotencyKey ?? null,
	]);
}

/** The error of a request the pacer did not let leave. */
function notSent(
	ctx: ServiceContext,
	stop: PacerStop,
	request: ServiceRequest,
	context: ErrorContext,
): Error {
	const maxWaitSeconds = request.maxWaitSeconds ?? RETRY_POLICY.defaultMaxWaitSeconds;
	if (stop.reason === 'cancelled')
		return cancelled(ctx, request.itemIndex, 'waiting to send a request');
	const info: ServiceErrorInfo = { ...(stop.info as ServiceErrorInfo) };
	if (stop.reason === 'refused') {
		const error = serviceError(ctx.getNode(), info, context);
		error.message = `${error.message} (Not sent: the service already refused this API key${info.requestId ? ` in request ${info.requestId}` : ''}, and a refused key never works again.)`;
		return error;
	}
	const seconds = Math.ceil(stop.waitMs / 1000);
	info.retryAfterSeconds = seconds;
	info.retryAt = clock.now() + stop.waitMs;
	const error = serviceError(ctx.getNode(), info, context);
	error.message = `${error.message} The node does not wait longer than ${maxWaitSeconds} s (option "Max Rate-Limit Wait").`;
	return error;
}

/**
 * The one way every node talks to the service. Waits for the key's pacer, applies the credential
 * (bearer) through n8n, retries 5xx / timeouts / resets with the same Idempotency-Key when the call is
 * safe to repeat, never repeats other 4xx, and tells the pacer what each answer said (rate window,
 * 429 Retry-After, 401 refusal). `buildBody` is called for every attempt so streamed bodies are fresh.
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
	const service = await resolveService(ctx, request.itemIndex);
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
	const signal = cancelSignal(ctx);
	const identity = requestIdentity(request);
	let refused = refusedInRun.get(ctx);
	const known = refused?.get(identity);
	if (known) {
		const error = serviceError(node, known, errorContext);
		error.message = `${error.message} (Not sent again: the same request was just refused${known.requestId ? ` in request ${known.requestId}` : ''}.)`;
		throw error;
	}

	let failures = 0;
	let rateLimited = 0;
	for (;;) {
		// Asked again for each attempt: an idle key's pacer may have been forgotten during a backoff.
		const pacer = pacerFor(service.serviceKey, service.baseUrl);
		let ticket: number;
		try {
			ticket = await pacer.acquire({
				priority: request.priority ?? 'normal',
				upload: method === 'POST' && request.path === '/assets',
				maxWaitMs: maxWaitSeconds * 1000,
				signal,
			});
		} catch (error) {
			throw error instanceof PacerStop
				? notSent(ctx, error, request, errorContext)
				: new NodeOperationError(node, error as Error, { itemIndex: request.itemIndex });
		}

		const options: IHttpRequestOptions = {
			method: request.method,
			url: `${service.baseUrl}${request.path}`,
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

		let response: RawResponse | undefined;
		let transportCode: string | undefined;
		let ssrf: ReturnType<typeof findSsrfBlock>;
		try {
			if (extra.buildBody) {
				options.body = (await extra.buildBody()) as IHttpRequestOptions['body'];
			} else if (request.body !== undefined) {
				options.body = request.body;
			}
			const raw = (await ctx.helpers.httpRequestWithAuthentication.call(
				ctx,
				CREDENTIAL_NAME,
				options,
			)) as { statusCode: number; headers: Record<string, unknown>; body: unknown };
			response = { statusCode: raw.statusCode, headers: raw.headers ?? {}, body: raw.body };
		} catch (error) {
			// The caught error may hold the request (and so the Authorization header): keep only its code.
			transportCode = findErrorCode(error) ?? 'EUNKNOWN';
			ssrf = findSsrfBlock(error);
		} finally {
			pacer.settle(ticket, response?.headers);
		}

		if (!response) {
			if (transportCode === 'ERR_CANCELED' || signal?.aborted) {
				throw cancelled(ctx, request.itemIndex, `calling ${method} ${request.path}`);
			}
			if (ssrf) throw ssrfError(node, ssrf, `${method} ${request.path}`, request.itemIndex);
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

		const status = response.statusCode;
		if (status >= 200 && status < 300) return response;

		if (status === 429) {
			const info = parseErrorBody(status, (await readBody(response)).body, response.headers);
			pacer.slowDown(info, headerNumber(response.headers, 'retry-after'));
			rateLimited++;
			ctx.logger.debug(`Generation Service: 429 ${info.code}, the key is held as told`, {
				path: request.path,
				heldUntil: new Date(pacer.heldUntil()).toISOString(),
			});
			if (rateLimited > RETRY_POLICY.maxRateLimitRetries) {
				throw notSent(ctx, new PacerStop('too_long', info, 0), request, errorContext);
			}
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
		if (status === 401) refuseKey(pacer, info);
		if (DEFINITIVE.has(status)) {
			refused ??= new Map();
			refused.set(identity, info);
			refusedInRun.set(ctx, refused);
		}
		throw serviceError(node, info, errorContext);
	}
}

/**
 * `owner` will send a request of `priority` at `at`: the key's pacer keeps room for it in the rate window
 * (KeyPacer.reserve), replacing what `owner` reserved before. Synchronous once the node run's credential
 * has been read (after its first request).
 */
export async function reserveRoom(
	ctx: ServiceContext,
	owner: object,
	at: number,
	priority: Priority,
): Promise<void> {
	const service = knownService(ctx) ?? (await resolveService(ctx));
	pacerFor(service.serviceKey, service.baseUrl).reserve(owner, at, priority);
}

/** `owner` sends no reserved request any more: the key's pacer gives its room back (KeyPacer.release). */
export async function releaseRoom(ctx: ServiceContext, owner: object): Promise<void> {
	const service = knownService(ctx) ?? (await resolveService(ctx));
	pacerFor(service.serviceKey, service.baseUrl).release(owner);
}

/** JSON call; returns the envelope's `data`. */
export async function apiRequest<T = IDataObject>(
	ctx: ServiceContext,
	request: ServiceRequest,
): Promise<T> {
	return unwrapEnvelope<T>(ctx, request, await sendRequest(ctx, request));
}
