// What a soak run's actors (load.mjs, faults.mjs, process-faults.mjs, monitor.mjs) share while it runs: its
// clock (for log lines), the counters each adds to, the intents the callers asked for, the moments of the Redis
// restarts, and the flag that ends the load.

/** Add `n` to `map[key]`. */
export const count = (map, key, n = 1) => (map[key] = (map[key] ?? 0) + n);

/** A run's shared state, its clock starting now. */
export function runState() {
	const t0 = Date.now();
	const elapsed = () => Date.now() - t0;
	return {
		t0,
		elapsed,
		/** The run's time for a log line (`  42 s`). */
		stamp: () => `${(elapsed() / 1000).toFixed(0).padStart(4)} s`,
		stats: {
			calls: { batch: 0, replace: 0 },
			attempts: { batch: 0, replace: 0 },
			failedAttempts: {},
			abandoned: [],
			items: 0,
			faults: {},
			processFaults: {},
			skipped: {},
		},
		/** intent (a prompt, or a replacement's duration and ratio, checks.mjs intentOf) → { workflow, call } */
		intents: new Map(),
		// Redis restarts (it saves and reloads its data; one that kept nothing lost executions): an execution
		// the main enqueued before one and no worker ever started was lost with the queue (n8n leaves it `new`)
		redisRestartedAt: [],
		/** Set when the load ends: the callers and the service faults stop. */
		stopping: false,
		/**
		 * Set while the mid-download fault waits for a replace call's download: the batch callers make no new
		 * call, so the replace call is not kept behind their work on the shared key A (process-faults.mjs).
		 */
		batchHeld: false,
		/**
		 * Set while the mid-download fault clears the way for a replace call: no new service fault is injected
		 * (the schedule waits, it drops none), so no fault armed for any request is left for the replace call
		 * alone once the batch callers are held (process-faults.mjs).
		 */
		faultsHeld: false,
	};
}
