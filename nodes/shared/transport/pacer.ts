// The only place that decides when a request to the service may leave: one pacer per service key in
// this n8n process (pacers.ts keeps them), shared by every item, operation, node and execution that uses
// the key. What holds a key back besides its window is in holds.ts.
import type { ServiceErrorInfo } from './errors';
import type { Block, SharedHolds } from './holds';
import { KeyHolds, Reservations } from './holds';
import { PACING, RateWindow, type Window } from './rateWindow';
import { clock } from './serviceClock';
import type { Priority } from './types';

export { PACING };

const PRIORITY_RANK: Record<Priority, number> = { poll: 0, normal: 1, transfer: 2 };

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
 * requests still in flight against it, orders waiters by priority, honours every Retry-After for the
 * whole key (and `ip_rate_limited` for every key of the base URL), keeps room in the window for the
 * requests its callers reserved ahead (reserve), and stops everything once the key is refused. Alone on
 * the key it sends as fast as the window allows; once the service counts requests this process did not
 * send, it spreads the budget and keeps a reserve, until a window passes with none seen.
 */
export class KeyPacer {
	private readonly rate = new RateWindow();
	private readonly holds: KeyHolds;
	private nextSendAt = 0;
	private sent = 0;
	/** Tickets of this key's requests in flight (removed when settled), and those of priority normal. */
	private readonly inFlight = new Set<number>();
	private readonly normalInFlight = new Set<number>();
	private lastNormalAt = -Infinity;
	/** Requests waiting to leave (each removed when it leaves or fails). */
	private readonly waiters: Waiter[] = [];
	private waiterSeq = 0;
	/** Requests reserved ahead (reserve): one per owner, dropped on release or a window after its time. */
	private readonly reservations = new Reservations();
	/** Last time a request of this key asked, left, was answered or was held (package clock). */
	private lastUsedAt = -Infinity;

	constructor(
		shared: SharedHolds,
		readonly serviceKey: string,
		baseUrl: string,
	) {
		this.holds = new KeyHolds(shared, serviceKey, baseUrl);
	}

	/** The 401 that refused this key: nothing more is sent with it (see refuseKey in pacers.ts). */
	get refusal(): ServiceErrorInfo | undefined {
		return this.holds.refusal;
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
			this.holds.areOver(now)
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
		this.reservations.set(owner, at, PRIORITY_RANK[priority]);
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
		this.holds.hold(info, retryAfterSeconds, now, this.rate.endsAt() ?? now + 1000);
		this.wakeAll();
	}

	/** End of the longest hold the service imposed on this key (Retry-After, IP limit); 0 when none. */
	heldUntil(): number {
		return this.holds.heldUntil();
	}

	/**
	 * Requests of the window a request of `priority` must leave unused: the shared key's reserve, and one
	 * for each reservation of a higher priority due within the window (requests of that priority may take
	 * those).
	 */
	private keptBack(priority: Priority, window: Window, now: number): number {
		const sharedReserve = this.rate.isShared(now) ? PACING.sharedReserve : 0;
		const windowEnd = window.resetAt + this.rate.marginMs(window.resetAt);
		return sharedReserve + this.reservations.dueBefore(PRIORITY_RANK[priority], windowEnd, now);
	}

	/** When a request may leave (`at`), and the service-imposed part of that wait (`block`). */
	private gate(upload: boolean, priority: Priority, now: number): { at: number; block?: Block } {
		let block = this.holds.longest(upload, now);
		const consider = (candidate: Block | undefined) => {
			if (candidate && candidate.until > now && (!block || candidate.until > block.until)) {
				block = candidate;
			}
		};
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
		const uploadsHeld = this.holds.uploadsHeld(now);
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

	/** Every waiter looks again (something changed: an answer, a hold, a refusal, a reservation). */
	wakeAll(): void {
		for (const waiter of this.waiters) waiter.controller?.abort();
	}
}
