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

/**
 * What is known of a request when it arrives, after the referee's judgement of its arrival and before any
 * fault delays its answer: its client socket is open for sure, even when the answer comes after the client
 * gave up (a `delay` fault beyond the client's timeout).
 */
export interface ArrivalNotice {
	at: number;
	requestId: string;
	method: string;
	path: string;
	keyId: string | null;
	remotePort: number | null;
	/** Kinds of the referee's violations found at arrival (e.g. retry_after_key); [] when none. */
	violations: string[];
	/** A first page of the job list (see JournalEntry.jobListLook). */
	jobListLook: boolean;
}

/** Called with each request as it arrives (control.watchArrivals). */
export type ArrivalWatcher = (arrival: ArrivalNotice) => void;

/** Who is told of requests: at arrival and when the journal entry is recorded. */
export interface Watchers {
	arrivals: Set<ArrivalWatcher>;
	journal: Set<JournalWatcher>;
}

/** Calls each watcher; a watcher's failure is its own (the request is answered all the same). */
export function notify<T>(watchers: Set<(value: T) => void>, value: () => T): void {
	for (const watch of watchers) {
		try {
			watch(value());
		} catch {
			// ignored: see above
		}
	}
}
