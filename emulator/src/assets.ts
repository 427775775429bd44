import { ApiError } from './errors';
import type { RequestContext, HandlerResult } from './http';
import { binary, ok } from './http';
import { ASSET_ID, IDEMPOTENCY_KEY, newId, sha256Hex } from './ids';
import { buildOutputMp4, parseRange, signatureMatches } from './media';
import { paginate, parsePageQuery } from './pagination';
import { MIME_TYPES, nextSeq } from './state';
import type { AssetRecord, MimeType, World } from './state';

export const MAX_FILE_BYTES = 20 * 1024 * 1024;
export const MAX_ACCOUNT_BYTES = 256 * 1024 * 1024;
export const MAX_ACCOUNT_ASSETS = 100;
export const UPLOADS_PER_HOUR = 20;
export const MAX_FILENAME_CHARS = 180;
const HOUR_MS = 3600 * 1000;

export interface Asset {
	id: string;
	filename: string;
	mimeType: MimeType;
	byteSize: number;
	kind: 'image' | 'video';
	state: 'ready';
	referenceCount: number;
	createdAt: number;
	contentUrl: string;
}

export interface Quota {
	usedBytes: number;
	maxBytes: number;
	usedAssets: number;
	maxAssets: number;
	cleanupPendingAssets: number;
}

export function kindOf(mimeType: MimeType): 'image' | 'video' {
	return mimeType.startsWith('image/') ? 'image' : 'video';
}

/** Personas using the asset, queued/running jobs using it as input, and the job it is the output of. */
export function referenceCount(world: World, asset: AssetRecord): number {
	let count = 0;
	for (const p of world.state.personas) {
		if (p.identityAssetId === asset.id || p.styleAssetId === asset.id) count += 1;
	}
	for (const j of world.state.jobs) {
		const active = j.state === 'queued' || j.state === 'running';
		if (active && (j.input.sourceAssetId === asset.id || j.input.referenceAssetId === asset.id)) {
			count += 1;
		}
		if (j.outputAssetId === asset.id) count += 1;
	}
	return count;
}

export function toAsset(world: World, asset: AssetRecord): Asset {
	return {
		id: asset.id,
		filename: asset.filename,
		mimeType: asset.mimeType,
		byteSize: asset.byteSize,
		kind: kindOf(asset.mimeType),
		state: 'ready',
		referenceCount: referenceCount(world, asset),
		createdAt: asset.createdAt,
		contentUrl: `/v1/assets/${asset.id}/content`,
	};
}

/** An asset of this account, or undefined (another account's asset is "not found"). */
export function findAsset(world: World, accountId: string, id: string): AssetRecord | undefined {
	return world.state.assets.find((a) => a.id === id && a.accountId === accountId);
}

export function assetBytes(world: World, asset: AssetRecord): Buffer {
	if (asset.bytes !== null) return Buffer.from(asset.bytes, 'base64');
	const job = world.state.jobs.find((j) => j.id === asset.jobId);
	// a job's output is never without its job (jobs are not deleted)
	if (!job) throw new ApiError('not_found');
	return buildOutputMp4(job.id, job.input, job.outputBytes);
}

function quotaOf(world: World, accountId: string): Quota {
	const stored = world.state.assets.filter(
		(a) => a.accountId === accountId && a.origin !== 'output',
	);
	return {
		usedBytes: stored.reduce((n, a) => n + a.byteSize, 0),
		maxBytes: MAX_ACCOUNT_BYTES,
		usedAssets: stored.length,
		maxAssets: MAX_ACCOUNT_ASSETS,
		cleanupPendingAssets: 0,
	};
}

/** Adds a file without the upload checks (seed data). */
export function storeAsset(
	world: World,
	accountId: string,
	filename: string,
	mimeType: MimeType,
	bytes: Buffer,
	origin: AssetRecord['origin'],
	at = world.now(),
): AssetRecord {
	const record: AssetRecord = {
		id: newId('asset'),
		seq: nextSeq(world),
		accountId,
		filename,
		mimeType,
		byteSize: bytes.length,
		sha256: sha256Hex(bytes),
		createdAt: at,
		origin,
		bytes: bytes.toString('base64'),
		jobId: null,
	};
	world.state.assets.push(record);
	return record;
}

/** Path separators and control characters are refused in file names. */
function hasForbiddenChar(name: string): boolean {
	return [...name].some((c) => c === '/' || c === '\\' || c.charCodeAt(0) < 0x20);
}

function decodeFilename(header: string | undefined): string {
	if (header === undefined || header === '') {
		throw new ApiError('invalid_field', 'Cabeçalho X-Service-Filename obrigatório.');
	}
	if (header.length > MAX_FILENAME_CHARS) {
		throw new ApiError('invalid_field', 'X-Service-Filename tem mais de 180 caracteres.');
	}
	let decoded: string | null = null;
	try {
		decoded = decodeURIComponent(header);
	} catch {
		decoded = null;
	}
	if (decoded === null || decoded.trim() === '' || hasForbiddenChar(decoded)) {
		throw new ApiError('invalid_field', 'X-Service-Filename inválido.');
	}
	return decoded;
}

/** POST /v1/assets */
export function uploadAsset(ctx: RequestContext): HandlerResult {
	const { world, key, headers } = ctx;
	const now = world.now();
	if (!world.state.settings.uploadsAvailable) throw new ApiError('storage_unavailable');
	const idempotencyKey = headers['idempotency-key'];
	if (idempotencyKey === undefined || !IDEMPOTENCY_KEY.test(idempotencyKey)) {
		throw new ApiError('invalid_idempotency_key');
	}
	const filename = decodeFilename(headers['x-service-filename']);
	const contentType = (headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
	if (!(MIME_TYPES as readonly string[]).includes(contentType)) {
		throw new ApiError('unsupported_media_type');
	}
	const mimeType = contentType as MimeType;
	const bytes = ctx.body ?? Buffer.alloc(0);
	if (bytes.length > MAX_FILE_BYTES) throw new ApiError('asset_too_large');
	if (bytes.length === 0) throw new ApiError('invalid_field', 'O corpo (arquivo) está vazio.');
	const sha256 = sha256Hex(bytes);

	const previous = world.state.uploadIdempotency.find(
		(r) => r.accountId === key.accountId && r.idempotencyKey === idempotencyKey,
	);
	if (previous) {
		const asset = findAsset(world, key.accountId, previous.assetId);
		if (previous.sha256 !== sha256) throw new ApiError('idempotency_conflict');
		if (asset) return ok({ asset: toAsset(world, asset), replayed: true }, 200);
		world.state.uploadIdempotency.splice(world.state.uploadIdempotency.indexOf(previous), 1);
	}

	if (!signatureMatches(mimeType, bytes)) throw new ApiError('media_signature_mismatch');
	const quota = quotaOf(world, key.accountId);
	if (quota.usedAssets + 1 > quota.maxAssets || quota.usedBytes + bytes.length > quota.maxBytes) {
		throw new ApiError(
			'asset_too_large',
			'A cota de arquivos da conta (256 MiB / 100 arquivos) seria excedida.',
		);
	}
	const account = world.state.accounts.find((a) => a.id === key.accountId)!;
	account.uploadTimes = account.uploadTimes.filter((t) => t > now - HOUR_MS);
	if (account.uploadTimes.length >= UPLOADS_PER_HOUR) {
		const retryAfter = Math.max(1, Math.ceil((account.uploadTimes[0] + HOUR_MS - now) / 1000));
		throw new ApiError('upload_rate_limit', undefined, { 'Retry-After': String(retryAfter) });
	}
	account.uploadTimes.push(now);
	const asset = storeAsset(world, key.accountId, filename, mimeType, bytes, 'upload', now);
	world.state.uploadIdempotency.push({
		accountId: key.accountId,
		idempotencyKey,
		sha256,
		assetId: asset.id,
	});
	return ok({ asset: toAsset(world, asset), replayed: false }, 201);
}

/** GET /v1/assets — uploaded (and seeded) files; job outputs are not listed. */
export function listAssets(ctx: RequestContext): HandlerResult {
	const page = parsePageQuery(ctx.query);
	const own = ctx.world.state.assets.filter(
		(a) => a.accountId === ctx.key.accountId && a.origin !== 'output',
	);
	const { items, nextCursor } = paginate(own, page);
	return ok({
		items: items.map((a) => toAsset(ctx.world, a)),
		nextCursor,
		quota: quotaOf(ctx.world, ctx.key.accountId),
	});
}

function requireAsset(ctx: RequestContext): AssetRecord {
	const id = ctx.params.assetId;
	if (!ASSET_ID.test(id)) throw new ApiError('invalid_field', 'assetId inválido.');
	const asset = findAsset(ctx.world, ctx.key.accountId, id);
	if (!asset) throw new ApiError('asset_not_found');
	return asset;
}

/** GET /v1/assets/{assetId} */
export function getAsset(ctx: RequestContext): HandlerResult {
	return ok(toAsset(ctx.world, requireAsset(ctx)));
}

/** DELETE /v1/assets/{assetId} */
export function deleteAsset(ctx: RequestContext): HandlerResult {
	const asset = requireAsset(ctx);
	if (referenceCount(ctx.world, asset) > 0) throw new ApiError('asset_in_use');
	const assets = ctx.world.state.assets;
	assets.splice(assets.indexOf(asset), 1);
	return ok({ id: asset.id, deleted: true });
}

/** Full body (200) or the requested part (206); bad range → 416. */
export function rangedBody(bytes: Buffer, mimeType: string, rangeHeader: string | undefined) {
	const range = parseRange(rangeHeader, bytes.length);
	if (range === null) return binary(bytes, mimeType);
	return binary(bytes.subarray(range.start, range.end + 1), mimeType, 206, {
		'Content-Range': `bytes ${range.start}-${range.end}/${bytes.length}`,
	});
}

/** GET /v1/assets/{assetId}/content */
export function assetContent(ctx: RequestContext): HandlerResult {
	const asset = requireAsset(ctx);
	return rangedBody(assetBytes(ctx.world, asset), asset.mimeType, ctx.headers.range);
}
