// Shapes shared by the transport modules.
import type {
	IDataObject,
	IExecuteFunctions,
	IHttpRequestMethods,
	ILoadOptionsFunctions,
	IPollFunctions,
} from 'n8n-workflow';

import type { ErrorContext } from './errors';

export type ServiceContext = IExecuteFunctions | ILoadOptionsFunctions | IPollFunctions;

/** Readable as n8n's helpers type it (importing node:stream is not allowed in node code). */
export type BinaryStream = Parameters<IExecuteFunctions['helpers']['prepareBinaryData']>[0];

/**
 * Who goes first when requests of one key wait for the same slot: status reads a caller is waiting on
 * ('poll', so an end is seen on time), then everything else, then file transfers.
 */
export type Priority = 'poll' | 'normal' | 'transfer';

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
