// The key's rate window as this process knows it: ordered views from the rate headers, its own requests
// counted against it, and the sign that other processes use the key too.
import { clock } from './clock';

export const PACING = {
	/** Assumed length of a rate window until two answers show the real one (the spec: per minute). */
	defaultWindowMs: 60_000,
	/** A window is trusted to be over this long after its X-RateLimit-Reset (plus any clock skew seen). */
	resetMarginMs: 500,
	/**
	 * After a window of a key that counts as shared (see `marginMs`): how long after its reset this process
	 * waits. One of them may have been answered 429 with a Retry-After, which is whole seconds, so it ends up
	 * to 1 s after the reset; this process never hears it, and the service holds the whole key to it.
	 */
	sharedResetMarginMs: 1000,
	/**
	 * How long after a 429's Retry-After has passed this process waits. The hold is on the whole key, the
	 * account's uploads or the IP address, which other processes share (workers, other hosts behind the
	 * address); one told earlier in the same window got a whole-second Retry-After that may end up to 1 s
	 * after ours, and the service holds the key, account or address to the latest.
	 */
	holdMarginMs: 1000,
	/**
	 * Others use the key too: spread every request, and leave this many of each window unused (and, until
	 * the window's tail, the newcomers' share below). Alone on the key, nothing is spread: requests leave as
	 * fast as the window allows, all but the newcomers' share, which leaves in the tail.
	 */
	sharedReserve: 1,
	/**
	 * Alone on the key as far as this process can tell, it still leaves this share of each window unused
	 * until the window's last `aloneReserveTailMs`: another process that starts on the key (a worker's first
	 * request, one back from a Retry-After) then finds room instead of a 429, and its request, counted by
	 * the service, shows this one that the key is shared. Nothing is lost: the reserve leaves in the tail.
	 * Rounded down: keys under 20 requests a minute keep nothing back.
	 */
	aloneReserveShare: 0.05,
	aloneReserveTailMs: 3_000,
	/**
	 * On a key shared with more than one other process (this process's share of its requests below this),
	 * the tail of each window is split among them by their shares (pacing.ts tailAllowance). With one
	 * other, at about a half each, their answers come often enough that their views of the window stay
	 * fresh to its end, and each takes what it sees left.
	 */
	splitTailBelowShare: 0.4,
	/**
	 * The key counts as shared through the window in which another process's requests were last seen and
	 * this many whole windows after it: after that many windows with none seen, back to full pace.
	 */
	sharedWindows: 1,
	/** Longest single sleep before a waiter looks again (wake-ups make most sleeps shorter). */
	maxSleepMs: 5_000,
	/**
	 * File transfers wait while requests of normal priority (creates, quotes) are being sent one after
	 * another: until none is in flight and none was answered for this long. A batch's creates, which an
	 * item loop sends one at a time, then keep the window's budget before its downloads.
	 */
	normalQuietMs: 250,
};

export interface Window {
	resetAt: number;
	remaining: number;
	/** When `remaining` was last learned from an answer (the window's start for a window assumed full). */
	seenAt: number;
}

/** A number header of an answer (the rate headers, Retry-After); undefined when absent or not a number. */
export function headerNumber(headers: Record<string, unknown>, name: string): number | undefined {
	const value = headers[name];
	const text = Array.isArray(value) ? value[0] : value;
	if (typeof text !== 'string' && typeof text !== 'number') return undefined;
	const n = Number(text);
	return Number.isFinite(n) ? n : undefined;
}

/**
 * Answers that arrive out of order never replace a fresher view: an older window is ignored, and within
 * one window the lowest Remaining wins. Requests still in flight count against the window they may land in.
 */
export class RateWindow {
	/** X-RateLimit-Limit, once an answer told it. */
	limit: number | undefined;
	private window: Window | undefined;
	private newestReset: number | undefined;
	private windowMs = PACING.defaultWindowMs;
	private skewMs = 0;
	/** X-RateLimit-Reset (ms) of the newest window in which requests of another process were seen. */
	private foreignSeenIn: number | undefined;
	/** Answers this process got, per window (X-RateLimit-Reset in ms): older windows dropped (observe). */
	private readonly ownPerWindow = new Map<number, number>();
	/**
	 * When requests of this process got no answer to read (the service may have counted them), kept for
	 * the last two windows only (lost).
	 */
	private readonly lostAt: number[] = [];
	/**
	 * How fast the key's other processes sent lately (requests per ms; 0 while none was seen): learned from
	 * how their count in the window grew between two answers, from `foreignCounted` on.
	 */
	private foreignRate = 0;
	private foreignCounted: { resetAt: number; count: number; at: number } | undefined;
	/**
	 * This process's share of the requests the service counted in the newest window it was answered in
	 * (its own over all, at its last answer there), and its last share of the window before (share).
	 */
	private ownShare = 1;
	private previousShare = 1;

	/**
	 * How long after a reset the window is trusted to be over (the margin plus any clock skew seen); longer
	 * after the reset `resetAt` (ms) of a window while the key counts as shared: in which other processes'
	 * requests were seen, or in the `PACING.sharedWindows` windows after it (they may have used it too after
	 * this process's last answer in it).
	 */
	marginMs(resetAt?: number): number {
		const shared =
			resetAt !== undefined &&
			this.foreignSeenIn !== undefined &&
			resetAt <= this.foreignSeenIn + this.windowMs * PACING.sharedWindows;
		return (shared ? PACING.sharedResetMarginMs : PACING.resetMarginMs) + this.skewMs;
	}

	/**
	 * Another process's requests were seen in the key's count lately: in the window that holds `now` or
	 * in the `PACING.sharedWindows` windows before it.
	 */
	isShared(now: number): boolean {
		return now < this.sharedUntil();
	}

	/** End of the time the key counts as shared (0 when no other process was seen). */
	private sharedUntil(): number {
		if (this.foreignSeenIn === undefined) return 0;
		return this.foreignSeenIn + this.windowMs * PACING.sharedWindows + this.marginMs();
	}

	/** When the current window is trusted to be over, if one is known. */
	endsAt(): number | undefined {
		return this.window ? this.window.resetAt + this.marginMs(this.window.resetAt) : undefined;
	}

	/** Length of the key's windows as far as known (the spec's minute until answers show it). */
	windowLength(): number {
		return this.windowMs;
	}

	/** Until when what this view learned still applies: the current window's end, the key seen shared. */
	knownUntil(): number {
		return Math.max(this.endsAt() ?? 0, this.sharedUntil());
	}

	/** The window requests count against now; one that is over is replaced by the next one (assumed full). */
	current(now: number, inFlight: number): Window | undefined {
		if (!this.window || this.limit === undefined) return undefined;
		if (now < this.window.resetAt + this.marginMs(this.window.resetAt)) return this.window;
		let resetAt = this.window.resetAt;
		while (resetAt + this.marginMs(resetAt) <= now) resetAt += this.windowMs;
		// Requests still in flight may be counted in the new window: count them there too.
		this.window = { resetAt, remaining: this.limit - inFlight, seenAt: resetAt - this.windowMs };
		return this.window;
	}

	/**
	 * The requests the key's other processes are expected to have sent since the window's Remaining was
	 * last seen, at the pace they were seen to send (0 while the key is not shared): what this process's
	 * own view cannot show yet.
	 */
	foreignSince(now: number): number {
		if (!this.window || !this.isShared(now) || this.limit === undefined) return 0;
		// never faster than the key's whole budget spread over its window: a burst seen between two answers
		// close together must not hold this process back for good (it would learn nothing new while held)
		const pace = Math.min(this.foreignRate, this.limit / this.windowMs);
		return pace * Math.max(0, now - this.window.seenAt);
	}

	/**
	 * This process's share of the key's requests lately: the lesser of its share of the newest window it
	 * was answered in and its last share of the window before (a window's first answers come before the
	 * others' first requests of it are counted). 1 until another process was seen.
	 */
	share(): number {
		return Math.min(this.ownShare, this.previousShare);
	}

	/**
	 * A request of this process got no answer to read (connection reset, timeout): the service may have
	 * counted it, so it must not later pass for another process's request.
	 */
	lost(now: number): void {
		this.lostAt.push(now);
		while (this.lostAt[0] < now - 2 * this.windowMs) this.lostAt.shift();
	}

	/** Learn from the rate headers of the answer to `ticket` (the send order of this process's requests). */
	observe(ticket: number, headers: Record<string, unknown>, inFlight: ReadonlySet<number>): void {
		const remaining = headerNumber(headers, 'x-ratelimit-remaining');
		const reset = headerNumber(headers, 'x-ratelimit-reset');
		if (remaining === undefined || reset === undefined) return;
		const limit = headerNumber(headers, 'x-ratelimit-limit') ?? this.limit ?? remaining + 1;
		const resetAt = reset * 1000;
		const now = clock.now();
		this.limit = limit;
		if (this.newestReset !== undefined && resetAt < this.newestReset) return; // an older window
		// An answer about the newest window whose reset has passed by our clock: the clocks differ by that much
		if (now > resetAt) this.skewMs = Math.max(this.skewMs, now - resetAt);
		const own = (this.ownPerWindow.get(resetAt) ?? 0) + 1;
		this.ownPerWindow.set(resetAt, own);
		// Requests sent after this one are not in the service's count yet.
		let sentLater = 0;
		for (const t of inFlight) if (t > ticket) sentLater++;
		const estimate = remaining - sentLater;
		if (this.newestReset === undefined || resetAt > this.newestReset) {
			if (this.newestReset !== undefined && resetAt - this.newestReset >= 1000) {
				this.windowMs = Math.min(this.windowMs, resetAt - this.newestReset);
			}
			for (const known of this.ownPerWindow.keys()) {
				if (known < resetAt) this.ownPerWindow.delete(known);
			}
			this.newestReset = resetAt;
			this.window = { resetAt, remaining: estimate, seenAt: now };
			this.previousShare = this.ownShare;
		} else if (this.window && this.window.resetAt === resetAt) {
			this.window.remaining = Math.min(this.window.remaining, estimate);
			this.window.seenAt = now;
		}
		// The service counted more requests in this window than this process can have sent.
		const windowStart = resetAt - this.windowMs - this.marginMs();
		const lost = this.lostAt.filter((at) => at >= windowStart && at < resetAt + this.marginMs());
		const foreign = limit - remaining - own - lost.length - inFlight.size;
		if (foreign > 0) this.foreignSeenIn = Math.max(this.foreignSeenIn ?? resetAt, resetAt);
		this.ownShare = own / (own + Math.max(0, foreign));
		this.learnForeignRate(resetAt, Math.max(0, foreign), now);
	}

	/**
	 * The other processes' pace: how their count in the window grew since the last answer that moved
	 * time (or since the window's start), averaged with what was known.
	 */
	private learnForeignRate(resetAt: number, foreign: number, now: number): void {
		const last = this.foreignCounted;
		const sameWindow = last !== undefined && last.resetAt === resetAt;
		const since = sameWindow ? last.at : resetAt - this.windowMs;
		const grew = foreign - (sameWindow ? last.count : 0);
		if (now <= since || grew < 0) return; // no time passed yet, or an answer that arrived late
		const pace = grew / (now - since);
		this.foreignRate = last === undefined ? pace : (this.foreignRate + pace) / 2;
		this.foreignCounted = { resetAt, count: foreign, at: now };
	}
}
