import { createHash, randomBytes } from 'crypto';

export const ASSET_ID = /^asset_[0-9a-f]{32}$/;
export const JOB_ID = /^job_[0-9a-f]{32}$/;
export const PERSONA_ID = /^prs_[0-9a-f]{32}$/;
export const KEY_ID = /^key_[0-9a-f]{32}$/;
/** `svc_sk_key_<32 hex>.<64 hex>`; the key id is the `key_<32 hex>` part (lower-cased). */
export const SECRET_FORMAT = /^svc_sk_(key_[0-9a-fA-F]{32})\.[0-9a-fA-F]{64}$/;
export const IDEMPOTENCY_KEY = /^[A-Za-z0-9_.:-]{16,128}$/;

export function randomHex(bytes: number): string {
	return randomBytes(bytes).toString('hex');
}

export function newId(prefix: 'asset' | 'job' | 'prs' | 'key' | 'led' | 'req'): string {
	return `${prefix}_${randomHex(16)}`;
}

export function sha256Hex(data: Buffer | string): string {
	return createHash('sha256').update(data).digest('hex');
}

/** Deterministic id derived from a label (used for seeded data so demos can rely on it). */
export function seededHex(label: string, length = 32): string {
	return sha256Hex(`generation-service-emulator:${label}`).slice(0, length);
}

/** JSON with sorted object keys, used to compare request bodies. */
export function canonicalJson(value: unknown): string {
	if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
	if (value !== null && typeof value === 'object') {
		const entries = Object.keys(value as Record<string, unknown>)
			.sort()
			.map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`);
		return `{${entries.join(',')}}`;
	}
	return JSON.stringify(value) ?? 'null';
}
