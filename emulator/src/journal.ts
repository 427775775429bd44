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
	/** Retry-After (s) of the answer; null when it had none. */
	retryAfter: number | null;
	/**
	 * The client's TCP port (its end of the connection): tells apart the processes behind one IP
	 * address, e.g. through a watcher (`watchJournal`) that looks the socket up while it is open.
	 */
	remotePort: number | null;
	/**
	 * A first page of the job list (GET /v1/jobs without `cursor`), which the referee judges for
	 * list_poll_too_soon; false for other requests.
	 */
	jobListLook: boolean;
	/** A 2xx page of GET /v1/jobs: how many of its jobs were unfinished (queued or running); null otherwise. */
	unfinishedListed: number | null;
}

/** Called with each journal entry as it is recorded, before the answer is sent (its socket still open). */
export type JournalWatcher = (entry: JournalEntry) => void;
