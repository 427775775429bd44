// When a request to the service may leave: one pacer per service key in this n8n process, shared by every
// item, operation, node and execution that uses the key. A pacer keeps the key's rate window (rateWindow.ts),
// the holds the service imposed (a 429's Retry-After on the key, on the account's uploads or on the base URL),
// the key's refusal (401), the room its callers reserved for requests they will send at a known time, and the
// order of the requests waiting. The process's pacers, and their bounds, are at the end of this file.
import type { ServiceErrorInfo } from './errors';
import { clock } from './clock';
import { PACING, RateWindow, type Window } from './rateWindow';
import { keepRecent, processStore } from '../processState';

export { PACING };

/**
 * Who goes first when requests of one key wait for the same slot: status reads a caller is waiting on
 * ('poll', so an end is seen on time), then everything else, then file transfers.
 */
export type Priority = 'poll' | 'normal' | 'transfer';

/** A wait the service asked for (429 Retry-After) or that a used-up window imposes. */
export interface Block {
	/** When requests may leave again: the service's end of the hold plus our margin. */
	until: number;
	/** The part of `until` that is our margin (not judged against Max Rate-Limit Wait). */
	marginMs?: number;
	info: ServiceErrorInfo;
}

/** Holds and refusals every pacer of the process shares (kept and bounded at the end of this file). */
export interface SharedHolds {
	/** 429 ip_rate_limited holds, per base URL. */
	ipBlocks: Map<string, Block>;
	/** Keys the service refused (401), per service key, oldest refusal first. */
	refusals: Map<string, ServiceErrorInfo>;
}

/** The holds one key's requests obey: its own, its uploads', its base URL's, and its refusal. */
export class KeyHolds {
	private keyBlock: Block | undefined;
	private uploadBlock: Block | undefined;

	constructor(
		private readonly shared: SharedHolds,
		private readonly serviceKey: string,
		private readonly baseUrl: string,
	) {}

	/** The 401 that refused this key: nothing more is sent with it (kept apart, beyond this pacer). */
	get refusal(): ServiceErrorInfo | undefined {
		return this.shared.refusals.get(this.serviceKey);
	}

	/** No hold of the key or of its uploads is in force at `now`. */
	areOver(now: number): boolean {
		return (this.keyBlock?.until ?? 0) <= now && (this.uploadBlock?.until ?? 0) <= now;
	}

	/** Uploads are held at `now` (429 upload_rate_limit). */
	uploadsHeld(now: number): boolean {
		return this.uploadBlock !== undefined && this.uploadBlock.until > now;
	}

	/** The hold in force at `now` that ends last for a request (an upload obeys the uploads' hold too). */
	longest(upload: boolean, now: number): Block | undefined {
		let block: Block | undefined;
		const candidates = [this.keyBlock, this.shared.ipBlocks.get(this.baseUrl)];
		if (upload) candidates.push(this.uploadBlock);
		for (const candidate of candidates) {
			if (candidate && candidate.until > now && (!block || candidate.until > block.until)) {
				block = candidate;
			}
		}
		return block;
	}

	/**
	 * A 429: hold the key (or the base URL, or uploads) until Retry-After has passed plus our margin; without
	 * Retry-After, until `fallbackUntil`. A hold never shortens one already in force.
	 */
	hold(
		info: ServiceErrorInfo,
		retryAfterSeconds: number | undefined,
		now: number,
		fallbackUntil: number,
	): void {
		const marginMs = retryAfterSeconds !== undefined ? PACING.holdMarginMs : 0;
		const until =
			retryAfterSeconds !== undefined ? now + retryAfterSeconds * 1000 + marginMs : fallbackUntil;
		const block: Block = { until, marginMs, info };
		const longer = (current: Block | undefined) =>
			current && current.until >= until ? current : block;
		const { ipBlocks } = this.shared;
		if (info.code === 'ip_rate_limited') {
			ipBlocks.set(this.baseUrl, longer(ipBlocks.get(this.baseUrl)));
		} else if (info.code === 'upload_rate_limit') {
			this.uploadBlock = longer(this.uploadBlock);
		} else {
			this.keyBlock = longer(this.keyBlock);
		}
	}

	/** End of the longest hold the service imposed on this key (Retry-After, IP limit); 0 when none. */
	heldUntil(): number {
		return Math.max(this.keyBlock?.until ?? 0, this.shared.ipBlocks.get(this.baseUrl)?.until ?? 0);
	}
}

/**
 * Room in the rate window reserved for requests their owners will send at a known time: one per owner
 * (a new one replaces it), gone on release or, for an owner gone without releasing, a window after its
 * time. `rank` orders priorities as the pacer does (lower goes first).
 */
export class Reservations {
	/** One per owner; dropped on release, or a window after its time (dueBefore). */
	private readonly byOwner = new Map<object, { at: number; rank: number }>();

	get size(): number {
		return this.byOwner.size;
	}

	set(owner: object, at: number, rank: number): void {
		this.byOwner.set(owner, { at, rank });
	}

	delete(owner: object): void {
		this.byOwner.delete(owner);
	}

	/** How many reservations of a higher priority than `rank` are due before `windowEnd`. */
	dueBefore(rank: number, windowEnd: number, now: number): number {
		let due = 0;
		for (const [owner, reservation] of this.byOwner) {
			if (reservation.rank >= rank) continue;
			// an owner that is gone without releasing would otherwise hold room forever
			if (reservation.at < now - PACING.defaultWindowMs) this.byOwner.delete(owner);
			else if (reservation.at < windowEnd) due++;
		}
		return due;
	}
}

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
	/** The tail of a shared window: what this process may send in it, and what it sent (tailAllowance). */
	private tail: { resetAt: number; budget: number; sent: number } | undefined;

	constructor(
		shared: SharedHolds,
		readonly serviceKey: string,
		baseUrl: string,
	) {
		this.holds = new KeyHolds(shared, serviceKey, baseUrl);
	}

	/** The 401 that refused this key: nothing more is sent with it (see refuseKey below). */
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
	 * Whether a request let go earlier may still leave now: the key was not refused and no hold (a 429's
	 * Retry-After on the key, on the base URL or, for an upload, on the account's uploads) came in force
	 * since. Asked at the last moment the package controls before the request goes out.
	 */
	mayStillLeave(upload: boolean): boolean {
		return !this.refusal && this.holds.longest(upload, clock.now()) === undefined;
	}

	/**
	 * The request of `ticket` was let go but did not leave (a hold came in force first): it is no longer in
	 * flight, and its request goes back to the window.
	 */
	giveBack(ticket: number): void {
		this.lastUsedAt = clock.now();
		this.inFlight.delete(ticket);
		this.normalInFlight.delete(ticket);
		const window = this.rate.current(clock.now(), this.inFlight.size);
		if (window && this.rate.limit !== undefined) {
			window.remaining = Math.min(this.rate.limit, window.remaining + 1);
		}
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
		const windowEnd = window.resetAt + this.rate.marginMs(window.resetAt);
		const reserve = this.rate.isShared(now)
			? Math.max(PACING.sharedReserve, this.aloneReserve(window, now))
			: this.aloneReserve(window, now);
		return reserve + this.reservations.dueBefore(PRIORITY_RANK[priority], windowEnd, now);
	}

	/**
	 * Alone on the key as far as this process can tell: the share of the window it leaves for a process
	 * that may start on the key (PACING.aloneReserveShare), except in the window's tail, from
	 * `aloneReserveTailMs` before its reset until `resetMarginMs` before it, when it takes that share
	 * itself — early enough for the service to count it in this window, and to show this process, in the
	 * answers, any request of another process counted meanwhile.
	 */
	private aloneReserve(window: Window, now: number): number {
		if (this.rate.limit === undefined || this.inTail(window, now)) return 0;
		return Math.floor(this.rate.limit * PACING.aloneReserveShare);
	}

	private inTail(window: Window, now: number): boolean {
		return (
			now >= window.resetAt - PACING.aloneReserveTailMs &&
			now < window.resetAt - PACING.resetMarginMs
		);
	}

	/**
	 * What a request of `priority` may still take of the window: what this process knows is left, less what
	 * it keeps back and what the key's other processes are expected to have taken since it was seen.
	 */
	private available(priority: Priority, window: Window, now: number): number {
		const kept = this.keptBack(priority, window, now);
		if (this.splitsTail(now) && this.inTail(window, now)) {
			return this.tailAllowance(window, kept, now);
		}
		return window.remaining - kept - this.rate.foreignSince(now);
	}

	/**
	 * Whether the tail of the window is split among the processes on the key (tailAllowance): it is shared,
	 * and with more than one other process (this one's share of its requests under
	 * PACING.splitTailBelowShare).
	 */
	private splitsTail(now: number): boolean {
		return this.rate.isShared(now) && this.rate.share() < PACING.splitTailBelowShare;
	}

	/**
	 * What this process may send in the tail of a window it shares with more than one other process: its
	 * share of the key's requests (RateWindow.share) of what is left for the tail as it stood when the tail
	 * began (tailBudget), less what it sent in the tail since. What the others are expected to send
	 * (foreignSince) grows with the time since this process's last answer, so once every process holds
	 * (before the tail, each keeps back the newcomers' share and allows for the others), each would hold
	 * the tail for the others while they held it for this one, and nobody would learn otherwise: at 4
	 * workers on one key, the second half of every window went unused (bench part 7, 93 % of the key used).
	 * Split by shares instead, the processes together take at most what is left.
	 */
	private tailAllowance(window: Window, kept: number, now: number): number {
		if (this.tail?.resetAt !== window.resetAt) {
			this.tail = { resetAt: window.resetAt, budget: this.tailBudget(window, kept, now), sent: 0 };
		}
		return this.tail.budget - this.tail.sent;
	}

	/**
	 * This process's share of what is left for the tail of a shared window (tailAllowance), now: what it
	 * sees left beyond what it keeps there, less what the others are expected to have sent since it saw it
	 * (foreignSince) — but never more of that than they could take before the tail, where they kept back the
	 * newcomers' share as it did.
	 */
	private tailBudget(window: Window, kept: number, now: number): number {
		const released = Math.max(
			0,
			Math.floor((this.rate.limit ?? 0) * PACING.aloneReserveShare) - PACING.sharedReserve,
		);
		const left = window.remaining - kept;
		const theirs = Math.min(this.rate.foreignSince(now), Math.max(0, left - released));
		return Math.max(0, left - theirs) * this.rate.share();
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
			const available = this.available(priority, window, now);
			const tailAt = window.resetAt - PACING.aloneReserveTailMs;
			const tailAhead =
				this.splitsTail(now) &&
				this.tailBudget(window, this.keptBack(priority, window, tailAt), now) >= 1;
			if (
				available < 1 &&
				now < tailAt &&
				(available + this.aloneReserve(window, now) >= 1 || tailAhead)
			) {
				// only the share left for a process that may start on the key holds it, or this process's share
				// of it on a shared key (tailAllowance): until the tail
				at = Math.max(at, tailAt);
			} else if (available < 1) {
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
		if (window && this.tail?.resetAt === window.resetAt && this.inTail(window, now))
			this.tail.sent++;
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
		// spaced over what this process knows is left (the others' expected share only gates: gate)
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

/** What every pacer of the process shares. */
export interface PacingState extends SharedHolds {
	/** One pacer per service key (API key hash and base URL), least recently used first. */
	pacers: Map<string, KeyPacer>;
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
export const processPacing: PacingState = processStore(
	'pacing',
	{
		/** ≤ PACING_MEMORY.maxPacers (makeRoom; passed only while more keys are busy at once); swept. */
		pacers: new Map<string, KeyPacer>(),
		/** One per base URL under an ip_rate_limited hold; ended holds swept (sweep). */
		ipBlocks: new Map<string, Block>(),
		/** ≤ PACING_MEMORY.maxRefusals (refuseKey drops the oldest refusal). */
		refusals: new Map<string, ServiceErrorInfo>(),
		addedSinceSweep: 0,
		sweptAt: -Infinity,
	},
	(state) => {
		state.pacers.clear();
		state.ipBlocks.clear();
		state.refusals.clear();
		state.addedSinceSweep = 0;
		state.sweptAt = -Infinity;
	},
);

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
	if (!pacer) {
		makeRoom(now);
		pacer = new KeyPacer(processPacing, serviceKey, baseUrl);
		processPacing.addedSinceSweep++;
	}
	// the map stays in order of last use; makeRoom bounds it (never dropping a busy pacer)
	keepRecent(pacers, serviceKey, pacer, Infinity);
	return pacer;
}

/** A 401: the key is refused; every waiting and later request of it fails at once with the same reason. */
export function refuseKey(pacer: KeyPacer, info: ServiceErrorInfo): void {
	// in order of refusal, the oldest dropped beyond the bound
	keepRecent(processPacing.refusals, pacer.serviceKey, info, PACING_MEMORY.maxRefusals);
	pacer.wakeAll();
}
