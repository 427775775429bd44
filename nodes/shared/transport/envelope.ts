// The service's success envelope `{ data }`, and reading bodies that arrived as streams.
import { NodeOperationError } from 'n8n-workflow';

import type { RawResponse, ServiceContext, ServiceRequest } from './types';

function isStream(body: unknown): boolean {
	return (
		typeof body === 'object' &&
		body !== null &&
		typeof (body as { pipe?: unknown }).pipe === 'function'
	);
}

/** Error bodies of streamed responses are read as text so they can be parsed. */
export async function readBody(response: RawResponse): Promise<RawResponse> {
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
