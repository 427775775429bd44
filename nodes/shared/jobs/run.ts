// What one node run of the Job node shares between its items: read-once answers, the jobs it has, its
// budget ("Max Credits for This Run"), the downloads it streams and its side of the process-wide watchers
// that follow its jobs. The Job node's router opens one per node run (openJobRun); the generic router knows
// it only as RunHooks.
import type { IDataObject, INodeExecutionData, IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import type { RunHooks, RunScope } from '../router';
import { createdNothing } from '../service/errors';
import { now } from '../service/service';
import type { Job } from './job';
import type { FollowingRun } from './watch';
import { stopFollowing } from './watch';

/** How many downloads of one node run stream at once (each is paced by the key's pacer anyway). */
export const DOWNLOAD_CONCURRENCY = 4;

/** A small FIFO limiter built on promises (no timers). */
class Limiter {
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

// ---- Max Credits for This Run ----

/** Credits held for one create from before it is sent until its answer says which job it made. */
export interface BudgetHold {
	credits: number;
	idempotencyKey: string;
}

/** How many job IDs the error message lists (the description and `jobsOfRun` have them all). */
const LISTED_JOBS = 10;

/**
 * The run's budget. Jobs count once each, by ID, whichever way the run got them: created, replayed (the
 * same Idempotency-Key: the service answers with the same job) or picked up. A create takes its quote
 * from the budget before it is sent — synchronously, so creates sent side by side cannot both pass — and
 * gives it back when the service created nothing.
 */
export class RunBudget {
	/** Jobs of this run and the credits each reserves. */
	private readonly jobs = new Map<string, number>();
	/** Idempotency-Keys this run's creates used, and the job each gave. */
	private readonly jobOfKey = new Map<string, string>();
	/** Creates on their way, or whose outcome is unknown (no answer after their retries: the job may exist). */
	private readonly holds = new Set<BudgetHold>();

	/** Credits reserved by the run's jobs, plus those held for creates on their way or of unknown outcome. */
	reserved(): number {
		let total = 0;
		for (const credits of this.jobs.values()) total += credits;
		for (const hold of this.holds) total += hold.credits;
		return total;
	}

	/**
	 * Takes the quoted credits of a create about to be sent with `idempotencyKey`, or throws the error
	 * naming the budget, what is already reserved and the run's jobs. A create with the key of a job this
	 * run already has is a replay: it takes nothing.
	 */
	take(
		ctx: IExecuteFunctions,
		request: {
			limit: number;
			quote: IDataObject;
			idempotencyKey: string;
			itemIndex: number;
		},
	): BudgetHold {
		const { limit, quote, idempotencyKey, itemIndex } = request;
		const replay = this.jobOfKey.has(idempotencyKey);
		const credits = replay ? 0 : Number(quote.reservedCredits);
		const reserved = this.reserved();
		if (reserved + credits > limit) {
			throw this.overBudget(ctx, { limit, reserved, credits, quote, itemIndex });
		}
		const hold = { credits, idempotencyKey };
		this.holds.add(hold);
		return hold;
	}

	/** The create's answer: its job counts once (a replay of a job the run already has adds nothing). */
	settle(hold: BudgetHold, job: Job): void {
		this.holds.delete(hold);
		this.jobOfKey.set(hold.idempotencyKey, job.id);
		this.count(job);
	}

	/**
	 * The create failed: its credits are free again when the service answered that it created nothing;
	 * otherwise (no answer, a 5xx after the retries) the job may exist, and they stay counted.
	 */
	failed(hold: BudgetHold, error: unknown): void {
		if (createdNothing(error)) this.holds.delete(hold);
	}

	/** A job of this run that was not created by it now (picked up): counts once, like any other. */
	count(job: Job): void {
		if (!this.jobs.has(job.id)) this.jobs.set(job.id, Number(job.reservedCredits) || 0);
	}

	private overBudget(
		ctx: IExecuteFunctions,
		over: {
			limit: number;
			reserved: number;
			credits: number;
			quote: IDataObject;
			itemIndex: number;
		},
	): NodeOperationError {
		const ids = [...this.jobs.keys()];
		const held = over.reserved - [...this.jobs.values()].reduce((a, b) => a + b, 0);
		const listed =
			ids.length === 0
				? 'by no job of this run yet'
				: `by ${ids.length} job${ids.length === 1 ? '' : 's'} of this run: ${ids.slice(0, LISTED_JOBS).join(', ')}${ids.length > LISTED_JOBS ? `, and ${ids.length - LISTED_JOBS} more` : ''}`;
		const heldNote =
			held > 0 ? `; ${held} held for creates on their way or whose outcome is unknown` : '';
		const error = new NodeOperationError(
			ctx.getNode(),
			`Max Credits for This Run is ${over.limit} credits and ${over.reserved} are already reserved (${listed}${heldNote}), so this item's job, quoted at ${over.credits}, would go over it. Nothing was created for this item and nothing was reserved.`,
			{
				itemIndex: over.itemIndex,
				description: `Jobs of this run (charged, still running, not lost): ${ids.join(', ') || 'none'} · Quote of this item: ${JSON.stringify(over.quote)}`,
			},
		);
		error.context.errorCode = 'run_budget_exceeded';
		error.context.jobsOfRun = ids;
		error.context.quote = over.quote;
		return error;
	}
}

// ---- The run ----

/** What one node run of the Job node shares between its items. */
export class JobRun implements RunHooks, RunScope, FollowingRun {
	/** When the node run began: as a tool, when the call began (its answer is due from then on). */
	readonly startedAt = now();
	/** Read once per run (e.g. capabilities). */
	readonly cache = new Map<string, unknown>();
	/** Jobs an item of this run created or picked up: no other item may pick them up again. */
	readonly claimed = new Set<string>();
	/** Credits reserved by this run's jobs, for Create's "Max Credits for This Run". */
	readonly budget = new RunBudget();
	readonly downloads = new Limiter(DOWNLOAD_CONCURRENCY);
	/** Jobs this run followed with the watchers (followJob): more than one is a batch. */
	followed = 0;
	/** The run stopped early: no job is followed for it any more (stopFollowing). */
	stopped = false;
	private readonly inputsSeen = new Map<string, number>();

	constructor(private readonly scope: RunScope) {}

	/** How many items of this run had this input (canonical JSON) before; counts this one. */
	occurrence(input: string): number {
		const seen = this.inputsSeen.get(input) ?? 0;
		this.inputsSeen.set(input, seen + 1);
		return seen;
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
		stopFollowing(this);
	}

	/** The run failed: its error names the jobs it already has (see withJobsOfRun). */
	explain(error: Error): Error {
		return withJobsOfRun(error, this.claimed);
	}
}

/** The Job node's per-run state, opened by the router once per node run. */
export function openJobRun(_ctx: IExecuteFunctions, scope: RunScope): JobRun {
	return new JobRun(scope);
}
