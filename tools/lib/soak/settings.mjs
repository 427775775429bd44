// What the soak's modules agree on: the emulator's settings for a soak (a 10 s rate window, short jobs, credits
// enough), key A's low limit, and the ids of the soak's credentials, workflows and webhooks.

/** The emulator's options for a soak (startEmulator; runSoak sets the window and the job timing again). */
export const SOAK_EMULATOR = {
	jobTiming: { queuedMs: 500, runningMs: 4000 },
	rateWindowMs: 10_000,
	initialCredits: 10_000_000,
};

export const RATE_WINDOW_MS = SOAK_EMULATOR.rateWindowMs;

/** Key A's requests per 10 s window, shared by every execution. */
export const KEY_A_LIMIT = 25;

/** The soak's credentials: key A (low limit, shared), B (uploads, downloads), C (the trigger). */
export const CRED = {
	a: { id: 'gsSoakKeyA', name: 'Generation Service soak A (low limit, shared)' },
	b: { id: 'gsSoakKeyB', name: 'Generation Service soak B (uploads, downloads)' },
	c: { id: 'gsSoakKeyC', name: 'Generation Service soak C (trigger)' },
};

/** The soak's workflows' ids. */
export const WF = { batch: 'gsSoakBatch', replace: 'gsSoakReplace', deliver: 'gsSoakDeliver' };

/** The paths of the soak's two webhooks. */
export const HOOK = { batch: 'gs-soak-batch', replace: 'gs-soak-replace' };
