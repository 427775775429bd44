import type { World } from './state';

/** `::ffff:127.0.0.1` → `127.0.0.1`; undefined → `unknown`. */
export function normaliseIp(address: string | undefined): string {
	if (!address) return 'unknown';
	return address.startsWith('::ffff:') ? address.slice(7) : address;
}

/**
 * The optional per-remote-IP limit (`ipLimit` option): a fixed window of `windowMs`, aligned to
 * multiples of it since the epoch, over every /v1 request (public ones too). Not persisted.
 */
export class IpLimiter {
	private windows = new Map<string, { start: number; count: number }>();

	/** Counts one request of `ip`; returns the Retry-After (s) when it is over the limit, else null. */
	count(world: World, ip: string): number | null {
		const limit = world.runtime.ipLimit;
		if (limit === null) return null;
		const now = world.now();
		const start = Math.floor(now / limit.windowMs) * limit.windowMs;
		let window = this.windows.get(ip);
		if (!window || window.start !== start) {
			window = { start, count: 0 };
			this.windows.set(ip, window);
		}
		if (window.count >= limit.requests) {
			return Math.max(1, Math.ceil((start + limit.windowMs - now) / 1000));
		}
		window.count += 1;
		return null;
	}

	clear(): void {
		this.windows.clear();
	}
}
