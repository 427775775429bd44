/**
 * The emulator's whole state: plain JSON-serialisable records (an `EmulatorSnapshot`).
 * Asset bytes are stored base64; job outputs are rebuilt from the job id.
 */

export const SCOPES = [
	'balance:read',
	'usage:read',
	'jobs:read',
	'jobs:write',
	'assets:read',
	'assets:write',
	'personas:read',
] as const;
export type Scope = (typeof SCOPES)[number];

export const MODES = ['character_replacement', 'image_to_video', 'text_to_video'] as const;
export type Mode = (typeof MODES)[number];

export const MIME_TYPES = [
	'image/jpeg',
	'image/png',
	'image/webp',
	'video/mp4',
	'video/webm',
] as const;
export type MimeType = (typeof MIME_TYPES)[number];

export interface AccountRecord {
	id: string;
	userId: string;
	granted: number;
	revoked: number;
	debt: number;
	available: number;
	reserved: number;
	spent: number;
	frozen: boolean;
	/** Times (ms) of the account's successful uploads, for the 20-per-hour rule. */
	uploadTimes: number[];
}

export interface ApiKeyRecord {
	keyId: string;
	accountId: string;
	/** sha256 hex of the secret; the secret itself is never stored. */
	secretHash: string;
	label: string;
	scopes: Scope[];
	/** Lifetime ceiling of reservations + spending; null = none. */
	creditCeiling: number | null;
	requestsPerMinute: number;
	createdAt: number;
	expiresAt: number | null;
	revokedAt: number | null;
	/** Fixed window of the rate limiter (`rateWindowMs` long, aligned to multiples of it). */
	windowStart: number;
	windowCount: number;
}

export interface AssetRecord {
	id: string;
	seq: number;
	accountId: string;
	filename: string;
	mimeType: MimeType;
	byteSize: number;
	sha256: string;
	createdAt: number;
	/** 'upload' (listed, counts toward the quota) or 'output' (a job's MP4: not listed). */
	origin: 'upload' | 'seed' | 'output';
	/** base64 of the bytes; null for job outputs (rebuilt from the job). */
	bytes: string | null;
	jobId: string | null;
}

export interface PersonaRecord {
	id: string;
	seq: number;
	accountId: string;
	name: string;
	description: string;
	referencePreset: string | null;
	species: string;
	humorStyle: string;
	blueprint: Record<string, unknown> | null;
	identityAssetId: string | null;
	styleAssetId: string | null;
	createdAt: number;
	updatedAt: number;
}

export interface JobInput {
	mode: Mode;
	prompt: string;
	sourceAssetId: string | null;
	referenceAssetId: string | null;
	personaId: string | null;
	durationSeconds: number;
	aspectRatio: '9:16' | '16:9' | '1:1';
}

export interface JobScript {
	queuedMs?: number;
	runningMs?: number;
	outcome?: 'succeeded' | 'failed';
	errorCode?: string;
	chargeRatio?: number;
}

export interface JobRecord {
	id: string;
	seq: number;
	accountId: string;
	keyId: string | null;
	idempotencyKey: string;
	/** canonical JSON of the request body, to tell replays from conflicts. */
	bodyHash: string;
	input: JobInput;
	state: 'queued' | 'running' | 'succeeded' | 'failed';
	reservedCredits: number;
	chargedCredits: number;
	outputAssetId: string | null;
	outputSha256: string | null;
	outputBytes: number;
	errorCode: string | null;
	createdAt: number;
	updatedAt: number;
	/** Planned timing and outcome, fixed at creation. */
	queuedMs: number;
	runningMs: number;
	outcome: 'succeeded' | 'failed';
	plannedErrorCode: string;
	chargeRatio: number;
}

export interface LedgerEntryRecord {
	id: string;
	seq: number;
	accountId: string;
	kind: 'grant' | 'reserve' | 'settle' | 'release';
	amount: number;
	jobId: string | null;
	apiKeyId: string | null;
	createdAt: number;
}

export interface UploadIdempotencyRecord {
	accountId: string;
	idempotencyKey: string;
	sha256: string;
	assetId: string;
}

export interface Settings {
	engineAvailable: boolean;
	engineReason: string | null;
	uploadsAvailable: boolean;
	modes: Mode[];
	outputBytes: number;
	jobTiming: { queuedMs: number; runningMs: number };
	chargeRatio: number;
}

export interface EmulatorSnapshot {
	version: 1;
	seq: number;
	settings: Settings;
	accounts: AccountRecord[];
	keys: ApiKeyRecord[];
	assets: AssetRecord[];
	personas: PersonaRecord[];
	jobs: JobRecord[];
	ledger: LedgerEntryRecord[];
	uploadIdempotency: UploadIdempotencyRecord[];
	pendingScripts: JobScript[];
}

/** A per-remote-IP fixed window over every /v1 request. */
export interface IpLimit {
	requests: number;
	windowMs: number;
}

/** Run-time settings (options / control), not part of the snapshot. */
export interface RuntimeSettings {
	/** Length of a key's fixed rate window, aligned to multiples of it since the epoch. */
	rateWindowMs: number;
	/** null = no per-IP limit. */
	ipLimit: IpLimit | null;
	/** Referee: minimum time between two reads of the same job (and two looks at the job list). */
	minPollIntervalMs: number;
	/** Referee: how long after a 429 / 401 a request counts as already in flight (not judged). */
	inFlightGraceMs: number;
}

/** Live state plus the clock. */
export interface World {
	state: EmulatorSnapshot;
	now: () => number;
	/** Waits `ms` on the emulator's clock (virtual when a `clock` option is given). */
	sleep: (ms: number) => Promise<void>;
	runtime: RuntimeSettings;
	/** Called after anything changed (used by cli.mjs to persist --state). */
	onChange: () => void;
}

export function nextSeq(world: World): number {
	world.state.seq += 1;
	return world.state.seq;
}

export function findAccount(world: World, accountId: string): AccountRecord {
	const account = world.state.accounts.find((a) => a.id === accountId);
	if (!account) {
		throw new Error(`unknown account ${accountId}`);
	}
	return account;
}
