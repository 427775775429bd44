import { findAsset, kindOf, rangedBody } from './assets';
import { ApiError } from './errors';
import type { HandlerResult, RequestContext } from './http';
import { ok } from './http';
import {
	ASSET_ID,
	IDEMPOTENCY_KEY,
	JOB_ID,
	PERSONA_ID,
	canonicalJson,
	newId,
	sha256Hex,
} from './ids';
import { keyUsage, release, reserve, settle } from './ledger';
import { buildOutputMp4 } from './media';
import { paginate, parsePageQuery } from './pagination';
import { findPersona } from './personas';
import { MODES, findAccount, nextSeq } from './state';
import type { ApiKeyRecord, JobInput, JobRecord, Mode, World } from './state';

/** Credits per started block of 5 seconds (720p). */
export const PRICE_PER_BLOCK: Record<Mode, number> = {
	character_replacement: 10,
	image_to_video: 8,
	text_to_video: 8,
};
export const BLOCK_SECONDS = 5;
export const MAX_PROMPT = 2000;
const ASPECT_RATIOS = ['9:16', '16:9', '1:1'] as const;
const INPUT_FIELDS = [
	'mode',
	'prompt',
	'sourceAssetId',
	'referenceAssetId',
	'personaId',
	'durationSeconds',
	'aspectRatio',
];

export interface Quote {
	mode: Mode;
	durationSeconds: number;
	reservedCredits: number;
	unit: 'credits';
	available: number;
	keyRemaining: number | null;
	sufficient: boolean;
}

export interface Job {
	id: string;
	state: JobRecord['state'];
	input: JobInput;
	reservedCredits: number;
	chargedCredits: number;
	output: { assetId: string; mimeType: 'video/mp4'; sha256: string } | null;
	outputUrl: string | null;
	errorCode: string | null;
	createdAt: number;
	updatedAt: number;
	replayed: boolean;
}

export function priceOf(mode: Mode, durationSeconds: number): number {
	return Math.ceil(durationSeconds / BLOCK_SECONDS) * PRICE_PER_BLOCK[mode];
}

export function toJob(job: JobRecord, replayed = false): Job {
	return {
		id: job.id,
		state: job.state,
		input: { ...job.input },
		reservedCredits: job.reservedCredits,
		chargedCredits: job.chargedCredits,
		output:
			job.state === 'succeeded' && job.outputAssetId && job.outputSha256
				? { assetId: job.outputAssetId, mimeType: 'video/mp4', sha256: job.outputSha256 }
				: null,
		outputUrl: job.state === 'succeeded' ? `/v1/jobs/${job.id}/output` : null,
		errorCode: job.errorCode,
		createdAt: job.createdAt,
		updatedAt: job.updatedAt,
		replayed,
	};
}

/** JSON body → object, or 400 invalid_json. */
export function parseJsonBody(body: Buffer | undefined): unknown {
	const text = body ? body.toString('utf8') : '';
	let parsed: { ok: true; value: unknown } | { ok: false } = { ok: false };
	try {
		parsed = { ok: true, value: JSON.parse(text) };
	} catch {
		parsed = { ok: false };
	}
	if (!parsed.ok) throw new ApiError('invalid_json');
	return parsed.value;
}

function invalid(field: string, rule: string): ApiError {
	return new ApiError('invalid_field', `Campo ${field} inválido: ${rule}.`);
}

function optionalId(value: unknown, field: string, pattern: RegExp): string | null {
	if (value === undefined || value === null) return null;
	if (typeof value !== 'string' || !pattern.test(value)) throw invalid(field, 'formato do id');
	return value;
}

/** Shape and mode rules of a JobInput (400s); references are checked by `checkReferences`. */
export function validateJobInput(body: unknown): JobInput {
	if (body === null || typeof body !== 'object' || Array.isArray(body)) {
		throw new ApiError('invalid_field', 'O corpo deve ser um objeto JobInput.');
	}
	const raw = body as Record<string, unknown>;
	const unknown = Object.keys(raw).filter((k) => !INPUT_FIELDS.includes(k));
	if (unknown.length > 0) {
		throw new ApiError('unknown_field', `Campo desconhecido: ${unknown.join(', ')}.`);
	}
	if (typeof raw.mode !== 'string' || !(MODES as readonly string[]).includes(raw.mode)) {
		throw invalid('mode', `um de ${MODES.join(', ')}`);
	}
	const mode = raw.mode as Mode;
	if (raw.prompt !== undefined && typeof raw.prompt !== 'string') throw invalid('prompt', 'texto');
	const prompt = (raw.prompt as string | undefined) ?? '';
	if (prompt.length > MAX_PROMPT) throw invalid('prompt', 'no máximo 2000 caracteres');
	const duration = raw.durationSeconds ?? 5;
	if (
		typeof duration !== 'number' ||
		!Number.isInteger(duration) ||
		duration < 1 ||
		duration > 30
	) {
		throw invalid('durationSeconds', 'inteiro de 1 a 30');
	}
	const aspectRatio = raw.aspectRatio ?? '9:16';
	if (
		typeof aspectRatio !== 'string' ||
		!(ASPECT_RATIOS as readonly string[]).includes(aspectRatio)
	) {
		throw invalid('aspectRatio', '9:16, 16:9 ou 1:1');
	}
	const input: JobInput = {
		mode,
		prompt,
		sourceAssetId: optionalId(raw.sourceAssetId, 'sourceAssetId', ASSET_ID),
		referenceAssetId: optionalId(raw.referenceAssetId, 'referenceAssetId', ASSET_ID),
		personaId: optionalId(raw.personaId, 'personaId', PERSONA_ID),
		durationSeconds: duration,
		aspectRatio: aspectRatio as JobInput['aspectRatio'],
	};
	if (mode === 'character_replacement') {
		if (!input.sourceAssetId) throw invalid('sourceAssetId', 'obrigatório (vídeo) neste modo');
		if ((input.referenceAssetId === null) === (input.personaId === null)) {
			throw new ApiError(
				'invalid_field',
				'Informe exatamente um de referenceAssetId ou personaId em character_replacement.',
			);
		}
	} else if (mode === 'image_to_video') {
		if (!input.sourceAssetId) throw invalid('sourceAssetId', 'obrigatório (imagem) neste modo');
		if (prompt.trim() === '') throw invalid('prompt', 'obrigatório neste modo');
		if (input.referenceAssetId) throw invalid('referenceAssetId', 'não usado neste modo');
		if (input.personaId) throw invalid('personaId', 'não usado neste modo');
	} else {
		if (prompt.trim() === '') throw invalid('prompt', 'obrigatório neste modo');
		if (input.sourceAssetId) throw invalid('sourceAssetId', 'não usado neste modo');
		if (input.referenceAssetId) throw invalid('referenceAssetId', 'não usado neste modo');
		if (input.personaId) throw invalid('personaId', 'não usado neste modo');
	}
	return input;
}

/** Files and characters of the input: 404 / 422, and the mode must be offered (422). */
export function checkReferences(world: World, accountId: string, input: JobInput): void {
	if (!world.state.settings.modes.includes(input.mode)) throw new ApiError('mode_unavailable');
	const wanted = input.mode === 'character_replacement' ? 'video' : 'image';
	if (input.sourceAssetId) {
		const source = findAsset(world, accountId, input.sourceAssetId);
		if (!source) throw new ApiError('asset_not_found', 'sourceAssetId não encontrado.');
		if (kindOf(source.mimeType) !== wanted) {
			throw new ApiError(
				'asset_kind_mismatch',
				`sourceAssetId deve ser ${wanted === 'video' ? 'um vídeo' : 'uma imagem'}.`,
			);
		}
	}
	if (input.referenceAssetId) {
		const reference = findAsset(world, accountId, input.referenceAssetId);
		if (!reference) throw new ApiError('asset_not_found', 'referenceAssetId não encontrado.');
		if (kindOf(reference.mimeType) !== 'image') {
			throw new ApiError('asset_kind_mismatch', 'referenceAssetId deve ser uma imagem.');
		}
	}
	if (input.personaId && !findPersona(world, accountId, input.personaId)) {
		throw new ApiError('not_found', 'personaId não encontrado.');
	}
}

function requireEngine(world: World): void {
	if (!world.state.settings.engineAvailable) {
		throw new ApiError(
			'engine_unavailable',
			world.state.settings.engineReason
				? `Motor de geração indisponível: ${world.state.settings.engineReason}`
				: undefined,
		);
	}
}

function keyRemaining(world: World, key: ApiKeyRecord): number | null {
	if (key.creditCeiling === null) return null;
	return Math.max(0, key.creditCeiling - keyUsage(world, key.keyId));
}

/** POST /v1/jobs/quote */
export function quoteJob(ctx: RequestContext): HandlerResult {
	const { world, key } = ctx;
	const body = parseJsonBody(ctx.body);
	requireEngine(world);
	const input = validateJobInput(body);
	checkReferences(world, key.accountId, input);
	const account = findAccount(world, key.accountId);
	const cost = priceOf(input.mode, input.durationSeconds);
	const remaining = keyRemaining(world, key);
	const quote: Quote = {
		mode: input.mode,
		durationSeconds: input.durationSeconds,
		reservedCredits: cost,
		unit: 'credits',
		available: account.available,
		keyRemaining: remaining,
		sufficient:
			!account.frozen && account.available >= cost && (remaining === null || remaining >= cost),
	};
	return ok(quote);
}

/** POST /v1/jobs */
export function createJob(ctx: RequestContext): HandlerResult {
	const { world, key } = ctx;
	const idempotencyKey = ctx.headers['idempotency-key'];
	if (idempotencyKey === undefined || !IDEMPOTENCY_KEY.test(idempotencyKey)) {
		throw new ApiError('invalid_idempotency_key');
	}
	const body = parseJsonBody(ctx.body);
	const bodyHash = sha256Hex(canonicalJson(body));
	const previous = world.state.jobs.find(
		(j) => j.accountId === key.accountId && j.idempotencyKey === idempotencyKey,
	);
	if (previous) {
		if (previous.bodyHash !== bodyHash) throw new ApiError('idempotency_conflict');
		return ok(toJob(previous, true), 200);
	}
	requireEngine(world);
	const input = validateJobInput(body);
	checkReferences(world, key.accountId, input);
	const account = findAccount(world, key.accountId);
	if (account.frozen) throw new ApiError('billing_financial_review');
	const cost = priceOf(input.mode, input.durationSeconds);
	const remaining = keyRemaining(world, key);
	if (remaining !== null && remaining < cost) throw new ApiError('key_credit_limit');
	if (account.available < cost) throw new ApiError('insufficient_credits');

	const now = world.now();
	const settings = world.state.settings;
	const script = world.state.pendingScripts.shift() ?? {};
	const job: JobRecord = {
		id: newId('job'),
		seq: nextSeq(world),
		accountId: key.accountId,
		keyId: key.keyId,
		idempotencyKey,
		bodyHash,
		input,
		state: 'queued',
		reservedCredits: cost,
		chargedCredits: 0,
		outputAssetId: null,
		outputSha256: null,
		outputBytes: settings.outputBytes,
		errorCode: null,
		createdAt: now,
		updatedAt: now,
		queuedMs: script.queuedMs ?? settings.jobTiming.queuedMs,
		runningMs: script.runningMs ?? settings.jobTiming.runningMs,
		outcome: script.outcome ?? 'succeeded',
		plannedErrorCode: script.errorCode ?? 'generation_failed',
		chargeRatio: script.chargeRatio ?? settings.chargeRatio,
	};
	world.state.jobs.push(job);
	reserve(world, key.accountId, cost, job.id, key.keyId, now);
	// Always answered `queued` (even with 0/0 timing); the lazy clock moves it on the next read.
	return ok(toJob(job), 202);
}

function finish(world: World, job: JobRecord, at: number): void {
	job.updatedAt = at;
	if (job.outcome === 'failed') {
		job.state = 'failed';
		job.errorCode = job.plannedErrorCode;
		release(world, job.accountId, job.reservedCredits, job.id, job.keyId, at);
		return;
	}
	const charged = Math.min(
		job.reservedCredits,
		Math.max(0, Math.ceil(job.reservedCredits * job.chargeRatio)),
	);
	job.state = 'succeeded';
	job.chargedCredits = charged;
	settle(world, job.accountId, charged, job.id, job.keyId, at);
	release(world, job.accountId, job.reservedCredits - charged, job.id, job.keyId, at);
	const bytes = buildOutputMp4(job.id, job.input, job.outputBytes);
	const assetId = newId('asset');
	world.state.assets.push({
		id: assetId,
		seq: nextSeq(world),
		accountId: job.accountId,
		filename: `${job.id}.mp4`,
		mimeType: 'video/mp4',
		byteSize: bytes.length,
		sha256: sha256Hex(bytes),
		createdAt: at,
		origin: 'output',
		bytes: null,
		jobId: job.id,
	});
	job.outputAssetId = assetId;
	job.outputSha256 = sha256Hex(bytes);
}

/**
 * The lazy clock: moves every job whose time has come (queued → running at
 * createdAt + queuedMs; → succeeded/failed at + runningMs), in time order.
 * Returns true when something changed.
 */
export function advanceJobs(world: World): boolean {
	const now = world.now();
	const events: Array<{ at: number; job: JobRecord; to: 'running' | 'end' }> = [];
	for (const job of world.state.jobs) {
		if (job.state !== 'queued' && job.state !== 'running') continue;
		const startAt = job.createdAt + job.queuedMs;
		const endAt = startAt + job.runningMs;
		if (job.state === 'queued' && now >= startAt && now < endAt) {
			events.push({ at: startAt, job, to: 'running' });
		}
		if (now >= endAt) events.push({ at: endAt, job, to: 'end' });
	}
	events.sort((a, b) => a.at - b.at || a.job.seq - b.job.seq);
	for (const e of events) {
		if (e.to === 'running') {
			e.job.state = 'running';
			e.job.updatedAt = e.at;
		} else {
			finish(world, e.job, e.at);
		}
	}
	return events.length > 0;
}

function requireJob(ctx: RequestContext): JobRecord {
	const id = ctx.params.jobId;
	if (!JOB_ID.test(id)) throw new ApiError('invalid_field', 'jobId inválido.');
	const job = ctx.world.state.jobs.find((j) => j.id === id && j.accountId === ctx.key.accountId);
	if (!job) throw new ApiError('not_found', 'Geração não encontrada.');
	return job;
}

/** GET /v1/jobs */
export function listJobs(ctx: RequestContext): HandlerResult {
	const page = parsePageQuery(ctx.query);
	const own = ctx.world.state.jobs.filter((j) => j.accountId === ctx.key.accountId);
	const { items, nextCursor } = paginate(own, page);
	return ok({ items: items.map((j) => toJob(j)), nextCursor });
}

/** GET /v1/jobs/{jobId} */
export function getJob(ctx: RequestContext): HandlerResult {
	return ok(toJob(requireJob(ctx)));
}

/** GET /v1/jobs/{jobId}/output */
export function jobOutput(ctx: RequestContext): HandlerResult {
	const job = requireJob(ctx);
	if (job.state !== 'succeeded') {
		throw new ApiError(
			'output_not_ready',
			job.state === 'failed'
				? 'A geração falhou; não há vídeo.'
				: 'O vídeo ainda não está pronto; consulte a geração até o fim.',
		);
	}
	const bytes = buildOutputMp4(job.id, job.input, job.outputBytes);
	return rangedBody(bytes, 'video/mp4', ctx.headers.range);
}
