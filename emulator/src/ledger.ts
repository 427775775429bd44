import { newId } from './ids';
import { findAccount, nextSeq } from './state';
import type { AccountRecord, LedgerEntryRecord, World } from './state';

export interface Balance {
	available: number;
	reserved: number;
	spent: number;
	granted: number;
	revoked: number;
	debt: number;
	frozen: boolean;
	unit: 'credits';
}

export interface LedgerEntry {
	id: string;
	kind: LedgerEntryRecord['kind'];
	amount: number;
	jobId: string | null;
	apiKeyId: string | null;
	createdAt: number;
}

function record(
	world: World,
	accountId: string,
	kind: LedgerEntryRecord['kind'],
	amount: number,
	jobId: string | null,
	apiKeyId: string | null,
	at: number,
): void {
	world.state.ledger.push({
		id: newId('led'),
		seq: nextSeq(world),
		accountId,
		kind,
		amount,
		jobId,
		apiKeyId,
		createdAt: at,
	});
}

/** Credits added (the dashboard's purchase; here: seed or control). */
export function grant(world: World, accountId: string, amount: number, at = world.now()): void {
	const account = findAccount(world, accountId);
	account.granted += amount;
	account.available += amount;
	record(world, accountId, 'grant', amount, null, null, at);
}

/** Hold credits for a generation. The caller has checked the balance. */
export function reserve(
	world: World,
	accountId: string,
	amount: number,
	jobId: string,
	apiKeyId: string | null,
	at: number,
): void {
	const account = findAccount(world, accountId);
	account.available -= amount;
	account.reserved += amount;
	record(world, accountId, 'reserve', amount, jobId, apiKeyId, at);
}

/** Final consumption of part of a reservation. */
export function settle(
	world: World,
	accountId: string,
	amount: number,
	jobId: string,
	apiKeyId: string | null,
	at: number,
): void {
	if (amount <= 0) return;
	const account = findAccount(world, accountId);
	account.reserved -= amount;
	account.spent += amount;
	record(world, accountId, 'settle', amount, jobId, apiKeyId, at);
}

/** Return (part of) a reservation to the available balance. */
export function release(
	world: World,
	accountId: string,
	amount: number,
	jobId: string,
	apiKeyId: string | null,
	at: number,
): void {
	if (amount <= 0) return;
	const account = findAccount(world, accountId);
	account.reserved -= amount;
	account.available += amount;
	record(world, accountId, 'release', amount, jobId, apiKeyId, at);
}

export function balanceOf(account: AccountRecord): Balance {
	return {
		available: account.available,
		reserved: account.reserved,
		spent: account.spent,
		granted: account.granted,
		revoked: account.revoked,
		debt: account.debt,
		frozen: account.frozen,
		unit: 'credits',
	};
}

export function toLedgerEntry(entry: LedgerEntryRecord): LedgerEntry {
	return {
		id: entry.id,
		kind: entry.kind,
		amount: entry.amount,
		jobId: entry.jobId,
		apiKeyId: entry.apiKeyId,
		createdAt: entry.createdAt,
	};
}

/** Entries of an account, newest first. */
export function entriesOf(world: World, accountId: string): LedgerEntryRecord[] {
	return world.state.ledger.filter((e) => e.accountId === accountId).sort((a, b) => b.seq - a.seq);
}

/**
 * `available + reserved + spent + revoked = granted + debt`, and the counters agree with a replay
 * of the ledger entries, and no counter is negative.
 */
export function invariantHolds(world: World, accountId: string): boolean {
	const account = findAccount(world, accountId);
	const sums = { grant: 0, reserve: 0, settle: 0, release: 0 };
	for (const e of world.state.ledger) {
		if (e.accountId === accountId) sums[e.kind] += e.amount;
	}
	const available = sums.grant - sums.reserve + sums.release;
	const reserved = sums.reserve - sums.settle - sums.release;
	const spent = sums.settle;
	return (
		account.available + account.reserved + account.spent + account.revoked ===
			account.granted + account.debt &&
		account.available === available &&
		account.reserved === reserved &&
		account.spent === spent &&
		account.granted === sums.grant &&
		account.available >= 0 &&
		account.reserved >= 0
	);
}

/** Lifetime reservations + spending of a key (what its credit ceiling limits). */
export function keyUsage(world: World, keyId: string): number {
	let used = 0;
	for (const e of world.state.ledger) {
		if (e.apiKeyId !== keyId) continue;
		if (e.kind === 'reserve') used += e.amount;
		if (e.kind === 'release') used -= e.amount;
	}
	return used;
}
