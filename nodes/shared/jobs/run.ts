// What one node run shares between its items: read-once answers, the jobs it has, its budget, the
// downloads it streams and the watcher that follows its jobs. The router creates one per node run.
import type { INodeExecutionData, IExecuteFunctions } from 'n8n-workflow';

import { RunBudget } from './budget';
import { JobWatcher } from './watcher';

/** How many downloads of one node run stream at once (each is paced by the key's pacer anyway). */
export const DOWNLOAD_CONCURRENCY = 4;

/** A small FIFO limiter built on promises (no timers). */
export class Limiter {
	private active = 0;
	private readonly queue: Array<() => void> = [];

	constructor(private readonly max: number) {}

	async run<T>(fn: () => Promise<T>): Promise<T> {
		if (this.active >= this.max) await new Promise<void>((resolve) => this.queue.push(resolve));
		this.active++;
		try {
			return await fn();
		} finally {
			this.active--;
			this.queue.shift()?.();
		}
	}
}

/** What one node run shares between its items. */
export class RunState {
	/** Read once per run (e.g. capabilities). */
	readonly cache = new Map<string, unknown>();
	/** Jobs an item of this run created or picked up: no other item may pick them up again. */
	readonly claimed = new Set<string>();
	/** Credits reserved by this run's jobs, for Create's "Max Credits for This Run". */
	readonly budget = new RunBudget();
	readonly downloads = new Limiter(DOWNLOAD_CONCURRENCY);
	/** Work an item goes on with after its execute() returned (waiting for its job), by item index. */
	readonly continued = new Map<number, Promise<INodeExecutionData[]>>();
	private jobWatcher: JobWatcher | undefined;
	private readonly inputsSeen = new Map<string, number>();

	constructor(private readonly ctx: IExecuteFunctions) {}

	/** How many items of this run had this input (canonical JSON) before; counts this one. */
	occurrence(input: string): number {
		const seen = this.inputsSeen.get(input) ?? 0;
		this.inputsSeen.set(input, seen + 1);
		return seen;
	}

	/** Follows the jobs of this run side by side (started on first use). */
	get watcher(): JobWatcher {
		this.jobWatcher ??= new JobWatcher(this.ctx);
		return this.jobWatcher;
	}

	/**
	 * Lets item `i` go on in the background (its job is waited for while the next items are created);
	 * the router collects the result at the end, in item order.
	 */
	continueLater(i: number, work: () => Promise<INodeExecutionData[]>): void {
		const running = work();
		running.catch(() => undefined); // collected (and reported) by the router
		this.continued.set(i, running);
	}

	/** The run failed early: background work stops sending requests. */
	stop(): void {
		this.jobWatcher?.stop();
	}
}
