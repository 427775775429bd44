/** What the emulator records of every request: never the secret nor the Authorization header. */
export interface JournalEntry {
	at: number;
	requestId: string;
	method: string;
	/** Path without the query string, e.g. /v1/jobs. */
	path: string;
	/** Raw query string without '?', '' when none. */
	query: string;
	idempotencyKey: string | null;
	range: string | null;
	status: number;
	errorCode: string | null;
	/** Key id named by the bearer header (`key_<32 hex>`), even when the key was refused. */
	keyId: string | null;
	/** Fault action applied to this request, if any. */
	fault: string | null;
	/** Kinds of the referee's violations recorded for this request (see referee.ts); [] when none. */
	violations: string[];
}
