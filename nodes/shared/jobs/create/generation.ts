// Before any credit is touched: the engine and mode are available (capabilities), the quote, and why
// a quote says the job cannot be paid (frozen account, key ceiling, balance, in that order).
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { asNodeError, settle } from '../../settle';

import type { Mode } from '../../constants';
import type { JobRun } from '../run';
import { MIN_POLL_MS } from '../job';
import { apiRequest, now, resolveService } from '../../transport';
import { processStore } from '../../processState';

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
export async function capabilitiesOf(
	ctx: IExecuteFunctions,
	itemIndex: number,
): Promise<IDataObject> {
	const { serviceKey } = await resolveService(ctx, itemIndex);
	const { answers, pending } = processCapabilities;
	const known = answers.get(serviceKey);
	if (known && now() < known.until) return known.capabilities;
	const joined = pending.get(serviceKey);
	if (joined) {
		try {
			return await joined;
		} catch {
			// the read it joined failed (e.g. its execution was cancelled): read on its own
		}
	}
	const read = apiRequest<IDataObject>(ctx, { method: 'GET', path: '/capabilities', itemIndex });
	pending.set(serviceKey, read);
	try {
		const capabilities = await read;
		answers.delete(serviceKey); // re-insert: the map stays in order of last use
		answers.set(serviceKey, { capabilities, until: expiryOf(capabilities, now()) });
		while (answers.size > CAPABILITIES_MEMORY.maxKeys) {
			answers.delete(answers.keys().next().value as string);
		}
		return capabilities;
	} finally {
		if (pending.get(serviceKey) === read) pending.delete(serviceKey);
	}
}

/**
 * An answer says the capabilities changed (a create or quote refused with 503 engine_unavailable or 422
 * mode_unavailable): the next run reads them again.
 */
export async function forgetCapabilitiesOn(ctx: IExecuteFunctions, error: unknown): Promise<void> {
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
	const quoted = await settle(
		apiRequest<IDataObject>(ctx, {
			method: 'POST',
			path: '/jobs/quote',
			body: input,
			itemIndex,
			safeToRetry: true,
			maxWaitSeconds,
		}),
	);
	if (quoted.ok) return quoted.value;
	await forgetCapabilitiesOn(ctx, quoted.error);
	throw asNodeError(ctx.getNode(), quoted.error, itemIndex);
}

/** Whether the account is frozen, from GET /balance; undefined when the key may not read it. */
async function isFrozen(
	ctx: IExecuteFunctions,
	itemIndex: number,
	maxWaitSeconds?: number,
): Promise<boolean | undefined> {
	const read = await settle(
		apiRequest<IDataObject>(ctx, {
			method: 'GET',
			path: '/balance',
			itemIndex,
			maxWaitSeconds,
		}),
	);
	if (read.ok) return read.value.frozen === true;
	if (read.error instanceof NodeApiError && read.error.httpCode === '403') return undefined;
	throw asNodeError(ctx.getNode(), read.error, itemIndex);
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
export async function guardCost(
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
