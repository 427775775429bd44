// Every store the package keeps per n8n process, in one list: what it holds, how it is bounded, when it
// is cleared. A store is made only through processStore() with a name listed here, so the list cannot
// miss one (test/unit/processState.test.ts also scans nodes/ for module-level maps and sets). n8n runs
// many executions in one process (one per worker in queue mode): these are what they share.

/** The process-wide stores, by name. `weak`: keyed by a node run's object, gone with the run. */
export const PROCESS_STORES = {
	pacing: {
		declaredIn: 'nodes/shared/service/pacing.ts',
		variable: 'processPacing',
		holds:
			'one pacer per service key (API key hash + base URL: rate window, Retry-After holds), the IP holds per base URL, the refused keys',
		bound:
			'PACING_MEMORY: ≤ 1,000 pacers (least recently used quiet ones first), ended IP holds swept, ≤ 10,000 refusals (oldest first)',
		cleared:
			'idle pacers and ended holds by a sweep when a pacer is looked up; refusals never for their age',
	},
	jobReads: {
		declaredIn: 'nodes/shared/jobs/known.ts',
		variable: 'processJobReads',
		holds:
			'the last answer about each job per key, the reads on their way, reads cut off by a cancellation',
		bound:
			'JOB_READS_MEMORY: ≤ 5,000 answers (least recently answered first); pending ≤ reads in flight',
		cleared: 'unfinished answers after 5 s by a sweep when answers arrive; pending when answered',
	},
	watchers: {
		declaredIn: 'nodes/shared/jobs/watch.ts',
		variable: 'processWatchers',
		holds: 'one watcher per service key that someone in the process follows a job of',
		bound: 'the keys in use at once; each watcher holds only its current followers and wishes',
		cleared: 'a watcher as soon as nobody follows or waits (KeyWatcher onStop)',
	},
	asks: {
		declaredIn: 'nodes/shared/jobs/watch.ts',
		variable: 'processAsks',
		holds:
			'per key, when the process last asked for a followed job it knew nothing of (walks the list when often)',
		bound: 'ASK_WALK: ≤ 1,000 keys (least recently used first), each ≤ 4 times of the last minute',
		cleared: 'times older than a minute when the key asks again; keys only by that bound',
	},
	recentJobs: {
		declaredIn: 'nodes/shared/jobs/known.ts',
		variable: 'processRecentJobs',
		holds: "one view of the key's recent jobs per service key (fed by list looks and reads)",
		bound: 'RECENT_JOBS_MEMORY: ≤ 100 views (least recently used first), ≤ 1,000 jobs each',
		cleared: 'only by those bounds',
	},
	durations: {
		declaredIn: 'nodes/shared/jobs/known.ts',
		variable: 'processDurations',
		holds: 'per key and kind (mode, duration), how long its last succeeded jobs took',
		bound: 'ESTIMATE_MEMORY: ≤ 100 keys × 100 kinds × 20 samples (least recently used first)',
		cleared: 'only by those bounds',
	},
	capabilities: {
		declaredIn: 'nodes/shared/jobs/create.ts',
		variable: 'processCapabilities',
		holds: 'the last GET /capabilities answer per key, and the reads on their way',
		bound: 'CAPABILITIES_MEMORY: ≤ 1,000 keys (least recently used first); pending one per key',
		cleared:
			'an answer after a minute (available) or 5 s (unavailable), or at once on engine_unavailable / mode_unavailable',
	},
	usedJobs: {
		declaredIn: 'nodes/shared/jobs/reuse.ts',
		variable: 'fallbackRecords',
		holds:
			"the jobs each execution used, where n8n offers no flow context (stands in for the execution's record)",
		bound: '≤ 200 executions (oldest first), each ≤ 2,000 entries',
		cleared: 'only by those bounds',
	},
	triggerPolls: {
		declaredIn: 'nodes/GenerationServiceTrigger/poll.ts',
		variable: 'inFlight',
		holds: 'the trigger nodes whose poll is running (a slow poll must not overlap the next)',
		bound: 'one per trigger node active in the process',
		cleared: 'when its poll ends, whatever the outcome',
	},
	serviceOfRun: {
		declaredIn: 'nodes/shared/service/service.ts',
		variable: 'targets',
		weak: true,
		holds: 'the service (base URL, key hash) of a node run whose credential was read',
		bound: 'the node runs alive (WeakMap keyed by the run context)',
		cleared: 'with its run',
	},
	refusedInRun: {
		declaredIn: 'nodes/shared/service/client.ts',
		variable: 'refusedInRun',
		weak: true,
		holds: 'requests of a node run already refused with a definitive 4xx (not sent twice)',
		bound: "the node runs alive, each ≤ its run's requests",
		cleared: 'with its run',
	},
	requestsAtSend: {
		declaredIn: 'nodes/shared/service/client.ts',
		variable: 'atSend',
		weak: true,
		holds:
			"requests on their way through n8n's helper: the check the credential makes just before sending",
		bound: 'the requests in flight (WeakMap keyed by their options object)',
		cleared: 'with the request',
	},
	toolCallIds: {
		declaredIn: 'nodes/shared/jobs/reuse.ts',
		variable: 'callIds',
		weak: true,
		holds:
			'the call id of a tool call without toolCallId, by the arguments object n8n hands every try',
		bound: 'the tool calls alive (WeakMap keyed by the arguments object)',
		cleared: 'with the call',
	},
} as const;

export type StoreName = keyof typeof PROCESS_STORES;

type ClearableStore = {
	[K in StoreName]: (typeof PROCESS_STORES)[K] extends { weak: true } ? never : K;
}[StoreName];

/** Each loaded store and how it forgets everything (the registry's own map: one entry per listed name). */
const resets = new Map<StoreName, { state: unknown; reset: () => void }>();

/** Makes the process-wide store `name` (listed above) and returns it; `reset` empties it. */
export function processStore<T>(name: ClearableStore, state: T, reset: (state: T) => void): T {
	resets.set(name, { state, reset: () => reset(state) });
	return state;
}

/**
 * A store keyed weakly by a node run (listed above with `weak`): nothing to reset, it goes with its run.
 */
export function runStore<K extends object, V>(
	name: Exclude<StoreName, ClearableStore>,
): WeakMap<K, V> {
	void PROCESS_STORES[name];
	return new WeakMap<K, V>();
}

/**
 * Puts `key` → `value` in `map` as its most recent entry (a Map keeps insertion order: re-inserting moves a
 * key to the end) and drops the least recent entries beyond `max`: the one bound of every store kept in order
 * of last use.
 */
export function keepRecent<K, V>(map: Map<K, V>, key: K, value: V, max: number): void {
	map.delete(key);
	map.set(key, value);
	while (map.size > max) map.delete(map.keys().next().value as K);
}

/**
 * The answer `read` gives for `key`, shared by the process: while a read of `key` is on its way (in
 * `pending`), a caller joins it instead of sending its own, and reads on its own only if that read fails
 * (e.g. its execution was cancelled). `pending` holds only reads on their way.
 */
export async function sharedRead<V>(
	pending: Map<string, Promise<V>>,
	key: string,
	read: () => Promise<V>,
): Promise<V> {
	const joined = pending.get(key);
	if (joined) {
		try {
			return await joined;
		} catch {
			// the read it joined failed: read on its own
		}
	}
	const own = read();
	pending.set(key, own);
	try {
		return await own;
	} finally {
		if (pending.get(key) === own) pending.delete(key);
	}
}

/** The names of the stores loaded in this process so far (their modules were imported). */
export function loadedStores(): StoreName[] {
	return [...resets.keys()];
}

/** The state of each loaded store, by name (for the tests of the reset). */
export function loadedStoreStates(): Map<StoreName, unknown> {
	return new Map([...resets].map(([name, { state }]) => [name, state]));
}

/** Forgets what every loaded store learned, as in a fresh n8n process (for tests). */
export function forgetProcessState(): void {
	for (const { reset } of resets.values()) reset();
}
