// Time for the nodes: the package's clock, waits that end when the execution is cancelled, and a pause
// tied to no execution.
import type { IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { clock } from './serviceClock';
import type { ServiceContext } from './types';

/** Current time of the package's clock (so polling and tests share one clock). */
export function now(): number {
	return clock.now();
}

/** The execution's cancel signal, when the context has one (poll and load-options contexts do not). */
export function cancelSignal(ctx: ServiceContext): AbortSignal | undefined {
	const withSignal = ctx as Partial<IExecuteFunctions>;
	return typeof withSignal.getExecutionCancelSignal === 'function'
		? withSignal.getExecutionCancelSignal()
		: undefined;
}

/** The error of an execution cancelled while `what`. */
export function cancelled(ctx: ServiceContext, itemIndex: number | undefined, what = 'waiting') {
	return new NodeOperationError(ctx.getNode(), `The execution was cancelled while ${what}.`, {
		itemIndex,
	});
}

/** Waits on the package's clock; stops with a clear error when the execution is cancelled. */
export async function wait(
	ctx: ServiceContext,
	ms: number,
	itemIndex: number | undefined,
	what?: string,
): Promise<void> {
	const signal = cancelSignal(ctx);
	if (signal?.aborted) throw cancelled(ctx, itemIndex, what);
	if (ms <= 0) return;
	try {
		await clock.sleep(ms, signal);
	} catch {
		throw cancelled(ctx, itemIndex, what);
	}
}

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
