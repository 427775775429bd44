// Creating a job — the one request that spends credits — from the checks before any credit is touched
// to the POST /jobs, and with Wait for Completion on to the finished job. Never pays twice for one
// intent: the Idempotency-Key is stable for the intent, so retries replay the same job; in a run that is
// most likely a recovery (n8n's Retry, a webhook call; see adoption.ts) a job of the same input created
// recently, and not by this execution, is picked up instead. Other runs create. The path a reader
// follows for Create, file by file, is at the top of jobs/index.ts.
import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import { asNodeError, settle } from '../../settle';

import { runsAsTool } from '../../agent';
import type { Mode } from '../../constants';
import { canonicalJson, deriveIdempotencyKey, deriveIntentKey } from '../../idempotency';
import { apiRequest, now, resolveService } from '../../transport';
import type { ReuseRecentJob } from './adoption';
import { jobAnswer } from '../follow/answers';
import { failedOfInput, findAdoptable, intentKeyApplies, reuseApplies } from './adoption';
import { recordUsedJob, usedInEarlierRun } from './usedJobs';
import { estimateOf } from '../follow/estimate';
import { ensureGenerationAvailable, forgetCapabilitiesOn, guardCost } from './generation';
import type { Job } from '../job';
import { rememberJobs } from '../follow/reads';
import { noteUncertainCreate } from '../follow/recent';
import type { JobRun } from '../run';
import type { WaitOptions } from '../follow/waiting';
import { waitForJob } from '../follow/waiting';

/** Keys an item tries past the jobs its run holds, for the jobs earlier runs of the node used (loops). */
const MAX_LOOP_ATTEMPTS = 100;

/** One item's Create, as its operation read it from the form (already checked). */
export interface CreateRequest {
	itemIndex: number;
	/** The JobInput, sent as the body of POST /jobs. */
	input: IDataObject & { mode: Mode };
	/** The user's Idempotency Key; undefined: the node derives one (execution or intent). */
	customKey?: string;
	/** Max Credits: quote first, refuse above it. */
	maxCredits?: number;
	/** Max Credits for This Run. */
	runBudget?: number;
	/** Reuse Identical Recent Job and its look-back. */
	reuse: ReuseRecentJob;
	reuseMinutes: number;
	/** Max Rate-Limit Wait. */
	maxWaitSeconds?: number;
	/** Wait for Completion's options; undefined: the job is output at once. */
	wait?: WaitOptions;
}

/** What the POST /jobs of one intent needs besides its key. */
interface PostJob {
	input: IDataObject;
	quote: IDataObject | undefined;
	runBudget: number | undefined;
	itemIndex: number;
	maxWaitSeconds: number | undefined;
}

/** One POST /jobs, with the run budget held while it is on its way. */
async function postJob(
	ctx: IExecuteFunctions,
	run: JobRun,
	idempotencyKey: string,
	{ input, quote, runBudget, itemIndex, maxWaitSeconds }: PostJob,
): Promise<Job> {
	// taken before the create is sent (creates may run side by side), given back if nothing was created
	const hold =
		quote && runBudget !== undefined
			? run.budget.take(ctx, { limit: runBudget, quote, idempotencyKey, itemIndex })
			: undefined;
	const sent = await settle(
		apiRequest<Job>(ctx, {
			method: 'POST',
			path: '/jobs',
			body: input,
			idempotencyKey,
			itemIndex,
			maxWaitSeconds,
			errorContext: quote
				? {
						creditsNeeded: Number(quote.reservedCredits),
						creditsAvailable: Number(quote.available),
					}
				: undefined,
		}),
	);
	if (!sent.ok) {
		if (hold) run.budget.failed(hold, sent.error);
		// no answer, or a 5xx: the service may have made the job (a refusal, 4xx, made none)
		const status = Number((sent.error as { httpCode?: unknown } | undefined)?.httpCode);
		if (!(status >= 400 && status < 500)) {
			noteUncertainCreate((await resolveService(ctx, itemIndex)).serviceKey, now());
		}
		await forgetCapabilitiesOn(ctx, sent.error);
		throw asNodeError(ctx.getNode(), sent.error, itemIndex);
	}
	if (hold) run.budget.settle(hold, sent.value);
	await rememberJobs(ctx, [sent.value]);
	return sent.value;
}

/**
 * One item's Create: capabilities (once per run), a recent job of the same intent picked up when the run
 * is a recovery, the cost guard's quote, POST /jobs under the intent's key (the next key while the job
 * it names is one this run or an earlier run of the node already has), then the job as the item — or,
 * with Wait for Completion, the item goes on in the background until the job ends (run.continueLater).
 */
export async function createJob(
	ctx: IExecuteFunctions,
	run: JobRun,
	request: CreateRequest,
): Promise<INodeExecutionData[]> {
	const { itemIndex: i, input, customKey, maxWaitSeconds, reuse, reuseMinutes } = request;
	const capabilities = await ensureGenerationAvailable(ctx, input.mode, run, i);
	const byIntent = !customKey && intentKeyApplies(ctx, reuse);
	const occurrence = run.occurrence(canonicalJson(input));

	let job: Job | undefined;
	let adopted = false;
	if (!customKey && reuseApplies(ctx, reuse)) {
		job = await findAdoptable(ctx, run, input, reuseMinutes, i, maxWaitSeconds, byIntent);
		adopted = job !== undefined;
	}
	const keyOf = (attempt: number): string => {
		if (customKey) return customKey;
		if (!byIntent) return deriveIdempotencyKey(ctx, i, 'job', input);
		const failed = failedOfInput(run, input, reuseMinutes);
		const parts = { lookBackMs: reuseMinutes * 60_000, occurrence, failed, attempt };
		return deriveIntentKey(ctx, 'job', input, parts, now());
	};
	let idempotencyKey = keyOf(0);
	const { maxCredits, runBudget } = request;
	if (job && runBudget !== undefined) run.budget.count(job);
	let quote: IDataObject | undefined;
	if (!job && (maxCredits !== undefined || runBudget !== undefined)) {
		quote = await guardCost(ctx, input, maxCredits, capabilities, i, maxWaitSeconds);
	}
	if (!job) {
		const post = { input, quote, runBudget, itemIndex: i, maxWaitSeconds };
		job = await postJob(ctx, run, idempotencyKey, post);
		// An intent's key may name a job this run already holds (another execution's run had the same
		// inputs in another order) or that an earlier run of this node in this execution used (a loop):
		// then the intent's next key, as the other execution would take. Each such answer is a distinct
		// job of those, so this ends.
		const taken = (id: string) => run.claimed.has(id) || usedInEarlierRun(ctx, id);
		for (let attempt = 1; byIntent && taken(job.id); attempt++) {
			if (attempt > run.claimed.size + MAX_LOOP_ATTEMPTS) break;
			idempotencyKey = keyOf(attempt);
			job = await postJob(ctx, run, idempotencyKey, post);
		}
	}
	run.claimed.add(job.id);
	recordUsedJob(ctx, job.id);
	ctx.logger.info(
		adopted
			? `Generation Service job ${job.id} picked up (${job.state}): same input created recently, nothing charged again`
			: `Generation Service job ${job.id} created (${job.state}${job.replayed ? ', replayed' : ''}, ${job.reservedCredits} credits reserved)`,
		{ jobId: job.id },
	);
	const extra = { replayed: job.replayed ?? false, adopted, idempotencyKey };
	const { wait } = request;
	if (!wait) {
		// as a tool: lean, with the next step; in a workflow: when it should end, for a Wait node's "At
		// Specified Time" (parking instead of holding a slot)
		if (runsAsTool(ctx))
			return [{ json: jobAnswer(ctx, { ...job, ...extra }), pairedItem: { item: i } }];
		const estimate = estimateOf((await resolveService(ctx, i)).serviceKey, job);
		return [{ json: { ...job, ...extra, ...estimate }, pairedItem: { item: i } }];
	}
	const created = job;
	run.continueLater(i, async () => {
		const item = await waitForJob(ctx, run, created.id, i, wait, created);
		item.json = jobAnswer(ctx, { ...item.json, ...extra }, run.startedAt);
		return [item];
	});
	return [];
}
