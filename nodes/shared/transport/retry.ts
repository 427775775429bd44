// The retry loop of every request: which failures are worth another try, how long to back off before
// it, how many 429s a request sits out.
import { clock } from './serviceClock';

export const RETRY_POLICY = {
	attempts: 3,
	baseDelayMs: 500,
	maxRateLimitRetries: 8,
	defaultMaxWaitSeconds: 60,
	defaultTimeoutMs: 60_000,
};

/** Transport failures worth another try (a fixed list). */
export const TRANSIENT_CODES = new Set([
	'ECONNRESET',
	'ECONNABORTED',
	'ETIMEDOUT',
	'EPIPE',
	'ECONNREFUSED',
	'EAI_AGAIN',
	'UND_ERR_SOCKET',
	'UND_ERR_HEADERS_TIMEOUT',
	'UND_ERR_BODY_TIMEOUT',
	'ERR_STREAM_PREMATURE_CLOSE',
]);

/** Plain words for a transport failure (n8n rewrites messages that contain the raw codes). */
export function describeTransportFailure(code: string | undefined): string {
	switch (code) {
		case 'ECONNRESET':
		case 'EPIPE':
		case 'UND_ERR_SOCKET':
		case 'ERR_STREAM_PREMATURE_CLOSE':
			return 'the connection was reset';
		case 'ECONNABORTED':
		case 'ETIMEDOUT':
		case 'UND_ERR_HEADERS_TIMEOUT':
		case 'UND_ERR_BODY_TIMEOUT':
			return 'the request timed out';
		case 'ECONNREFUSED':
			return 'the connection was refused';
		case 'EAI_AGAIN':
			return 'the host name could not be resolved';
		default:
			return 'the network request failed';
	}
}

const TRANSIENT_TEXT: Array<[RegExp, string]> = [
	[/ECONNRESET|socket hang up|\baborted\b|closed unexpectedly|terminated/i, 'ECONNRESET'],
	[/ETIMEDOUT|ECONNABORTED|timeout of \d+ms|timed out/i, 'ETIMEDOUT'],
	[/ECONNREFUSED|refused the connection/i, 'ECONNREFUSED'],
	[/EPIPE/, 'EPIPE'],
	[/EAI_AGAIN/, 'EAI_AGAIN'],
];

/**
 * The transport failure behind an error thrown by n8n's HTTP helper. n8n wraps it differently across
 * versions (cause, errorResponse, or only a rewritten message), so look at codes first, then at texts.
 */
export function findErrorCode(
	error: unknown,
	depth = 0,
	seen = new Set<unknown>(),
): string | undefined {
	if (depth > 6 || typeof error !== 'object' || error === null || seen.has(error)) return undefined;
	seen.add(error);
	const e = error as Record<string, unknown>;
	if (typeof e.code === 'string' && (TRANSIENT_CODES.has(e.code) || e.code === 'ERR_CANCELED')) {
		return e.code;
	}
	if (e.name === 'AbortError' || e.name === 'CanceledError') return 'ERR_CANCELED';
	for (const key of ['cause', 'errorResponse', 'error', 'reason', 'originalError']) {
		const found = findErrorCode(e[key], depth + 1, seen);
		if (found) return found;
	}
	const texts = [e.message, e.description, ...(Array.isArray(e.messages) ? e.messages : [])];
	for (const text of texts) {
		if (typeof text !== 'string') continue;
		const hit = TRANSIENT_TEXT.find(([re]) => re.test(text));
		if (hit) return hit[1];
	}
	return undefined;
}

/** Exponential backoff with jitter: attempt 1 → 250–500 ms, 2 → 500–1000 ms, … */
export function backoffMs(attempt: number): number {
	const exp = RETRY_POLICY.baseDelayMs * 2 ** (attempt - 1);
	return Math.round(exp / 2 + clock.random() * (exp / 2));
}

/** What one attempt came to (transport/answer.ts classifies it), as the loop below needs it. */
export type AttemptOutcome<T> =
	/** A 2xx: the request is done. */
	| { kind: 'answer'; value: T }
	/**
	 * No answer, or a 5xx: counts as a failure; tried again after a backoff when the request is safe to
	 * repeat, `worthRetry` and fewer than RETRY_POLICY.attempts failures; else `giveUp(failures)`.
	 */
	| {
			kind: 'failure';
			worthRetry: boolean;
			beforeRetry: () => Promise<void>;
			giveUp: (failures: number) => Promise<Error>;
	  }
	/** A 429: the key's pacer holds the key as told; sent again once it lets go, up to a bound. */
	| { kind: 'rateLimited'; giveUp: () => Error }
	/** An answer the same request would get again (4xx), or a cancelled execution. */
	| { kind: 'final'; error: Error };

/**
 * Runs `attempt` until it gives an answer or a failure that ends the request. `retryable`: the request
 * may be sent twice (GET, DELETE, an Idempotency-Key, or a POST without side effects such as a quote).
 */
export async function withRetries<T>(
	attempt: () => Promise<AttemptOutcome<T>>,
	retryable: boolean,
	backOff: (ms: number) => Promise<void>,
): Promise<T> {
	let failures = 0;
	let rateLimited = 0;
	for (;;) {
		const outcome = await attempt();
		switch (outcome.kind) {
			case 'answer':
				return outcome.value;
			case 'final':
				throw outcome.error;
			case 'rateLimited':
				rateLimited++;
				if (rateLimited > RETRY_POLICY.maxRateLimitRetries) throw outcome.giveUp();
				continue;
			case 'failure':
				failures++;
				if (outcome.worthRetry && retryable && failures < RETRY_POLICY.attempts) {
					await outcome.beforeRetry();
					await backOff(backoffMs(failures));
					continue;
				}
				throw await outcome.giveUp(failures);
		}
	}
}
