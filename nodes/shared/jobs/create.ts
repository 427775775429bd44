// Creating a job — the one request that spends credits. Before any credit is touched: the engine and the
// mode are available (GET /capabilities, shared by the process's runs on a key), and with Max Credits (or Max
// Credits for This Run) the quote, refused with the real cause when the account or key cannot pay. Then a
// recent job of the same intent is picked up in runs that most likely repeat one (reuse.ts), or POST /jobs
// under the intent's Idempotency-Key, with the run's budget held while it is on its way; then the job as the
// item with the estimate of its end — or, with Wait for Completion, the item goes on in the background until
// the job ends (wait.ts).
import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import type { Mode } from '../constants';
import { processStore, sharedRead, keepRecent } from '../processState';
import { runsAsTool } from '../router';
import { apiRequest } from '../service/client';
import { asNodeError, createdNothing } from '../service/errors';
import { now, resolveService } from '../service/service';
import type { Job } from './job';
import { MIN_POLL_MS } from './job';
import { estimateOf, noteUncertainCreate, rememberJobs } from './known';
import type { ReuseRecentJob } from './reuse';
import {
	canonicalJson,
	deriveIdempotencyKey,
	deriveIntentKey,
	failedOfInput,
	findAdoptable,
	intentKeyApplies,
	recordUsedJob,
	reuseApplies,
	usedInEarlierRun,
} from './reuse';
import type { JobRun } from './run';
import type { WaitOptions } from './wait';
import { jobAnswer, waitForJob } from './wait';

// ---- Before any credit is touched: capabilities, the quote, Max Credits ----

/**
 * How long one GET /capabilities answer serves every run of the process on its key. Available: one
 * rate window (a minute: at most one of a key's requests a minute, prices and modes shown at most a
 * minute old); unavailable: one poll interval (an engine that is back is noticed within 5 s). A create
 * or quote answered 503 engine_unavailable or 422 mode_unavailable drops it at once (forgetCapabilities).
 */
export const CAPABILITIES_MEMORY = {
	availableMs: 60_000,
	unavailableMs: MIN_POLL_MS,
	/** Keys whose answer is kept at most; beyond, the least recently used goes first. */
	maxKeys: 1_000,
};

/**
 * Module state on purpose: the last capabilities answer per service key (≤ CAPABILITIES_MEMORY.maxKeys,
 * least recently used out first; each expires as above), and the reads on their way (one per key,
 * removed when answered), which the runs asking meanwhile share.
 */
export const processCapabilities = processStore(
	'capabilities',
	{
		answers: new Map<string, { capabilities: IDataObject; until: number }>(),
		pending: new Map<string, Promise<IDataObject>>(),
	},
	(state) => {
		state.answers.clear();
		state.pending.clear();
	},
);

function expiryOf(capabilities: IDataObject, at: number): number {
	const generation = (capabilities.generation ?? {}) as IDataObject;
	return (
		at +
		(generation.available === true
			? CAPABILITIES_MEMORY.availableMs
			: CAPABILITIES_MEMORY.unavailableMs)
	);
}

/** GET /capabilities (public endpoint: spends nothing), shared by the process's runs on the key. */
async function capabilitiesOf(ctx: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
	const { serviceKey } = await resolveService(ctx, itemIndex);
	const { answers, pending } = processCapabilities;
	const known = answers.get(serviceKey);
	if (known && now() < known.until) return known.capabilities;
	return await sharedRead(pending, serviceKey, async () => {
		const capabilities = await apiRequest<IDataObject>(ctx, {
			method: 'GET',
			path: '/capabilities',
			itemIndex,
		});
		const until = expiryOf(capabilities, now());
		keepRecent(answers, serviceKey, { capabilities, until }, CAPABILITIES_MEMORY.maxKeys);
		return capabilities;
	});
}

/**
 * An answer says the capabilities changed (a create or quote refused with 503 engine_unavailable or 422
 * mode_unavailable): the next run reads them again.
 */
async function forgetCapabilitiesOn(ctx: IExecuteFunctions, error: unknown): Promise<void> {
	const code = (error as { context?: IDataObject } | undefined)?.context?.errorCode;
	if (code !== 'engine_unavailable' && code !== 'mode_unavailable') return;
	const { serviceKey } = await resolveService(ctx);
	processCapabilities.answers.delete(serviceKey);
}

/** The service's current price table (its shape is the service's), for run-time messages and output. */
export function pricingOf(capabilities: IDataObject): unknown {
	return ((capabilities.generation ?? {}) as IDataObject).pricing;
}

/**
 * The spec asks clients to read GET /capabilities before generating: refuse before any credit-related
 * request when the engine is off or the mode not offered.
 */
export async function ensureGenerationAvailable(
	ctx: IExecuteFunctions,
	mode: Mode,
	run: JobRun,
	itemIndex: number,
): Promise<IDataObject> {
	const capabilities = await capabilitiesOf(ctx, itemIndex);
	const generation = (capabilities.generation ?? {}) as IDataObject;
	if (generation.available !== true) {
		const reason = generation.reason ? ` (reason: ${String(generation.reason)})` : '';
		const error = new NodeOperationError(
			ctx.getNode(),
			`The generation engine is unavailable right now${reason}; no credits were reserved and nothing was created. Try again later.`,
			{ itemIndex },
		);
		error.context.errorCode = 'engine_unavailable';
		throw error;
	}
	const modes = (generation.modes ?? []) as string[];
	if (!modes.includes(mode)) {
		const error = new NodeOperationError(
			ctx.getNode(),
			`The mode "${mode}" is not available now (available: ${modes.join(', ') || 'none'}); no credits were reserved.`,
			{ itemIndex },
		);
		error.context.errorCode = 'mode_unavailable';
		throw error;
	}
	return capabilities;
}

/** POST /jobs/quote: price and whether account and key can pay. Reserves nothing, so safe to retry. */
export async function quoteJob(
	ctx: IExecuteFunctions,
	input: IDataObject,
	itemIndex: number,
	maxWaitSeconds?: number,
): Promise<IDataObject> {
	try {
		return await apiRequest<IDataObject>(ctx, {
			method: 'POST',
			path: '/jobs/quote',
			body: input,
			itemIndex,
			safeToRetry: true,
			maxWaitSeconds,
		});
	} catch (error) {
		await forgetCapabilitiesOn(ctx, error);
		throw asNodeError(ctx.getNode(), error, itemIndex);
	}
}

/** Whether the account is frozen, from GET /balance; undefined when the key may not read it. */
async function isFrozen(
	ctx: IExecuteFunctions,
	itemIndex: number,
	maxWaitSeconds?: number,
): Promise<boolean | undefined> {
	try {
		const balance = await apiRequest<IDataObject>(ctx, {
			method: 'GET',
			path: '/balance',
			itemIndex,
			maxWaitSeconds,
		});
		return balance.frozen === true;
	} catch (error) {
		if (error instanceof NodeApiError && error.httpCode === '403') return undefined;
		throw asNodeError(ctx.getNode(), error, itemIndex);
	}
}

/**
 * Why a quote says the job cannot be paid, most fundamental cause first: a frozen account (buying
 * credits would not help), then the key's lifetime ceiling, then the balance.
 */
async function unpayable(
	ctx: IExecuteFunctions,
	quote: IDataObject,
	itemIndex: number,
	maxWaitSeconds?: number,
): Promise<{ code: string; message: string }> {
	const reserved = Number(quote.reservedCredits);
	const available = Number(quote.available);
	const keyRemaining = quote.keyRemaining === null ? null : Number(quote.keyRemaining);
	const frozen = await isFrozen(ctx, itemIndex, maxWaitSeconds);
	const frozenMessage =
		'The account is frozen for a financial review, so new generations are blocked (running jobs still finish). Resolve the pending payment matter in the dashboard; buying credits does not lift the freeze. Nothing was created.';
	if (frozen === true) return { code: 'billing_financial_review', message: frozenMessage };
	if (keyRemaining !== null && Number.isFinite(keyRemaining) && keyRemaining < reserved) {
		return {
			code: 'key_credit_limit',
			message: `This API key may spend only ${keyRemaining} more credits in its lifetime and this job needs ${reserved}. Raise the key's ceiling or create a new key in the dashboard. Nothing was created.`,
		};
	}
	if (available < reserved) {
		return {
			code: 'insufficient_credits',
			message:
				`Not enough credits: ${available} available, ${reserved} needed. Buy credits in the dashboard, or use a shorter duration. Nothing was created.` +
				(frozen === undefined
					? ' (This key may not read the balance, so a frozen account cannot be ruled out: check the dashboard if buying credits does not help.)'
					: ''),
		};
	}
	// Balance and key both suffice, yet the quote says no: the spec leaves only the freeze.
	return {
		code: 'billing_financial_review',
		message: `${frozenMessage} (The quote refuses although the account has ${available} credits${keyRemaining === null ? '' : ` and the key may still spend ${keyRemaining}`}.)`,
	};
}

/** " Price: 8 credits per started 5 s of text_to_video; this job asks for 10 s." — when the table says so. */
function priceNote(capabilities: IDataObject, input: IDataObject): string {
	const pricing = pricingOf(capabilities) as IDataObject | undefined;
	const perBlock = (pricing?.creditsPerBlock as IDataObject | undefined)?.[String(input.mode)];
	const blockSeconds = pricing?.blockSeconds;
	if (typeof perBlock !== 'number' || typeof blockSeconds !== 'number') return '';
	const asked =
		input.durationSeconds === undefined
			? ''
			: `; this job asks for ${String(input.durationSeconds)} s`;
	return ` Price: ${perBlock} credits per started ${blockSeconds} s of ${String(input.mode)}${asked}.`;
}

/**
 * The Max Credits guard: quote first; refuse, creating nothing, when the account or key cannot pay
 * (naming the real cause) or the job would reserve more than `maxCredits` (when set). Returns the quote,
 * which the run's budget (Max Credits for This Run) uses too.
 */
async function guardCost(
	ctx: IExecuteFunctions,
	input: IDataObject,
	maxCredits: number | undefined,
	capabilities: IDataObject,
	itemIndex: number,
	maxWaitSeconds?: number,
): Promise<IDataObject> {
	const quote = await quoteJob(ctx, input, itemIndex, maxWaitSeconds);
	const reserved = Number(quote.reservedCredits);
	let problem: { code: string; message: string } | undefined;
	if (quote.sufficient !== true) {
		problem = await unpayable(ctx, quote, itemIndex, maxWaitSeconds);
	} else if (maxCredits !== undefined && reserved > maxCredits) {
		problem = {
			code: 'max_credits_exceeded',
			message: `The quote is ${reserved} credits, above Max Credits (${maxCredits}): nothing was created and nothing was reserved.${priceNote(capabilities, input)} Ask for a shorter duration, or raise Max Credits in the node's options.`,
		};
	}
	if (!problem) return quote;
	const pricing = pricingOf(capabilities);
	const error = new NodeOperationError(ctx.getNode(), problem.message, {
		itemIndex,
		description: `Quote: ${JSON.stringify(quote)}${pricing ? ` · Current prices (GET /capabilities): ${JSON.stringify(pricing)}` : ''}`,
	});
	error.context.errorCode = problem.code;
	error.context.quote = quote;
	throw error;
}

// ---- The create ----

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
	let job: Job;
	try {
		job = await apiRequest<Job>(ctx, {
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
		});
	} catch (error) {
		if (hold) run.budget.failed(hold, error);
		// no answer, or a 5xx other than 503: the service may have made the job
		if (!createdNothing(error)) {
			noteUncertainCreate((await resolveService(ctx, itemIndex)).serviceKey, now());
		}
		await forgetCapabilitiesOn(ctx, error);
		throw asNodeError(ctx.getNode(), error, itemIndex);
	}
	if (hold) run.budget.settle(hold, job);
	await rememberJobs(ctx, [job]);
	return job;
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
	/** Failed jobs the intent's keys named (a replay), which the look-back had not shown failed. */
	const failedReplays = new Set<string>();
	const keyOf = (attempt: number): string => {
		if (customKey) return customKey;
		if (!byIntent) return deriveIdempotencyKey(ctx, i, 'job', input);
		const failed = [...new Set([...failedOfInput(run, input, reuseMinutes), ...failedReplays])];
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
		// then the intent's next key, as the other execution would take. It may also name a job that has
		// failed since the view was read (the service replays it): after a failure the same input is a new
		// intent, whose key counts that job among the failed ones, as a look that showed it would have. Each
		// such answer is a distinct job of those, so this ends.
		const taken = (id: string) => run.claimed.has(id) || usedInEarlierRun(ctx, id);
		const failedReplay = (named: Job) =>
			named.replayed === true && named.state === 'failed' && !failedReplays.has(named.id);
		let attempt = 0;
		while (byIntent && (failedReplay(job) || taken(job.id))) {
			if (failedReplay(job)) failedReplays.add(job.id);
			else attempt++;
			if (attempt + failedReplays.size > run.claimed.size + MAX_LOOP_ATTEMPTS) break;
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
