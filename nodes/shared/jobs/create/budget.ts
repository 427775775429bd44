// "Max Credits for This Run": the credits reserved by the jobs of one node run never exceed a budget.
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import type { Job } from '../job';

/** Credits held for one create from before it is sent until its answer says which job it made. */
export interface BudgetHold {
	credits: number;
	idempotencyKey: string;
}

/** How many job IDs the error message lists (the description and `jobsOfRun` have them all). */
const LISTED_JOBS = 10;

/** An answer that says the service created nothing (a 4xx, or 503: "no credit was reserved"). */
function createdNothing(error: unknown): boolean {
	if (!(error instanceof NodeApiError)) return false;
	const status = Number(error.httpCode);
	return (status >= 400 && status < 500) || status === 503;
}

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
