// A wait on the package's clock tied to no execution, for work several executions of a process share.
import { clock } from './serviceClock';

/**
 * Waits `ms` on the package's clock (n8n's `sleep`), tied to no execution: for work shared by several
 * executions of the process. Cut short, without error, when `signal` (its owner's own) aborts.
 */
export async function pause(ms: number, signal?: AbortSignal): Promise<void> {
	if (ms <= 0 || signal?.aborted) return;
	try {
		await clock.sleep(ms, signal);
	} catch {
		// woken early by its owner
	}
}
