// One attempt of a request: the key's pacer lets it leave, n8n sends it with the credential, the pacer
// hears what the answer said about the key's rate window.
import type { IDataObject, IHttpRequestOptions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { CREDENTIAL_NAME } from '../constants';
import type { ErrorContext } from './errors';
import type { KeyPacer } from './pacer';
import { PacerStop } from './pacer';
import { pacerFor } from './pacers';
import { notSent } from './answer';
import type { ServiceTarget } from './service';
import type { RawResponse, ServiceContext, ServiceRequest } from './types';
import { findErrorCode } from './retry';
import type { SsrfBlock } from './ssrf';
import { findSsrfBlock } from './ssrf';

/** What every attempt of one request shares. */
export interface PreparedRequest {
	request: ServiceRequest;
	service: ServiceTarget;
	/** Upper case. */
	method: string;
	headers: IDataObject;
	errorContext: ErrorContext;
	signal: AbortSignal | undefined;
	maxWaitSeconds: number;
	timeoutMs: number;
	/** How the body and the answer are encoded; `buildBody` is called for every attempt (fresh streams). */
	extra: {
		buildBody?: () => Promise<unknown>;
		encoding?: IHttpRequestOptions['encoding'];
		json?: boolean;
	};
}

/** An attempt's result: the service's answer, or the code of the transport failure that stopped it. */
export type Sent =
	| { pacer: KeyPacer; response: RawResponse; transportCode?: undefined; ssrf?: undefined }
	| { pacer: KeyPacer; response?: undefined; transportCode: string; ssrf?: SsrfBlock };

/** Sends the request once, when the key's pacer lets it leave. */
export async function sendOnce(ctx: ServiceContext, prepared: PreparedRequest): Promise<Sent> {
	const { request, service, method, extra } = prepared;
	// Asked again for each attempt: an idle key's pacer may have been forgotten during a backoff.
	const pacer = pacerFor(service.serviceKey, service.baseUrl);
	let ticket: number;
	try {
		ticket = await pacer.acquire({
			priority: request.priority ?? 'normal',
			upload: method === 'POST' && request.path === '/assets',
			maxWaitMs: prepared.maxWaitSeconds * 1000,
			signal: prepared.signal,
		});
	} catch (error) {
		throw error instanceof PacerStop
			? notSent(ctx, error, prepared)
			: new NodeOperationError(ctx.getNode(), error as Error, { itemIndex: request.itemIndex });
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
	if (extra.json !== false) options.json = true;
	if (extra.encoding) options.encoding = extra.encoding;

	let response: RawResponse | undefined;
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
		// The caught error may hold the request (and so the Authorization header): keep only its code, and
		// whether n8n's SSRF protection refused the address (ssrf.ts).
		return { pacer, transportCode: findErrorCode(error) ?? 'EUNKNOWN', ssrf: findSsrfBlock(error) };
	} finally {
		pacer.settle(ticket, response?.headers);
	}
	return { pacer, response };
}
