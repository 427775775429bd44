/** Faults injected on matching requests (control interface), consumed in insertion order. */

export const FAULT_ACTIONS = [
	'reset_after_commit',
	'error_500_before_commit',
	'error_503',
	'rate_limit',
	'truncate',
	'corrupt',
	'delay',
	'delay_response',
	'html_body',
	'empty_body',
] as const;
export type FaultAction = (typeof FAULT_ACTIONS)[number];

export interface FaultSpec {
	/** HTTP method (any case); any method when absent. */
	method?: string;
	/** Path including /v1 and without the query: exact string, or a RegExp tested on it. */
	path: string | RegExp;
	/** Only requests bearing this key (its `key_…` id); any request when absent. */
	keyId?: string;
	/** How many matching requests it hits; default 1. */
	times?: number;
	action: FaultAction;
	/** Retry-After seconds for error_503 / rate_limit (default 1 for rate_limit, none for 503). */
	retryAfter?: number;
	/** Error code for error_503 (default engine_unavailable) / rate_limit (default rate_limited). */
	code?: string;
	/** truncate: bytes sent before the socket is destroyed (default half the body); corrupt: where flipping starts (default the middle). */
	afterBytes?: number;
	/**
	 * delay: ms to wait (emulator clock) before handling; delay_response: the handler runs at
	 * arrival and the answer is sent this many ms later. Default 1000.
	 */
	delayMs?: number;
}

/** Actions answered without running the handler. */
export const BEFORE_HANDLER: readonly FaultAction[] = [
	'error_500_before_commit',
	'error_503',
	'rate_limit',
	'html_body',
	'empty_body',
];

interface ActiveFault {
	spec: FaultSpec;
	remaining: number;
}

export class FaultStore {
	private faults: ActiveFault[] = [];

	add(spec: FaultSpec): void {
		if (!FAULT_ACTIONS.includes(spec.action))
			throw new Error(`unknown fault action ${spec.action}`);
		this.faults.push({ spec: { ...spec }, remaining: spec.times ?? 1 });
	}

	clear(): void {
		this.faults = [];
	}

	pending(): Array<FaultSpec & { remaining: number }> {
		return this.faults.map((f) => ({ ...f.spec, remaining: f.remaining }));
	}

	/** The first fault matching the request, with one use consumed; null when none. */
	take(method: string, path: string, keyId?: string | null): FaultSpec | null {
		const hit = this.faults.find(
			(f) =>
				(f.spec.method === undefined || f.spec.method.toUpperCase() === method.toUpperCase()) &&
				(f.spec.keyId === undefined || f.spec.keyId === keyId) &&
				(typeof f.spec.path === 'string' ? f.spec.path === path : f.spec.path.test(path)),
		);
		if (!hit) return null;
		hit.remaining -= 1;
		if (hit.remaining <= 0) this.faults.splice(this.faults.indexOf(hit), 1);
		return hit.spec;
	}
}

/** `corrupt`: flips (XOR 0xff) up to 16 bytes from `from` on; same length. */
export function corruptBytes(body: Buffer, from?: number): Buffer {
	const copy = Buffer.from(body);
	if (copy.length === 0) return copy;
	const start = Math.min(copy.length - 1, Math.max(0, from ?? Math.floor(copy.length / 2)));
	for (let i = start; i < Math.min(copy.length, start + 16); i++) copy[i] ^= 0xff;
	return copy;
}

export const PROXY_HTML =
	'<!DOCTYPE html><html><head><title>502 Bad Gateway</title></head>' +
	'<body><center><h1>502 Bad Gateway</h1></center><hr><center>nginx</center></body></html>\n';
