// What an attempt's answer means for the request: the result, a failure worth another try, the key held
// by a 429, or a refusal that is final. Tells the key's pacer what the answer said about the key.
import { NodeOperationError } from 'n8n-workflow';

import type { ServiceErrorInfo } from './errors';
import { parseErrorBody, serviceError } from './errors';
import { readBody } from './envelope';
import type { PreparedRequest, Sent } from './attempt';
import { PacerStop } from './pacer';
import { refuseKey } from './pacers';
import type { AttemptOutcome } from './retry';
import { TRANSIENT_CODES, describeTransportFailure } from './retry';
import { clock } from './serviceClock';
import { ssrfError } from './ssrf';
import { cancelled } from './time';
import type { RawResponse, ServiceContext, ServiceRequest } from './types';
import { runStore } from '../processState';

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
export function refusedBefore(ctx: ServiceContext, prepared: PreparedRequest): Error | undefined {
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
export function notSent(ctx: ServiceContext, stop: PacerStop, prepared: PreparedRequest): Error {
	const { request, errorContext, maxWaitSeconds } = prepared;
	if (stop.reason === 'cancelled')
		return cancelled(ctx, request.itemIndex, 'waiting to send a request');
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

function headerNumber(headers: Record<string, unknown>, name: string): number | undefined {
	const value = headers[name];
	const n = Number(Array.isArray(value) ? value[0] : value);
	return value !== undefined && Number.isFinite(n) ? n : undefined;
}

/** The request never got an answer (`failures` tries so far, this one included). */
function unreachable(
	ctx: ServiceContext,
	prepared: PreparedRequest,
	transportCode: string,
	failures: number,
	retryable: boolean,
): Error {
	const { request, method } = prepared;
	return new NodeOperationError(
		ctx.getNode(),
		`Could not reach the Generation Service: ${describeTransportFailure(transportCode)} for ${method} ${request.path}` +
			(retryable ? ` after ${failures} tries.` : '.') +
			(request.idempotencyKey
				? ` Running the node again is safe: it reuses the Idempotency-Key ${request.idempotencyKey}, so nothing is created twice.`
				: ' Check the Base URL and the network, then run again.'),
		{ itemIndex: request.itemIndex },
	);
}

/** A non-2xx answer that ends the request: the service's error in English. */
async function refusal(
	ctx: ServiceContext,
	prepared: PreparedRequest,
	sent: Sent & { response: RawResponse },
): Promise<Error> {
	const { response, pacer } = sent;
	const status = response.statusCode;
	const info = parseErrorBody(status, (await readBody(response)).body, response.headers);
	if (status === 401) refuseKey(pacer, info);
	if (DEFINITIVE.has(status)) rememberRefusal(ctx, prepared.request, info);
	return serviceError(ctx.getNode(), info, prepared.errorContext);
}

/** What one attempt's result means for the request (see AttemptOutcome); `retryable` as in retry.ts. */
export async function classify(
	ctx: ServiceContext,
	prepared: PreparedRequest,
	sent: Sent,
	retryable: boolean,
): Promise<AttemptOutcome<RawResponse>> {
	const { request, method } = prepared;
	if (!sent.response) {
		const code = sent.transportCode;
		if (code === 'ERR_CANCELED' || prepared.signal?.aborted) {
			return {
				kind: 'final',
				error: cancelled(ctx, request.itemIndex, `calling ${method} ${request.path}`),
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
			giveUp: async (failures) => unreachable(ctx, prepared, code, failures, retryable),
		};
	}

	const { response, pacer } = sent;
	const status = response.statusCode;
	if (status >= 200 && status < 300) return { kind: 'answer', value: response };

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

	if (status >= 500 && retryable) {
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
