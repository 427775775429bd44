// Which service a node run talks to — the credential's Base URL (checked) and the identity of its key —
// and its time: the package's clock (clock.ts, which the tests swap), waits that end when the execution
// is cancelled, and pauses tied to no execution.
import { createHash } from 'crypto';
import type { IExecuteFunctions, ILoadOptionsFunctions, IPollFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { CREDENTIAL_NAME } from '../constants';
import { runStore } from '../processState';
import { clock } from './clock';
import { cancelled } from './errors';

/** The contexts the nodes talk to the service from: an operation, a list search, a trigger's poll. */
export type ServiceContext = IExecuteFunctions | ILoadOptionsFunctions | IPollFunctions;

/** Readable as n8n's helpers type it (importing node:stream is not allowed in node code). */
export type BinaryStream = Parameters<IExecuteFunctions['helpers']['prepareBinaryData']>[0];

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

export interface ServiceTarget {
	baseUrl: string;
	/**
	 * One id per (API key, Base URL): the service limits and revokes keys, so pacing follows the key
	 * itself, whichever credential holds it. A hash prefix: the key never leaves the credential.
	 */
	serviceKey: string;
}

/**
 * Read once per node run (context), not once per request: polls and retries reuse it. Bounded by the
 * runs alive: keyed weakly by the run's context, an entry goes with its run.
 */
const targets = runStore<object, ServiceTarget>('serviceOfRun');

export async function resolveService(
	ctx: ServiceContext,
	itemIndex?: number,
): Promise<ServiceTarget> {
	const known = targets.get(ctx);
	if (known) return known;
	const credentials = await ctx.getCredentials(CREDENTIAL_NAME, itemIndex);
	const checked = checkBaseUrl(credentials.baseUrl);
	if ('problem' in checked) {
		throw new NodeOperationError(ctx.getNode(), checked.problem, { itemIndex });
	}
	const keyHash = createHash('sha256')
		.update(String(credentials.apiKey ?? ''))
		.digest('hex')
		.slice(0, 16);
	const target = { baseUrl: checked.baseUrl, serviceKey: `${keyHash}@${checked.baseUrl}` };
	targets.set(ctx, target);
	return target;
}

// ---- Time ----

/** Current time of the package's clock (so polling and tests share one clock). */
export function now(): number {
	return clock.now();
}

/** The execution's cancel signal, when the context has one (poll and load-options contexts do not). */
export function cancelSignal(ctx: ServiceContext): AbortSignal | undefined {
	const withSignal = ctx as Partial<IExecuteFunctions>;
	return typeof withSignal.getExecutionCancelSignal === 'function'
		? withSignal.getExecutionCancelSignal()
		: undefined;
}

/** Waits on the package's clock; stops with a clear error when the execution is cancelled. */
export async function wait(
	ctx: ServiceContext,
	ms: number,
	itemIndex: number | undefined,
	what?: string,
): Promise<void> {
	const signal = cancelSignal(ctx);
	if (signal?.aborted) throw cancelled(ctx.getNode(), itemIndex, what);
	if (ms <= 0) return;
	try {
		await clock.sleep(ms, signal);
	} catch {
		throw cancelled(ctx.getNode(), itemIndex, what);
	}
}

/**
 * Waits `ms` on the package's clock (n8n's `sleep`), tied to no execution: for work shared by several
 * executions of the process. Cut short, without error, when `signal` (its owner's own) aborts.
 */
export async function pause(ms: number, signal?: AbortSignal): Promise<void> {
	if (ms <= 0 || signal?.aborted) return;
	try {
		await clock.sleep(ms, signal);
	} catch {
		// woken early by its owner
	}
}
