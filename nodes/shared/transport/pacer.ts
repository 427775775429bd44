// The only place that decides when a request to the service may leave: one pacer per service key in
// this n8n process, shared by every item, operation, node and execution that uses the key.
import type { ServiceErrorInfo } from './errors';
import { clock } from './serviceClock';
import type { Priority } from './types';

export const PACING = {
	/** Assumed length of a rate window until two answers show the real one (the spec: per minute). */
	defaultWindowMs: 60_000,
	/** A window is trusted to be over this long after its X-RateLimit-Reset (plus any clock skew seen). */
	resetMarginMs: 500,
	/** Alone on a key: send freely until this share of the window's budget is left, then spread the rest. */
	lowShare: 0.25,
	/** Others use the key too: spread every request, and leave this many of each window unused. */
	sharedReserve: 1,
	/** How many windows the key counts as shared after another process's requests were last seen. */
	sharedWindows: 2,
	/** Longest single sleep before a waiter looks again (wake-ups make most sleeps shorter). */
	maxSleepMs: 5_000,
};

const PRIORITY_RANK: Record<Priority, number> = { poll: 0, normal: 1, transfer: 2 };

/** A wait the service asked for (429 Retry-After) or that a used-up window imposes. */
export interface Block {
	until: number;
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

interface Waiter {
	rank: number;
	upload: boolean;
	controller?: AbortController;
}

interface Window {
	resetAt: number;
	remaining: number;
}

export interface AcquireOptions {
	priority: Priority;
	/** POST /assets: also held by a 429 upload_rate_limit. */
	upload: boolean;
	/** Longest wait the service may impose before the request fails instead (Max Rate-Limit Wait). */
	maxWaitMs: number;
	signal?: AbortSignal;
}

function headerNumber(headers: Record<string, unknown>, name: string): number | undefined {
	const value = headers[name];
	const text = Array.isArray(value) ? value[0] : value;
	if (typeof text !== 'string' && typeof text !== 'number') return undefined;
	const n = Number(text);
	return Number.isFinite(n) ? n : undefined;
}

/**
 * The pacer of one key. It keeps the newest view of the key's rate window (answers that arrive out of
 * order never replace a fresher view: an older window is ignored, and within one window the lowest
 * Remaining wins), counts its own requests still in flight against it, honours every Retry-After for
 * the whole key (and `ip_rate_limited` for every key of the base URL), spreads the budget when little is
 * left or when another process is seen using the key, and stops everything once the key is refused.
 */
export class KeyPacer {
	/** The 401 that refused this key: nothing more is sent with it. */
	refusal: ServiceErrorInfo | undefined;
	private limit: number | undefined;
	private window: Window | undefined;
	private newestReset: number | undefined;
	private windowMs = PACING.defaultWindowMs;
	private skewMs = 0;
	private keyBlock: Block | undefined;
	private uploadBlock: Block | undefined;
	private sharedUntil = 0;
	private nextSendAt = 0;
	private sent = 0;
	private readonly inFlight = new Set<number>();
	private readonly answeredPerWindow = new Map<number, number>();
	private readonly waiters: Waiter[] = [];
	private waiterSeq = 0;

	constructor(
		private readonly ipBlocks: Map<string, Block>,
		private readonly baseUrl: string,
	) {}

	/** Waits until a request may leave; returns its ticket for `settle`. */
	async acquire(options: AcquireOptions): Promise<number> {
		const waiter: Waiter = {
			rank: PRIORITY_RANK[options.priority] * 1e9 + ++this.waiterSeq,
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
				const gate = this.gate(options.upload, now);
				if (gate.block && gate.block.until - now > options.maxWaitMs) {
					throw new PacerStop('too_long', gate.block.info, gate.block.until - now);
				}
				if (gate.at <= now && this.isFirstReady(waiter, now)) return this.grant(now);
				const ms = gate.at > now ? gate.at - now : PACING.maxSleepMs;
				await this.sleep(waiter, Math.min(ms, PACING.maxSleepMs));
			}
		} finally {
			options.signal?.removeEventListener('abort', onCancel);
			this.waiters.splice(this.waiters.indexOf(waiter), 1);
			this.wakeAll();
		}
	}

	/** The answer (or the failure) of a ticket's request: learn the window from its headers. */
	settle(ticket: number, headers?: Record<string, unknown>): void {
		this.inFlight.delete(ticket);
		const remaining = headers ? headerNumber(headers, 'x-ratelimit-remaining') : undefined;
		const reset = headers ? headerNumber(headers, 'x-ratelimit-reset') : undefined;
		if (headers && remaining !== undefined && reset !== undefined) {
			const limit = headerNumber(headers, 'x-ratelimit-limit') ?? this.limit ?? remaining + 1;
			this.observe(ticket, limit, remaining, reset * 1000);
		}
		this.wakeAll();
	}

	/** A 429: hold the key (or the base URL, or uploads) until Retry-After has passed. */
	slowDown(info: ServiceErrorInfo, retryAfterSeconds: number | undefined): void {
		const now = clock.now();
		const fallback = this.window ? this.window.resetAt + this.marginMs() : now + 1000;
		const until = retryAfterSeconds !== undefined ? now + retryAfterSeconds * 1000 : fallback;
		const block: Block = { until, info };
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
		this.refusal = info;
		this.wakeAll();
	}

	/** End of the longest hold the service imposed on this key (Retry-After, IP limit); 0 when none. */
	heldUntil(): number {
		return Math.max(this.keyBlock?.until ?? 0, this.ipBlocks.get(this.baseUrl)?.until ?? 0);
	}

	private marginMs(): number {
		return PACING.resetMarginMs + this.skewMs;
	}

	private isShared(now: number): boolean {
		return now < this.sharedUntil;
	}

	/** The window requests count against now; one that is over is replaced by the next one (assumed full). */
	private currentWindow(now: number): Window | undefined {
		if (!this.window || this.limit === undefined) return undefined;
		if (now < this.window.resetAt + this.marginMs()) return this.window;
		let resetAt = this.window.resetAt;
		while (resetAt + this.marginMs() <= now) resetAt += this.windowMs;
		// Requests still in flight may be counted in the new window: count them there too.
		this.window = { resetAt, remaining: this.limit - this.inFlight.size };
		return this.window;
	}

	/** When a request may leave (`at`), and the service-imposed part of that wait (`block`). */
	private gate(upload: boolean, now: number): { at: number; block?: Block } {
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
		const window = this.currentWindow(now);
		if (this.limit === undefined) {
			// Nothing known about the key yet: one request at a time until an answer tells its limit.
			if (this.inFlight.size > 0) at = Math.max(at, now + PACING.maxSleepMs);
		} else if (window) {
			const reserve = this.isShared(now) ? PACING.sharedReserve : 0;
			if (window.remaining - reserve <= 0) {
				// Judged against Max Rate-Limit Wait up to the reset itself; the margin is ours.
				at = Math.max(at, window.resetAt + this.marginMs());
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

	private grant(now: number): number {
		const ticket = ++this.sent;
		this.inFlight.add(ticket);
		const window = this.currentWindow(now);
		if (window) window.remaining -= 1;
		this.nextSendAt = this.nextSlot(now, window);
		return ticket;
	}

	/**
	 * Spread the budget: when little of the window is left (or others use the key), space the remaining
	 * requests over the time left to the reset instead of sending a burst and then stalling.
	 */
	private nextSlot(now: number, window: Window | undefined): number {
		if (!window || this.limit === undefined) return now;
		const shared = this.isShared(now);
		const available = window.remaining - (shared ? PACING.sharedReserve : 0);
		if (available <= 0) return now;
		if (!shared && available > this.limit * PACING.lowShare) return now;
		const timeLeft = window.resetAt + this.marginMs() - now;
		const gap = timeLeft / (available + 1);
		// Processes sharing a key de-synchronise with a little jitter.
		return now + (shared ? gap * (0.5 + clock.random()) : gap);
	}

	private observe(ticket: number, limit: number, remaining: number, resetAt: number): void {
		const now = clock.now();
		this.limit = limit;
		if (now > resetAt) this.skewMs = Math.max(this.skewMs, now - resetAt);
		if (this.newestReset !== undefined && resetAt < this.newestReset) return; // an older window
		const answered = (this.answeredPerWindow.get(resetAt) ?? 0) + 1;
		this.answeredPerWindow.set(resetAt, answered);
		// Requests sent after this one are not in the service's count yet.
		let sentLater = 0;
		for (const t of this.inFlight) if (t > ticket) sentLater++;
		const estimate = remaining - sentLater;
		if (this.newestReset === undefined || resetAt > this.newestReset) {
			if (this.newestReset !== undefined && resetAt - this.newestReset >= 1000) {
				this.windowMs = Math.min(this.windowMs, resetAt - this.newestReset);
			}
			for (const reset of this.answeredPerWindow.keys()) {
				if (reset < resetAt) this.answeredPerWindow.delete(reset);
			}
			this.newestReset = resetAt;
			this.window = { resetAt, remaining: estimate };
		} else if (this.window && this.window.resetAt === resetAt) {
			this.window.remaining = Math.min(this.window.remaining, estimate);
		}
		// The service counted more requests in this window than this process can have sent.
		if (limit - remaining > answered + this.inFlight.size) {
			this.sharedUntil = now + this.windowMs * PACING.sharedWindows;
		}
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

/**
 * Module state on purpose: every node run of this n8n process shares one pacer per service key (the
 * API key's hash and the base URL), so items, operations, nodes and executions see one rate window,
 * one set of Retry-After holds and one refusal. It lives as long as the process (one per worker in
 * queue mode: processes learn about each other only from the service's answers).
 */
export const processPacing = {
	pacers: new Map<string, KeyPacer>(),
	ipBlocks: new Map<string, Block>(),
};

export function pacerFor(serviceKey: string, baseUrl: string): KeyPacer {
	let pacer = processPacing.pacers.get(serviceKey);
	if (!pacer) {
		pacer = new KeyPacer(processPacing.ipBlocks, baseUrl);
		processPacing.pacers.set(serviceKey, pacer);
	}
	return pacer;
}
