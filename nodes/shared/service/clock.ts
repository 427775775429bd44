// The time every wait of the package uses. Tests swap this whole module for a virtual clock (jest
// moduleNameMapper), so nothing in the shipped code can change it.
import * as workflow from 'n8n-workflow';

type AbortableSleep = (ms: number, signal: AbortSignal) => Promise<void>;

/**
 * n8n 2.x's `sleep(ms, signal)` stops when the signal aborts; n8n 1.x's ignores the signal and offers
 * `sleepWithAbort` instead. Use whichever the running n8n has, so waits can always be cut short.
 */
const sleepWithAbort = (workflow as unknown as { sleepWithAbort?: AbortableSleep }).sleepWithAbort;

export const clock = {
	now: (): number => Date.now(),
	random: (): number => Math.random(),
	/** Resolves after `ms`, or rejects as soon as `signal` aborts. */
	sleep: async (ms: number, signal?: AbortSignal): Promise<void> => {
		if (!signal) return await workflow.sleep(ms);
		if (signal.aborted) throw new Error('aborted');
		if (sleepWithAbort) return await sleepWithAbort(ms, signal);
		return await workflow.sleep(ms, signal);
	},
};
