import { timingSafeEqual } from 'crypto';

import { ApiError } from './errors';
import { randomHex, SECRET_FORMAT, sha256Hex } from './ids';
import { SCOPES } from './state';
import type { ApiKeyRecord, Scope, World } from './state';

export const MAX_ACTIVE_KEYS = 20;
export const MAX_KEY_VALIDITY_MS = 366 * 24 * 3600 * 1000;

export interface CreateKeyOptions {
	/** Caller-chosen secret (must match `svc_sk_key_<32 hex>.<64 hex>`); random otherwise. */
	secret?: string;
	scopes?: Scope[];
	/** Lifetime ceiling of reservations + spending; null = no ceiling. Default 100000. */
	creditCeiling?: number | null;
	/** 1 to 120, default 60. */
	requestsPerMinute?: number;
	/** ms since epoch; at most one year ahead. Default: one year. */
	expiresAt?: number;
	label?: string;
	/** Account owning the key; a new id creates an empty account. Default: the seeded account. */
	accountId?: string;
}

export function makeSecret(): string {
	return `svc_sk_key_${randomHex(16)}.${randomHex(32)}`;
}

export function isActive(key: ApiKeyRecord, now: number): boolean {
	return key.revokedAt === null && (key.expiresAt === null || key.expiresAt > now);
}

/** Creates a key (the dashboard's job; here: seed and control). Returns the secret once. */
export function createKey(
	world: World,
	accountId: string,
	opts: CreateKeyOptions = {},
): { keyId: string; secret: string } {
	const now = world.now();
	const secret = opts.secret ?? makeSecret();
	const match = SECRET_FORMAT.exec(secret);
	if (!match) {
		throw new Error('secret must match svc_sk_key_<32 hex>.<64 hex>');
	}
	const keyId = match[1].toLowerCase();
	if (world.state.keys.some((k) => k.keyId === keyId)) {
		throw new Error(`key ${keyId} already exists`);
	}
	const scopes = opts.scopes ?? [...SCOPES];
	if (scopes.some((s) => !(SCOPES as readonly string[]).includes(s))) {
		throw new Error('unknown scope');
	}
	const rpm = opts.requestsPerMinute ?? 60;
	if (!Number.isInteger(rpm) || rpm < 1 || rpm > 120) {
		throw new Error('requestsPerMinute must be an integer from 1 to 120');
	}
	const expiresAt = opts.expiresAt ?? now + 365 * 24 * 3600 * 1000;
	if (expiresAt > now + MAX_KEY_VALIDITY_MS) {
		throw new Error('key validity is at most one year');
	}
	const active = world.state.keys.filter((k) => k.accountId === accountId && isActive(k, now));
	if (active.length >= MAX_ACTIVE_KEYS) {
		throw new Error(`an account has at most ${MAX_ACTIVE_KEYS} active keys`);
	}
	world.state.keys.push({
		keyId,
		accountId,
		secretHash: sha256Hex(secret),
		label: opts.label ?? keyId,
		scopes: [...scopes],
		creditCeiling: opts.creditCeiling === undefined ? 100_000 : opts.creditCeiling,
		requestsPerMinute: rpm,
		createdAt: now,
		expiresAt,
		revokedAt: null,
		windowStart: 0,
		windowCount: 0,
	});
	return { keyId, secret };
}

/** Revoke by secret or by key id. Returns false when no such key exists. */
export function revokeKey(world: World, secretOrKeyId: string): boolean {
	const match = SECRET_FORMAT.exec(secretOrKeyId);
	const keyId = match ? match[1].toLowerCase() : secretOrKeyId;
	const key = world.state.keys.find((k) => k.keyId === keyId);
	if (!key) return false;
	if (key.revokedAt === null) key.revokedAt = world.now();
	return true;
}

/** The key id a bearer header names, without validating it (for the journal). */
export function keyIdOfHeader(authorization: string | undefined): string | null {
	const m = /^Bearer\s+(\S+)$/i.exec(authorization ?? '');
	const s = m ? SECRET_FORMAT.exec(m[1]) : null;
	return s ? s[1].toLowerCase() : null;
}

/** Authorization header → key record, or 401. */
export function authenticate(world: World, authorization: string | undefined): ApiKeyRecord {
	if (authorization === undefined || authorization.trim() === '') {
		throw new ApiError('api_key_required');
	}
	const m = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
	if (!m) throw new ApiError('invalid_api_key');
	const secret = m[1];
	const s = SECRET_FORMAT.exec(secret);
	if (!s) throw new ApiError('invalid_api_key');
	const key = world.state.keys.find((k) => k.keyId === s[1].toLowerCase());
	if (!key) throw new ApiError('invalid_api_key');
	const expected = Buffer.from(key.secretHash, 'hex');
	const actual = Buffer.from(sha256Hex(secret), 'hex');
	if (!timingSafeEqual(expected, actual)) throw new ApiError('invalid_api_key');
	if (!isActive(key, world.now())) throw new ApiError('invalid_api_key');
	return key;
}

/**
 * Counts one request in the key's fixed window (`rateWindowMs`, aligned to multiples of it).
 * Returns the X-RateLimit-* headers, and whether the request is over the limit.
 */
export function countRequest(
	world: World,
	key: ApiKeyRecord,
): { headers: Record<string, string>; limited: boolean; retryAfter: number } {
	const now = world.now();
	const windowMs = world.runtime.rateWindowMs;
	const windowStart = Math.floor(now / windowMs) * windowMs;
	if (key.windowStart !== windowStart) {
		key.windowStart = windowStart;
		key.windowCount = 0;
	}
	const limited = key.windowCount >= key.requestsPerMinute;
	if (!limited) key.windowCount += 1;
	const reset = windowStart + windowMs;
	return {
		headers: {
			'X-RateLimit-Limit': String(key.requestsPerMinute),
			'X-RateLimit-Remaining': String(Math.max(0, key.requestsPerMinute - key.windowCount)),
			'X-RateLimit-Reset': String(Math.ceil(reset / 1000)),
		},
		limited,
		retryAfter: Math.max(1, Math.ceil((reset - now) / 1000)),
	};
}

export function requireScope(key: ApiKeyRecord, scope: Scope | null): void {
	if (scope !== null && !key.scopes.includes(scope)) {
		throw new ApiError('insufficient_scope', `A chave não tem a permissão ${scope}.`);
	}
}
