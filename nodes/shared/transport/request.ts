// One request to the service: prepared once, then sent (attempt.ts), its answer classified (answer.ts)
// and repeated when that is safe (retry.ts), until it has a result or an error in English.
import type { IDataObject } from 'n8n-workflow';

import { refusedBefore, classify } from './answer';
import type { PreparedRequest } from './attempt';
import { sendOnce } from './attempt';
import { unwrapEnvelope } from './envelope';
import { pacerFor } from './pacers';
import { RETRY_POLICY, withRetries } from './retry';
import { knownService, resolveService } from './service';
import { cancelSignal, wait } from './time';
import type { Priority, RawResponse, ServiceContext, ServiceRequest } from './types';

/**
 * The one way every node talks to the service. Waits for the key's pacer, applies the credential
 * (bearer) through n8n, retries 5xx / timeouts / resets with the same Idempotency-Key when the call is
 * safe to repeat, never repeats other 4xx, and tells the pacer what each answer said (rate window,
 * 429 Retry-After, 401 refusal). `buildBody` is called for every attempt so streamed bodies are fresh.
 */
export async function sendRequest(
	ctx: ServiceContext,
	request: ServiceRequest,
	extra: PreparedRequest['extra'] = { json: true },
): Promise<RawResponse> {
	const method = request.method.toUpperCase();
	const headers: IDataObject = { Accept: 'application/json', ...request.headers };
	if (request.idempotencyKey) headers['Idempotency-Key'] = request.idempotencyKey;
	const prepared: PreparedRequest = {
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
		extra,
	};
	const refused = refusedBefore(ctx, prepared);
	if (refused) throw refused;
	const retryable =
		method === 'GET' || method === 'DELETE' || !!request.idempotencyKey || !!request.safeToRetry;
	return await withRetries(
		async () => await classify(ctx, prepared, await sendOnce(ctx, prepared), retryable),
		retryable,
		async (ms) => await wait(ctx, ms, request.itemIndex),
	);
}

/** JSON call; returns the envelope's `data`. */
export async function apiRequest<T = IDataObject>(
	ctx: ServiceContext,
	request: ServiceRequest,
): Promise<T> {
	return unwrapEnvelope<T>(ctx, request, await sendRequest(ctx, request));
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
