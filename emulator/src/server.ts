import Fastify from 'fastify';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

import { getBalance, getMe, getUsage } from './accounts';
import {
	assetContent,
	deleteAsset,
	getAsset,
	listAssets,
	MAX_FILE_BYTES,
	uploadAsset,
} from './assets';
import { capabilities, plans } from './catalog';
import { ApiError, ERROR_TABLE, isErrorCode } from './errors';
import { BEFORE_HANDLER, corruptBytes, PROXY_HTML } from './faults';
import type { FaultSpec, FaultStore } from './faults';
import type { HandlerResult, RequestContext } from './http';
import { ok } from './http';
import { canonicalJson, JOB_ID, newId, sha256Hex } from './ids';
import { normaliseIp } from './iplimit';
import type { IpLimiter } from './iplimit';
import { createJob, getJob, jobOutput, listJobs, quoteJob, advanceJobs } from './jobs';
import { notify } from './journal';
import type { JournalEntry, Watchers } from './journal';
import { authenticate, countRequest, keyIdOfHeader, requireScope } from './keys';
import { getPersona, listPersonas } from './personas';
import type { Arrival, Delivery, Referee, ViolationKind } from './referee';
import type { ApiKeyRecord, Scope, World } from './state';

export interface ServerDeps {
	world: World;
	faults: FaultStore;
	journal: JournalEntry[];
	/** Told of each request as it arrives and of its journal entry (control.watchArrivals, watchJournal). */
	watchers: Watchers;
	referee: Referee;
	ipLimiter: IpLimiter;
	/** Public base URL (…/v1), filled in once listening. */
	baseUrl: () => string;
}

type Access = 'public' | { scope: Scope | null };

interface Route {
	method: 'GET' | 'POST' | 'DELETE';
	url: string;
	access: Access;
	handler: (ctx: RequestContext) => HandlerResult;
}

const ROUTES: Route[] = [
	{ method: 'GET', url: '/v1/me', access: { scope: null }, handler: getMe },
	{ method: 'GET', url: '/v1/balance', access: { scope: 'balance:read' }, handler: getBalance },
	{ method: 'GET', url: '/v1/usage', access: { scope: 'usage:read' }, handler: getUsage },
	{ method: 'POST', url: '/v1/assets', access: { scope: 'assets:write' }, handler: uploadAsset },
	{ method: 'GET', url: '/v1/assets', access: { scope: 'assets:read' }, handler: listAssets },
	{
		method: 'GET',
		url: '/v1/assets/:assetId',
		access: { scope: 'assets:read' },
		handler: getAsset,
	},
	{
		method: 'DELETE',
		url: '/v1/assets/:assetId',
		access: { scope: 'assets:write' },
		handler: deleteAsset,
	},
	{
		method: 'GET',
		url: '/v1/assets/:assetId/content',
		access: { scope: 'assets:read' },
		handler: assetContent,
	},
	{ method: 'GET', url: '/v1/personas', access: { scope: 'personas:read' }, handler: listPersonas },
	{
		method: 'GET',
		url: '/v1/personas/:personaId',
		access: { scope: 'personas:read' },
		handler: getPersona,
	},
	{ method: 'POST', url: '/v1/jobs/quote', access: { scope: 'jobs:write' }, handler: quoteJob },
	{ method: 'POST', url: '/v1/jobs', access: { scope: 'jobs:write' }, handler: createJob },
	{ method: 'GET', url: '/v1/jobs', access: { scope: 'jobs:read' }, handler: listJobs },
	{ method: 'GET', url: '/v1/jobs/:jobId', access: { scope: 'jobs:read' }, handler: getJob },
	{
		method: 'GET',
		url: '/v1/jobs/:jobId/output',
		access: { scope: 'jobs:read' },
		handler: jobOutput,
	},
];

function header(request: FastifyRequest, name: string): string | undefined {
	const value = request.headers[name];
	return Array.isArray(value) ? value.join(', ') : value;
}

function errorResult(error: unknown, requestId: string): HandlerResult {
	const api = error instanceof ApiError ? error : new ApiError('internal_error', undefined, {});
	return {
		status: api.status,
		headers: { ...api.headers },
		json: { error: { code: api.code, message: api.message }, requestId },
	};
}

/** Answer of a fault that replaces the handler. */
function faultResult(fault: FaultSpec, requestId: string): HandlerResult {
	switch (fault.action) {
		case 'html_body':
			return {
				status: 502,
				headers: { 'Content-Type': 'text/html; charset=utf-8' },
				bytes: Buffer.from(PROXY_HTML, 'utf8'),
			};
		case 'empty_body':
			return { status: 502, headers: {}, bytes: Buffer.alloc(0) };
		case 'error_500_before_commit':
			return errorResult(new ApiError('internal_error'), requestId);
		default: {
			const fallback = fault.action === 'rate_limit' ? 'rate_limited' : 'engine_unavailable';
			const code = fault.code ?? fallback;
			const entry = isErrorCode(code) ? ERROR_TABLE[code] : null;
			const status = fault.action === 'rate_limit' ? 429 : 503;
			const headers: Record<string, string> = {};
			const retryAfter = fault.retryAfter ?? (fault.action === 'rate_limit' ? 1 : undefined);
			if (retryAfter !== undefined) headers['Retry-After'] = String(retryAfter);
			return {
				status,
				headers,
				json: {
					error: { code, message: entry ? entry.message : 'Serviço temporariamente indisponível.' },
					requestId,
				},
			};
		}
	}
}

/** What a request was let in with, at its arrival: its key and rate headers, or the answer refusing it. */
interface Admission {
	key: ApiKeyRecord | null;
	rateHeaders: Record<string, string>;
	/** The key's rate window was already used up (the counter's 429). */
	windowExhausted: boolean;
	refused: unknown;
}

/**
 * Auth (Origin, key) and the key's rate limit, at arrival, as a service's edge does: a request counts in the
 * window it arrived in, even when its answer comes windows later (a `delay` fault). Never throws.
 */
function admit(deps: ServerDeps, route: Route, request: FastifyRequest): Admission {
	const admission: Admission = {
		key: null,
		rateHeaders: {},
		windowExhausted: false,
		refused: null,
	};
	if (route.access === 'public') return admission;
	try {
		if (header(request, 'origin') !== undefined) throw new ApiError('origin_forbidden');
		const key = authenticate(deps.world, header(request, 'authorization'));
		const rate = countRequest(deps.world, key);
		Object.assign(admission.rateHeaders, rate.headers);
		if (rate.limited) {
			admission.windowExhausted = true;
			throw new ApiError('rate_limited', undefined, { 'Retry-After': String(rate.retryAfter) });
		}
		admission.key = key;
	} catch (error) {
		admission.refused = error;
	}
	return admission;
}

/** The scope check and the handler of an admitted request (or the refusal); never throws. */
function runRoute(
	deps: ServerDeps,
	route: Route,
	request: FastifyRequest,
	requestId: string,
	admission: Admission,
): HandlerResult {
	const { world } = deps;
	let result: HandlerResult;
	try {
		if (admission.refused !== null) throw admission.refused;
		if (route.access === 'public') {
			result = route.handler({
				world,
				key: null as never,
				params: {},
				query: {},
				headers: {},
				body: undefined,
			});
		} else {
			const key = admission.key as ApiKeyRecord;
			requireScope(key, route.access.scope);
			const headers: Record<string, string | undefined> = {};
			for (const name of Object.keys(request.headers)) headers[name] = header(request, name);
			result = route.handler({
				world,
				key,
				params: (request.params ?? {}) as Record<string, string>,
				query: (request.query ?? {}) as Record<string, string | undefined>,
				headers,
				body: Buffer.isBuffer(request.body) ? request.body : undefined,
			});
		}
	} catch (error) {
		result = errorResult(error, requestId);
	}
	result.headers = { ...admission.rateHeaders, ...result.headers };
	return result;
}

/** The answer's Retry-After (s), null when none (or not a number). */
function retryAfterOf(result: HandlerResult): number | null {
	const header = result.headers['Retry-After'];
	const seconds = header === undefined ? NaN : Number(header);
	return Number.isFinite(seconds) ? seconds : null;
}

/** 429 ip_rate_limited of the per-IP limit: Retry-After, no X-RateLimit-* headers. */
function ipLimitedResult(retryAfter: number, requestId: string): HandlerResult {
	return errorResult(
		new ApiError('ip_rate_limited', undefined, { 'Retry-After': String(retryAfter) }),
		requestId,
	);
}

function bodyOf(result: HandlerResult): { bytes: Buffer; contentType: string | null } {
	if (result.bytes) return { bytes: result.bytes, contentType: null };
	if (result.json === undefined) return { bytes: Buffer.alloc(0), contentType: null };
	return {
		bytes: Buffer.from(JSON.stringify(result.json), 'utf8'),
		contentType: 'application/json; charset=utf-8',
	};
}

function errorCodeOf(result: HandlerResult): string | null {
	const json = result.json as { error?: { code?: unknown } } | undefined;
	return json && json.error && typeof json.error.code === 'string' ? json.error.code : null;
}

/**
 * Writes the answer, applying post-handler faults (reset, truncate, corrupt); tells how much of it
 * can reach the client (nothing when the connection is already closed, e.g. the client gave up).
 */
function send(
	request: FastifyRequest,
	reply: FastifyReply,
	result: HandlerResult,
	fault: FaultSpec | null,
): Delivery {
	const { bytes, contentType } = bodyOf(result);
	const headers: Record<string, string> = { ...result.headers };
	if (contentType && !headers['Content-Type']) headers['Content-Type'] = contentType;
	const socket = request.raw.socket;
	const gone = socket.destroyed;
	if (fault?.action === 'reset_after_commit') {
		reply.hijack();
		socket.destroy();
		return 'none';
	}
	if (fault?.action === 'truncate') {
		reply.hijack();
		const cut = Math.max(
			0,
			Math.min(bytes.length - 1, fault.afterBytes ?? Math.floor(bytes.length / 2)),
		);
		reply.raw.writeHead(result.status, { ...headers, 'Content-Length': String(bytes.length) });
		reply.raw.write(bytes.subarray(0, cut), () => socket.destroy());
		return gone ? 'none' : 'damaged';
	}
	const body = fault?.action === 'corrupt' ? corruptBytes(bytes, fault.afterBytes) : bytes;
	reply.code(result.status).headers(headers);
	if (!headers['Content-Type']) reply.removeHeader('content-type');
	reply.send(body);
	if (gone) return 'none';
	return fault?.action === 'corrupt' ? 'damaged' : 'full';
}

function isV1Path(path: string): boolean {
	return path === '/v1' || path.startsWith('/v1/');
}

/** The bearer token (or the whole Authorization value) hashed; null without the header. */
function credentialHash(authorization: string | undefined): string | null {
	if (authorization === undefined || authorization.trim() === '') return null;
	const m = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
	return sha256Hex(m ? m[1] : authorization);
}

/** What the referee needs to know of a /v1 request at its arrival. */
function describeArrival(
	deps: ServerDeps,
	route: Route,
	request: FastifyRequest,
	at: { requestId: string; path: string; query: string; at: number; fault: FaultSpec | null },
): Arrival {
	const authorization = header(request, 'authorization');
	const keyId = keyIdOfHeader(authorization);
	const key = keyId ? deps.world.state.keys.find((k) => k.keyId === keyId) : undefined;
	const body = Buffer.isBuffer(request.body) ? request.body : null;
	const bodyHash = body
		? sha256Hex(body)
		: `unread:${header(request, 'content-length') ?? sha256Hex('')}`;
	let creation: Arrival['creation'] = null;
	if (request.method === 'POST' && route.url === '/v1/assets') {
		creation = { kind: 'assets', bodyHash };
	} else if (request.method === 'POST' && route.url === '/v1/jobs') {
		let canonical: string | null = null;
		try {
			canonical = body ? canonicalJson(JSON.parse(body.toString('utf8'))) : null;
		} catch {
			canonical = null;
		}
		creation = { kind: 'jobs', bodyHash: canonical === null ? bodyHash : sha256Hex(canonical) };
	}
	const params = (request.params ?? {}) as Record<string, string | undefined>;
	return {
		requestId: at.requestId,
		at: at.at,
		method: request.method,
		path: at.path,
		query: at.query,
		ip: normaliseIp(request.socket.remoteAddress),
		keyId,
		secretHash: credentialHash(authorization),
		accountId: key ? key.accountId : null,
		authenticated: route.access !== 'public',
		idempotencyKey: header(request, 'idempotency-key') ?? null,
		bodyHash,
		creation,
		jobRead:
			request.method === 'GET' && route.url === '/v1/jobs/:jobId' ? (params.jobId ?? null) : null,
		jobListLook:
			request.method === 'GET' &&
			route.url === '/v1/jobs' &&
			!new URLSearchParams(at.query).has('cursor'),
		fault: at.fault ? at.fault.action : null,
	};
}

/** Job id of a 2xx answer to a job creation or a job read (what the client learned). */
function jobIdOf(route: Route, result: HandlerResult): string | null {
	if (result.status < 200 || result.status >= 300) return null;
	if (route.url !== '/v1/jobs/:jobId' && !(route.method === 'POST' && route.url === '/v1/jobs')) {
		return null;
	}
	const json = result.json as { data?: { id?: unknown } } | undefined;
	const id = json?.data?.id;
	return typeof id === 'string' && JOB_ID.test(id) ? id : null;
}

/** A 2xx job read or creation answered a job in an end state (succeeded or failed); false otherwise. */
function jobFinishedOf(route: Route, result: HandlerResult): boolean {
	if (jobIdOf(route, result) === null) return false;
	const state = (result.json as { data?: { state?: unknown } } | undefined)?.data?.state;
	return state === 'succeeded' || state === 'failed';
}

/** The jobs of a 2xx page of GET /v1/jobs; undefined for other answers. */
function listedJobs(
	route: Route,
	result: HandlerResult,
): Array<{ id?: unknown; state?: unknown }> | undefined {
	if (route.method !== 'GET' || route.url !== '/v1/jobs') return undefined;
	if (result.status < 200 || result.status >= 300) return undefined;
	const items = (result.json as { data?: { items?: unknown } } | undefined)?.data?.items;
	return Array.isArray(items) ? items : undefined;
}

/** Unfinished jobs (queued or running) on a 2xx page of GET /v1/jobs; undefined for other answers. */
function unfinishedListed(route: Route, result: HandlerResult): number | undefined {
	return listedJobs(route, result)?.filter(
		(job) => job?.state === 'queued' || job?.state === 'running',
	).length;
}

/** The ids of the jobs in an end state on a 2xx page of GET /v1/jobs; undefined for other answers. */
function finishedListed(route: Route, result: HandlerResult): string[] | undefined {
	return listedJobs(route, result)
		?.filter((job) => job?.state === 'succeeded' || job?.state === 'failed')
		.map((job) => String(job.id));
}

/**
 * One request: per-IP limit, faults, the referee's judgement, auth and the key's rate limit (at arrival),
 * handler, journal, answer. `preset` answers instead of the route (errors of the HTTP layer).
 */
async function dispatch(
	deps: ServerDeps,
	route: Route,
	request: FastifyRequest,
	reply: FastifyReply,
	preset?: (requestId: string) => HandlerResult,
): Promise<void> {
	const { world, referee } = deps;
	const requestId = newId('req');
	const [path, query = ''] = request.url.split('?', 2);
	const arrivedAt = world.now();
	const v1 = isV1Path(path);
	const ipRetryAfter = v1
		? deps.ipLimiter.count(world, normaliseIp(request.socket.remoteAddress))
		: null;
	let fault =
		ipRetryAfter === null && !preset
			? deps.faults.take(request.method, path, keyIdOfHeader(header(request, 'authorization')))
			: null;
	const arrival = v1
		? describeArrival(deps, route, request, { requestId, path, query, at: arrivedAt, fault })
		: null;
	const violations: ViolationKind[] = arrival ? referee.arrive(arrival) : [];
	const admission =
		ipRetryAfter === null && !preset && !(fault && BEFORE_HANDLER.includes(fault.action))
			? admit(deps, route, request)
			: null;
	if (admission?.windowExhausted && arrival) {
		referee.flag(
			arrival,
			'exhausted_window',
			`key ${arrival.keyId} had no request left in its rate window (X-RateLimit-Remaining was 0)`,
			violations,
		);
	}
	notify(deps.watchers.arrivals, () => ({
		at: arrivedAt,
		requestId,
		method: request.method,
		path,
		keyId: keyIdOfHeader(header(request, 'authorization')),
		remotePort: request.socket.remotePort ?? null,
		violations: [...violations],
		jobListLook: arrival?.jobListLook ?? false,
	}));
	if (fault?.action === 'delay') await world.sleep(fault.delayMs ?? 1000);
	advanceJobs(world);
	let result: HandlerResult;
	if (ipRetryAfter !== null) {
		result = ipLimitedResult(ipRetryAfter, requestId);
	} else if (preset) {
		result = preset(requestId);
	} else if (fault && BEFORE_HANDLER.includes(fault.action)) {
		result = faultResult(fault, requestId);
	} else {
		result = runRoute(deps, route, request, requestId, admission ?? admit(deps, route, request));
	}
	const proxied = fault?.action === 'html_body' || fault?.action === 'empty_body';
	if (!proxied) result.headers['X-Request-Id'] = requestId;
	const entry: JournalEntry = {
		at: world.now(),
		requestId,
		method: request.method,
		path,
		query,
		idempotencyKey: header(request, 'idempotency-key') ?? null,
		range: header(request, 'range') ?? null,
		status: result.status,
		errorCode: errorCodeOf(result),
		keyId: keyIdOfHeader(header(request, 'authorization')),
		fault: fault ? fault.action : null,
		violations: [...violations],
		retryAfter: retryAfterOf(result),
		remotePort: request.socket.remotePort ?? null,
		jobListLook: arrival?.jobListLook ?? false,
		unfinishedListed: unfinishedListed(route, result) ?? null,
	};
	deps.journal.push(entry);
	notify(deps.watchers.journal, () => ({ ...entry, violations: [...entry.violations] }));
	world.onChange();
	if (fault?.action === 'delay_response') await world.sleep(fault.delayMs ?? 1000);
	if (fault?.action === 'delay' || fault?.action === 'delay_response') fault = null;
	// taken before the answer is handed over: the client may have it from that moment on, whatever this
	// process does next (on a busy machine it can lose the CPU just after the write, and a time taken then
	// would make a client that waited 5 s from the answer look early)
	const answeredAt = world.now();
	const delivery = send(request, reply, result, fault);
	if (arrival) {
		referee.answered(arrival, {
			at: answeredAt,
			status: result.status,
			errorCode: errorCodeOf(result),
			retryAfter: retryAfterOf(result),
			delivery,
			jobId: jobIdOf(route, result),
			jobFinished: jobFinishedOf(route, result),
			unfinishedListed: unfinishedListed(route, result),
			finishedListed: finishedListed(route, result),
		});
	}
}

const notFoundRoute: Route = {
	method: 'GET',
	url: '*',
	access: 'public',
	handler: () => {
		throw new ApiError('not_found', 'Rota não encontrada.');
	},
};

/** Fastify app with the /v1 routes; the body of every request is kept as a raw Buffer. */
export function buildServer(deps: ServerDeps): FastifyInstance {
	const app = Fastify({ logger: false, bodyLimit: MAX_FILE_BYTES + 1024 * 1024 });
	app.removeAllContentTypeParsers();
	app.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => {
		done(null, body);
	});

	app.get('/v1/capabilities', (request, reply) =>
		dispatch(
			deps,
			{
				method: 'GET',
				url: '/v1/capabilities',
				access: 'public',
				handler: () => ok(capabilities(deps.world, deps.baseUrl())),
			},
			request,
			reply,
		),
	);
	app.get('/v1/billing/plans', (request, reply) =>
		dispatch(
			deps,
			{ method: 'GET', url: '/v1/billing/plans', access: 'public', handler: () => ok(plans()) },
			request,
			reply,
		),
	);
	for (const route of ROUTES) {
		app.route({
			method: route.method,
			url: route.url,
			handler: (request, reply) => dispatch(deps, route, request, reply),
		});
	}
	app.setNotFoundHandler((request, reply) => dispatch(deps, notFoundRoute, request, reply));
	app.setErrorHandler((error: { code?: string; statusCode?: number }, request, reply) => {
		const code =
			error.code === 'FST_ERR_CTP_BODY_TOO_LARGE'
				? 'asset_too_large'
				: (error.statusCode ?? 500) < 500
					? 'invalid_field'
					: 'internal_error';
		const matched = ROUTES.find(
			(r) => r.method === request.method && r.url === request.routeOptions.url,
		);
		return dispatch(deps, matched ?? notFoundRoute, request, reply, (requestId) =>
			errorResult(new ApiError(code), requestId),
		);
	});
	return app;
}
