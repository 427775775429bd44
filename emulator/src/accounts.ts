import { storeAsset } from './assets';
import type { HandlerResult, RequestContext } from './http';
import { ok } from './http';
import { seededHex } from './ids';
import { createKey } from './keys';
import { balanceOf, entriesOf, grant, toLedgerEntry } from './ledger';
import { paginate, parsePageQuery } from './pagination';
import { seedPersonas } from './personas';
import { CHARACTER_JPEG, CHARACTER_PNG, SAMPLE_VIDEO_MP4 } from './samples';
import { findAccount, SCOPES } from './state';
import type { AccountRecord, Scope, World } from './state';

export const MAIN_ACCOUNT = 'acct_main';

export const READ_ONLY_SCOPES: Scope[] = [
	'balance:read',
	'usage:read',
	'jobs:read',
	'assets:read',
	'personas:read',
];

export function ensureAccount(world: World, accountId: string): AccountRecord {
	let account = world.state.accounts.find((a) => a.id === accountId);
	if (!account) {
		account = {
			id: accountId,
			userId: `usr_${seededHex(`user:${accountId}`, 24)}`,
			granted: 0,
			revoked: 0,
			debt: 0,
			available: 0,
			reserved: 0,
			spent: 0,
			frozen: false,
			uploadTimes: [],
		};
		world.state.accounts.push(account);
	}
	return account;
}

/**
 * The three seeded keys have well-known secrets derived from fixed labels, so they survive
 * restarts with --state (only their sha256 is stored) and can be printed every time.
 */
export function seededSecret(label: 'full' | 'read-only' | 'tiny-ceiling'): string {
	return `svc_sk_key_${seededHex(`key:${label}`)}.${seededHex(`secret:${label}`, 64)}`;
}

export interface SeedOptions {
	initialCredits: number;
	requestsPerMinute: number;
}

/** One account with credits, three keys, three sample files and two personas. */
export function seed(world: World, opts: SeedOptions): void {
	const account = ensureAccount(world, MAIN_ACCOUNT);
	grant(world, account.id, opts.initialCredits);
	const rpm = opts.requestsPerMinute;
	createKey(world, account.id, {
		secret: seededSecret('full'),
		label: 'full',
		scopes: [...SCOPES],
		creditCeiling: 100_000,
		requestsPerMinute: rpm,
	});
	createKey(world, account.id, {
		secret: seededSecret('read-only'),
		label: 'read-only',
		scopes: READ_ONLY_SCOPES,
		creditCeiling: 0,
		requestsPerMinute: rpm,
	});
	createKey(world, account.id, {
		secret: seededSecret('tiny-ceiling'),
		label: 'tiny-ceiling',
		scopes: [...SCOPES],
		creditCeiling: 10,
		requestsPerMinute: rpm,
	});
	const png = storeAsset(
		world,
		account.id,
		'character.png',
		'image/png',
		Buffer.from(CHARACTER_PNG, 'base64'),
		'seed',
	);
	storeAsset(
		world,
		account.id,
		'character.jpg',
		'image/jpeg',
		Buffer.from(CHARACTER_JPEG, 'base64'),
		'seed',
	);
	storeAsset(
		world,
		account.id,
		'sample-video.mp4',
		'video/mp4',
		Buffer.from(SAMPLE_VIDEO_MP4, 'base64'),
		'seed',
	);
	seedPersonas(world, account.id, png.id);
}

/** GET /v1/me */
export function getMe(ctx: RequestContext): HandlerResult {
	const account = findAccount(ctx.world, ctx.key.accountId);
	return ok({
		userId: account.userId,
		authKind: 'api_key',
		keyId: ctx.key.keyId,
		scopes: [...ctx.key.scopes],
	});
}

/** GET /v1/balance */
export function getBalance(ctx: RequestContext): HandlerResult {
	return ok(balanceOf(findAccount(ctx.world, ctx.key.accountId)));
}

/** GET /v1/usage — the credit ledger, newest first. */
export function getUsage(ctx: RequestContext): HandlerResult {
	const page = parsePageQuery(ctx.query);
	const { items, nextCursor } = paginate(entriesOf(ctx.world, ctx.key.accountId), page);
	return ok({ items: items.map(toLedgerEntry), nextCursor });
}
