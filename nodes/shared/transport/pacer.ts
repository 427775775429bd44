// The only place that decides when a request to the service may leave: one pacer per service key in
// this n8n process, shared by every item, operation, node and execution that uses the key.
import type { ServiceErrorInfo } from './errors';
import { PACING, RateWindow, type Window } from './rateWindow';
import { clock } from './serviceClock';
import type { Priority } from './types';

export { PACING };

/**
 * Bounds of the process-wide pacing state: a main that serves many credentials for weeks must not grow
 * without end. Nothing runs on a timer: the maps are swept when a pacer is looked up, at most once per
 * `sweepEveryAdds` new pacers or `sweepEveryMs` of the package clock.
 */
export const PACING_MEMORY = {
	/** Pacers kept at most; beyond, the least recently used quiet ones are forgotten first. */
	maxPacers: 1_000,
	/**
	 * Refused keys remembered at most (the oldest refusal goes first). A refusal is never forgotten for its
	 * age: a revoked or expired key never works again, so nothing more is sent with it.
	 */
	maxRefusals: 10_000,
	/** A sweep runs once this many pacers were added since the last one… */
	sweepEveryAdds: 64,
	/** …or once this long has passed on the package clock since the last one. */
	sweepEveryMs: 60_000,
};

const PRIORITY_RANK: Record<Priority, number> = { poll: 0, normal: 1, transfer: 2 };

/** A wait the service asked for (429 Retry-After) or that a used-up window imposes. */
export interface Block {
	/** When requests may leave again: the service's end of the hold plus our margin. */
	until: number;
	/** The part of `until` that is our margin (not judged against Max Rate-Limit Wait). */
	marginMs?: number;
	info: ServiceErrorInfo;
}

/** Why a request may not leave at all. */
export class PacerStop extends Error {
	constructor(
		readonly reason: 'refused' | 'too_long' | 'cancelled',
		readonly info?: ServiceErrorInfo,
		readonly waitMs = 0,
	) {
		super(`request not sent: ${reason}`);
	}
}

/** A request of rank `rank` (PRIORITY_RANK) that its owner will send at `at`. */
interface Reservation {
	at: number;
	rank: number;
}

interface Waiter {
	rank: number;
	priority: Priority;
	upload: boolean;
	controller?: AbortController;
}

export interface AcquireOptions {
	priority: Priority;
	/** POST /assets: also held by a 429 upload_rate_limit. */
	upload: boolean;
	/** Longest wait the service may impose before the request fails instead (Max Rate-Limit Wait). */
	maxWaitMs: number;
	signal?: AbortSignal;
}

/**
 * The pacer of one key. It keeps the newest view of the key's rate window (RateWindow), counts its own
 * requests still in flight against it, orders waiters by priority, honours every Retry-After for
 * the whole key (and `ip_rate_limited` for every key of the base URL), keeps room in the window for the
 * requests its callers reserved ahead (reserve), and stops everything once the key is refused. Alone on the key it
 * sends as fast as the window allows; once the service counts requests this process did not send, it
 * spreads the budget and keeps a reserve, until a window passes with none seen.
 */
export class KeyPacer {
	private readonly rate = new RateWindow();
	private keyBlock: Block | undefined;
	private uploadBlock: Block | undefined;
	private nextSendAt = 0;
	private sent = 0;
	private readonly inFlight = new Set<number>();
	private readonly normalInFlight = new Set<number>();
	private lastNormalAt = -Infinity;
	private readonly waiters: Waiter[] = [];
	private waiterSeq = 0;
	/**
	 * Requests reserved ahead, by owner: one per owner (a new one replaces it), gone on release or, for an
	 * owner gone without releasing, a window after its time.
	 */
	private readonly reservations = new Map<object, Reservation>();
	/** Last time a request of this key asked, left, was answered or was held (package clock). */
	private lastUsedAt = -Infinity;

	constructor(
		private readonly shared: PacingState,
		private readonly serviceKey: string,
		private readonly baseUrl: string,
	) {}

	/** The 401 that refused this key: nothing more is sent with it (kept apart, beyond this pacer). */
	get refusal(): ServiceErrorInfo | undefined {
		return this.shared.refusals.get(this.serviceKey);
	}

	private get ipBlocks(): Map<string, Block> {
		return this.shared.ipBlocks;
	}

	/**
	 * Nothing of this pacer matters any more: no request in flight or waiting, no hold in force, and
	 * nothing it learned still applies — its rate window is over, the key is no longer seen shared, and
	 * it was not used for a whole window. A fresh pacer would act exactly like this one.
	 */
	isForgettable(now: number): boolean {
		return (
			this.isQuiet(now) &&
			now >= this.lastUsedAt + this.rate.windowLength() &&
			now >= this.rate.knownUntil()
		);
	}

	/**
	 * Nothing in flight, nobody waiting, no reservation, no hold in force: forgetting it loses only what it
	 * learned.
	 */
	isQuiet(now: number): boolean {
		return (
			this.inFlight.size === 0 &&
			this.waiters.length === 0 &&
			this.reservations.size === 0 &&
			(this.keyBlock?.until ?? 0) <= now &&
			(this.uploadBlock?.until ?? 0) <= now
		);
	}

	/** Waits until a request may leave; returns its ticket for `settle`. */
	async acquire(options: AcquireOptions): Promise<number> {
		this.lastUsedAt = clock.now();
		const waiter: Waiter = {
			rank: PRIORITY_RANK[options.priority] * 1e9 + ++this.waiterSeq,
			priority: options.priority,
			upload: options.upload,
		};
		const position = this.waiters.findIndex((w) => w.rank > waiter.rank);
		this.waiters.splice(position < 0 ? this.waiters.length : position, 0, waiter);
		const onCancel = () => waiter.controller?.abort();
		options.signal?.addEventListener('abort', onCancel);
		try {
			for (;;) {
				if (this.refusal) throw new PacerStop('refused', this.refusal);
				if (options.signal?.aborted) throw new PacerStop('cancelled');
				const now = clock.now();
				const gate = this.gate(options.upload, options.priority, now);
				const imposedMs = gate.block ? gate.block.until - (gate.block.marginMs ?? 0) - now : 0;
				if (gate.block && imposedMs > options.maxWaitMs) {
					throw new PacerStop('too_long', gate.block.info, imposedMs);
				}
				const quietAt = this.transferQuietAt(waiter);
				if (gate.at <= now && quietAt <= now && this.isFirstReady(waiter, now)) {
					return this.grant(now, waiter);
				}
				const ms =
					gate.at > now ? gate.at - now : quietAt > now ? quietAt - now : PACING.maxSleepMs;
				await this.sleep(waiter, Math.min(ms, PACING.maxSleepMs));
			}
		} finally {
			this.lastUsedAt = clock.now();
			options.signal?.removeEventListener('abort', onCancel);
			this.waiters.splice(this.waiters.indexOf(waiter), 1);
			this.wakeAll();
		}
	}

	/** The answer (or the failure) of a ticket's request: learn the window from its headers. */
	settle(ticket: number, headers?: Record<string, unknown>): void {
		this.lastUsedAt = clock.now();
		this.inFlight.delete(ticket);
		if (this.normalInFlight.delete(ticket)) this.lastNormalAt = clock.now();
		if (headers) this.rate.observe(ticket, headers, this.inFlight);
		else this.rate.lost(clock.now());
		this.wakeAll();
	}

	/**
	 * `owner` will send a request of `priority` at `at` (replacing what it reserved before). While `at`
	 * falls within the rate window, requests of a lower priority leave it room — they never take the
	 * window's last request — so the reserved request leaves on time.
	 */
	reserve(owner: object, at: number, priority: Priority): void {
		this.reservations.set(owner, { at, rank: PRIORITY_RANK[priority] });
		this.wakeAll();
	}

	/** `owner` sends no reserved request any more. */
	release(owner: object): void {
		this.reservations.delete(owner);
		this.wakeAll();
	}

	/** A 429: hold the key (or the base URL, or uploads) until Retry-After has passed. */
	slowDown(info: ServiceErrorInfo, retryAfterSeconds: number | undefined): void {
		const now = clock.now();
		this.lastUsedAt = now;
		const fallback = this.rate.endsAt() ?? now + 1000;
		const marginMs = retryAfterSeconds !== undefined ? PACING.holdMarginMs : 0;
		const until =
			retryAfterSeconds !== undefined ? now + retryAfterSeconds * 1000 + marginMs : fallback;
		const block: Block = { until, marginMs, info };
		const longer = (current: Block | undefined) =>
			current && current.until >= until ? current : block;
		if (info.code === 'ip_rate_limited') {
			this.ipBlocks.set(this.baseUrl, longer(this.ipBlocks.get(this.baseUrl)));
		} else if (info.code === 'upload_rate_limit') {
			this.uploadBlock = longer(this.uploadBlock);
		} else {
			this.keyBlock = longer(this.keyBlock);
		}
		this.wakeAll();
	}

	/** A 401: the key is refused; every waiting and later request fails at once with the same reason. */
	refuse(info: ServiceErrorInfo): void {
		const { refusals } = this.shared;
		refusals.delete(this.serviceKey); // re-insert: the map stays in order of refusal
		refusals.set(this.serviceKey, info);
		while (refusals.size > PACING_MEMORY.maxRefusals) {
			refusals.delete(refusals.keys().next().value as string);
		}
		this.wakeAll();
	}

	/** End of the longest hold the service imposed on this key (Retry-After, IP limit); 0 when none. */
	heldUntil(): number {
		return Math.max(this.keyBlock?.until ?? 0, this.ipBlocks.get(this.baseUrl)?.until ?? 0);
	}

	/**
	 * Requests of the window a request of `priority` must leave unused: the shared key's reserve, and one
	 * for each reservation of a higher priority due within the window (requests of that priority may take
	 * those).
	 */
	private keptBack(priority: Priority, window: Window, now: number): number {
		let kept = this.rate.isShared(now) ? PACING.sharedReserve : 0;
		const rank = PRIORITY_RANK[priority];
		const windowEnd = window.resetAt + this.rate.marginMs(window.resetAt);
		for (const [owner, reservation] of this.reservations) {
			if (reservation.rank >= rank) continue;
			// an owner that is gone without releasing would otherwise hold room forever
			if (reservation.at < now - PACING.defaultWindowMs) this.reservations.delete(owner);
			else if (reservation.at < windowEnd) kept++;
		}
		return kept;
	}

	/** When a request may leave (`at`), and the service-imposed part of that wait (`block`). */
	private gate(upload: boolean, priority: Priority, now: number): { at: number; block?: Block } {
		let block: Block | undefined;
		const consider = (candidate: Block | undefined) => {
			if (candidate && candidate.until > now && (!block || candidate.until > block.until)) {
				block = candidate;
			}
		};
		consider(this.keyBlock);
		consider(this.ipBlocks.get(this.baseUrl));
		if (upload) consider(this.uploadBlock);
		let at = Math.max(now, block?.until ?? now);
		const window = this.rate.current(now, this.inFlight.size);
		if (this.rate.limit === undefined) {
			// Nothing known about the key yet: one request at a time until an answer tells its limit.
			if (this.inFlight.size > 0) at = Math.max(at, now + PACING.maxSleepMs);
		} else if (window) {
			if (window.remaining - this.keptBack(priority, window, now) <= 0) {
				// Judged against Max Rate-Limit Wait up to the reset itself; the margin is ours.
				at = Math.max(at, window.resetAt + this.rate.marginMs(window.resetAt));
				consider({
					until: window.resetAt,
					info: {
						httpCode: 429,
						code: 'rate_limited',
						serviceMessage: '',
						detail: "The key's rate window is used up (X-RateLimit-Remaining was 0)",
						requestId: null,
					},
				});
				at = Math.max(at, block?.until ?? now);
			}
		}
		return { at: Math.max(at, this.nextSendAt), block };
	}

	/** Waiters go in priority order; one held only by the upload limit does not hold the others. */
	private isFirstReady(waiter: Waiter, now: number): boolean {
		const uploadsHeld = this.uploadBlock !== undefined && this.uploadBlock.until > now;
		for (const other of this.waiters) {
			if (other === waiter) return true;
			if (!(other.upload && uploadsHeld)) return false;
		}
		return false;
	}

	/** When a transfer may leave as far as normal requests are concerned (Infinity: one is in flight). */
	private transferQuietAt(waiter: Waiter): number {
		if (waiter.priority !== 'transfer') return 0;
		if (this.normalInFlight.size > 0) return Infinity;
		return this.lastNormalAt + PACING.normalQuietMs;
	}

	private grant(now: number, waiter: Waiter): number {
		const ticket = ++this.sent;
		this.inFlight.add(ticket);
		if (waiter.priority === 'normal') {
			this.normalInFlight.add(ticket);
			this.lastNormalAt = now;
		}
		const window = this.rate.current(now, this.inFlight.size);
		if (window) window.remaining -= 1;
		this.nextSendAt = this.nextSlot(now, window, waiter.priority);
		return ticket;
	}

	/**
	 * Spread the budget, only while another process uses the key too: space the remaining requests over
	 * the time left to the reset (with a little jitter, so processes sharing a key de-synchronise) instead
	 * of a burst that would collide with theirs. Alone on the key, spreading only delays work that is
	 * known to be needed: requests leave as fast as the window allows.
	 */
	private nextSlot(now: number, window: Window | undefined, priority: Priority): number {
		if (!window || this.rate.limit === undefined || !this.rate.isShared(now)) return now;
		const available = window.remaining - this.keptBack(priority, window, now);
		if (available <= 0) return now;
		const timeLeft = window.resetAt + this.rate.marginMs(window.resetAt) - now;
		return now + (timeLeft / (available + 1)) * (0.5 + clock.random());
	}

	private async sleep(waiter: Waiter, ms: number): Promise<void> {
		const controller = new AbortController();
		waiter.controller = controller;
		try {
			await clock.sleep(Math.max(0, ms), controller.signal);
		} catch {
			// woken early: look again
		} finally {
			waiter.controller = undefined;
		}
	}

	private wakeAll(): void {
		for (const waiter of this.waiters) waiter.controller?.abort();
	}
}

/** What every pacer of the process shares. */
export interface PacingState {
	/** One pacer per service key (API key hash and base URL), least recently used first. */
	pacers: Map<string, KeyPacer>;
	/** 429 ip_rate_limited holds, per base URL. */
	ipBlocks: Map<string, Block>;
	/** Keys the service refused (401), per service key, oldest refusal first. */
	refusals: Map<string, ServiceErrorInfo>;
	/** Pacers added since the last sweep, and when it ran (package clock). */
	addedSinceSweep: number;
	sweptAt: number;
}

/**
 * Module state on purpose: every node run of this n8n process shares one pacer per service key (the
 * API key's hash and the base URL), so items, operations, nodes and executions see one rate window,
 * one set of Retry-After holds and one refusal. It lives as long as the process (one per worker in
 * queue mode: processes learn about each other only from the service's answers), bounded: idle pacers
 * and IP holds that ended are forgotten (see PACING_MEMORY), refusals are kept up to a count.
 */
export const processPacing: PacingState = {
	pacers: new Map<string, KeyPacer>(),
	ipBlocks: new Map<string, Block>(),
	refusals: new Map<string, ServiceErrorInfo>(),
	addedSinceSweep: 0,
	sweptAt: -Infinity,
};

/**
 * Forgets what no longer matters: pacers with nothing to remember (isForgettable) and IP holds that
 * ended. Runs when a pacer is looked up, at most once per `sweepEveryAdds` new pacers or `sweepEveryMs`.
 */
function sweep(now: number): void {
	const { pacers, ipBlocks } = processPacing;
	processPacing.addedSinceSweep = 0;
	processPacing.sweptAt = now;
	for (const [key, pacer] of pacers) if (pacer.isForgettable(now)) pacers.delete(key);
	for (const [baseUrl, block] of ipBlocks) if (block.until <= now) ipBlocks.delete(baseUrl);
}

/**
 * Room for one more pacer under the cap: the least recently used quiet pacers go first. One with a
 * request in flight, a waiter or a hold in force is never dropped (the cap is passed only while more
 * keys than that are busy at once).
 */
function makeRoom(now: number): void {
	const { pacers } = processPacing;
	if (pacers.size < PACING_MEMORY.maxPacers) return;
	for (const [key, pacer] of pacers) {
		if (pacers.size < PACING_MEMORY.maxPacers) return;
		if (pacer.isQuiet(now)) pacers.delete(key);
	}
}

/** The pacer of a key; callers ask again for each attempt, so a forgotten pacer is never used on. */
export function pacerFor(serviceKey: string, baseUrl: string): KeyPacer {
	const { pacers } = processPacing;
	const now = clock.now();
	if (
		processPacing.addedSinceSweep >= PACING_MEMORY.sweepEveryAdds ||
		now - processPacing.sweptAt >= PACING_MEMORY.sweepEveryMs
	) {
		sweep(now);
	}
	let pacer = pacers.get(serviceKey);
	if (pacer) {
		pacers.delete(serviceKey); // re-insert: the map stays in order of last use
	} else {
		makeRoom(now);
		pacer = new KeyPacer(processPacing, serviceKey, baseUrl);
		processPacing.addedSinceSweep++;
	}
	pacers.set(serviceKey, pacer);
	return pacer;
}
