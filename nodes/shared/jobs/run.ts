// What one node run of the Job node shares between its items: read-once answers, the jobs it has, its
// budget, the downloads it streams and its side of the process-wide watchers that follow its jobs. The
// Job node's router opens one per node run (openJobRun); the generic router knows it only as RunHooks.
import type { IDataObject, INodeExecutionData, IExecuteFunctions } from 'n8n-workflow';

import type { RunHooks, RunScope } from '../router';
import { now } from '../transport';
import { RunBudget } from './create/budget';
import type { JobFollower } from './follow/watcher';
import { RunWatcher } from './follow/watcher';

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

/**
 * A run that fails after some items created (or picked up) jobs: n8n drops the run's output, so the
 * error names those jobs — they are paid for and keep running; Wait for Job picks them up.
 */
function withJobsOfRun(error: Error, claimed: ReadonlySet<string>): Error {
	if (claimed.size === 0) return error;
	const jobs = [...claimed].join(', ');
	const note = `Jobs this run already created or picked up (charged, still running, not lost: use Wait for Job or Get with their IDs, or retry the execution, which picks them up): ${jobs}.`;
	const withDescription = error as Error & { description?: string | null; context?: IDataObject };
	withDescription.description = withDescription.description
		? `${withDescription.description} · ${note}`
		: note;
	if (withDescription.context) withDescription.context.jobsOfRun = [...claimed];
	return error;
}

/** What one node run of the Job node shares between its items. */
export class JobRun implements RunHooks, RunScope {
	/** When the node run began: as a tool, when the call began (its answer is due from then on). */
	readonly startedAt = now();
	/** Read once per run (e.g. capabilities). */
	readonly cache = new Map<string, unknown>();
	/** Jobs an item of this run created or picked up: no other item may pick them up again. */
	readonly claimed = new Set<string>();
	/** Credits reserved by this run's jobs, for Create's "Max Credits for This Run". */
	readonly budget = new RunBudget();
	readonly downloads = new Limiter(DOWNLOAD_CONCURRENCY);
	private jobWatcher: JobFollower | undefined;
	private readonly inputsSeen = new Map<string, number>();

	constructor(
		private readonly ctx: IExecuteFunctions,
		private readonly scope: RunScope,
	) {}

	/** How many items of this run had this input (canonical JSON) before; counts this one. */
	occurrence(input: string): number {
		const seen = this.inputsSeen.get(input) ?? 0;
		this.inputsSeen.set(input, seen + 1);
		return seen;
	}

	/**
	 * Follows the jobs of this run side by side, with those of every other execution of the process on the
	 * same key (one process-wide watcher per key; this run's side of it is made on first use).
	 */
	get watcher(): JobFollower {
		this.jobWatcher ??= new RunWatcher(this.ctx);
		return this.jobWatcher;
	}

	/**
	 * Lets item `i` go on in the background (its job is waited for while the next items are created);
	 * the router collects the result at the end, in item order.
	 */
	continueLater(i: number, work: () => Promise<INodeExecutionData[]>): void {
		this.scope.continueLater(i, work);
	}

	/** The run failed early: its background waits leave the watchers (the others' looks go on). */
	stop(): void {
		this.jobWatcher?.stop();
	}

	/** The run failed: its error names the jobs it already has (see withJobsOfRun). */
	explain(error: Error): Error {
		return withJobsOfRun(error, this.claimed);
	}
}

/** The Job node's per-run state, opened by the router once per node run. */
export function openJobRun(ctx: IExecuteFunctions, scope: RunScope): JobRun {
	return new JobRun(ctx, scope);
}
