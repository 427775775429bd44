// What keeps a key's requests back besides its rate window's count: the holds the service imposed (a
// 429's Retry-After on the key, on the account's uploads or on the base URL), the key's refusal (401),
// and the room its callers reserved for requests they will send at a known time.
import type { ServiceErrorInfo } from './errors';
import { PACING } from './rateWindow';

/** A wait the service asked for (429 Retry-After) or that a used-up window imposes. */
export interface Block {
	/** When requests may leave again: the service's end of the hold plus our margin. */
	until: number;
	/** The part of `until` that is our margin (not judged against Max Rate-Limit Wait). */
	marginMs?: number;
	info: ServiceErrorInfo;
}

/** Holds and refusals every pacer of the process shares (kept and bounded by pacers.ts). */
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
