import type { ApiKeyRecord, World } from './state';

/** What a handler answers; the server turns it into bytes (and applies faults). */
export interface HandlerResult {
	status: number;
	headers: Record<string, string>;
	/** JSON payload, or raw bytes for downloads. */
	json?: unknown;
	bytes?: Buffer;
}

export interface RequestContext {
	world: World;
	key: ApiKeyRecord;
	params: Record<string, string>;
	query: Record<string, string | undefined>;
	headers: Record<string, string | undefined>;
	body: Buffer | undefined;
}

export function ok(
	data: unknown,
	status = 200,
	headers: Record<string, string> = {},
): HandlerResult {
	return { status, headers, json: { data } };
}

export function binary(
	bytes: Buffer,
	mimeType: string,
	status = 200,
	headers: Record<string, string> = {},
): HandlerResult {
	return {
		status,
		headers: { 'Content-Type': mimeType, 'Accept-Ranges': 'bytes', ...headers },
		bytes,
	};
}
