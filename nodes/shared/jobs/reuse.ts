// Never paying twice for one intent. An intent is what a Create item asks for, in its execution: its
// Idempotency-Key is derived from it (the same in the client's retries, n8n's Retry On Fail and n8n's
// Retry of the execution), so the service replays the job instead of charging again. In runs that most
// likely repeat one that failed or was cut off (n8n's Retry, a webhook called again), a recent job of the
// same input is picked up instead of creating one, and the key comes from the intent across executions.
// The jobs an execution used are recorded in it, so it never picks up its own jobs again.
import { createHash, randomUUID } from 'crypto';
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { keepRecent, processStore, runStore } from '../processState';
import { runsAsTool } from '../router';
import { PAGE_SIZE } from '../service/client';
import { now, resolveService } from '../service/service';
import type { Job } from './job';
import { isFinished } from './job';
import { stateOf, uncertainCreateAt } from './known';
import type { JobRun } from './run';
import { MAX_VIEW_PAGES, recentJobsOf } from './watch';

// ---- The Idempotency-Key of an intent ----

/** JSON with sorted keys, so the same body always gives the same key. */
export function canonicalJson(value: unknown): string {
	if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
	if (value !== null && typeof value === 'object') {
		const entries = Object.keys(value as IDataObject)
			.filter((k) => (value as IDataObject)[k] !== undefined)
			.sort()
			.map((k) => `${JSON.stringify(k)}:${canonicalJson((value as IDataObject)[k])}`);
		return `{${entries.join(',')}}`;
	}
	return JSON.stringify(value);
}

/** The fields of n8n's execution context (n8n 2.x) this package reads; undefined where n8n has none. */
export interface ExecutionContextFields {
	establishedAt?: unknown;
	source?: unknown;
	triggerNode?: { name?: unknown; type?: unknown };
}

/** n8n's execution context (`getExecutionContext()`, n8n 2.x), or undefined on versions without it. */
function executionContextOf(ctx: IExecuteFunctions): ExecutionContextFields | undefined {
	const getContext = (ctx as Partial<IExecuteFunctions>).getExecutionContext;
	if (typeof getContext !== 'function') return undefined;
	return (getContext.call(ctx) as ExecutionContextFields | undefined) ?? undefined;
}

/**
 * What stays the same across n8n's recoveries of one execution: the root execution's start, which n8n
 * copies into every retry of it (n8n 2.x also after a crash; 1.x after a crash only with "save
 * execution progress"). Older n8n without it: the execution id (same execution: Retry On Fail). A tool
 * called through the MCP Server Trigger has neither (it runs before n8n creates the call's execution),
 * so the anchor is the same for every such call: toolCallOf tells them apart.
 */
function executionAnchor(ctx: IExecuteFunctions): string {
	const context = executionContextOf(ctx);
	if (context && typeof context.establishedAt === 'number') {
		return `${String(context.source ?? '')}@${context.establishedAt}`;
	}
	return `execution:${ctx.getExecutionId() ?? ''}`;
}

/**
 * The call ids of tool calls without a `toolCallId`, by the arguments object n8n hands every try of the
 * call. Bound: an entry lives only as long as n8n keeps that object (the call's run), a WeakMap.
 */
const callIds = runStore<object, string>('toolCallIds');

/**
 * What tells one tool call from another, the same for every try of that call. A node run as a tool
 * (of an AI agent, or of an MCP client through n8n's MCP Server Trigger) is one call, and each call is its
 * own intent — but n8n gives two calls little that differs: the MCP Server Trigger runs the tool inside
 * its webhook handler, before any execution exists (no execution id, no execution context), with fresh
 * execution data per request; an agent runs all its calls in one execution.
 * - n8n 2.x's AI Agent (version 3) runs the tool as a node of the workflow and puts the model's tool-call
 *   id in its input item (`toolCallId`); Retry On Fail runs the same item again.
 * - Otherwise (MCP Server Trigger, agents of version 1–2, n8n 1.x) the item's JSON is the call's
 *   arguments object, one per call, which n8n hands to every try of the call (Retry On Fail) again: the
 *   call gets a random id the first time, remembered for that object.
 */
export function toolCallOf(ctx: IExecuteFunctions, itemIndex: number): string {
	const json = ctx.getInputData()[itemIndex]?.json as IDataObject | undefined;
	if (typeof json?.toolCallId === 'string' && json.toolCallId !== '') {
		return `toolCallId:${json.toolCallId}`;
	}
	if (!json) return 'call:none';
	let id = callIds.get(json);
	if (!id) {
		id = randomUUID();
		callIds.set(json, id);
	}
	return `call:${id}`;
}

/**
 * One key per intent: the same root execution, node, item and request body always give the same
 * key, so the client's own retries, n8n's "Retry On Fail" and n8n's Retry of a failed (or
 * crashed) execution reuse it, and the service answers `replayed: true` instead of creating a
 * second job. A new run of the workflow is a new intent: it gets a new key. As a tool, each call is an
 * intent: its key also names the call (toolCallOf), kept by every try of that call.
 */
export function deriveIdempotencyKey(
	ctx: IExecuteFunctions,
	itemIndex: number,
	purpose: string,
	body: unknown,
): string {
	const node = ctx.getNode();
	const workflowId = ctx.getWorkflow().id ?? '';
	const material = [
		workflowId,
		executionAnchor(ctx),
		node.id ?? node.name,
		String(itemIndex),
		purpose,
		canonicalJson(body),
	];
	const asTool = runsAsTool(ctx);
	if (asTool) material.push(toolCallOf(ctx, itemIndex));
	const hash = createHash('sha256').update(material.join('\u0000')).digest('hex').slice(0, 48);
	return `n8n.${asTool ? 'tool.' : ''}${purpose}.${hash}`;
}

/** The mode of the run this execution recovers: n8n 2.x keeps the root's in every Retry; else this run's. */
function rootMode(ctx: IExecuteFunctions): string {
	const source = executionContextOf(ctx)?.source;
	return typeof source === 'string' ? source : ctx.getMode();
}

/** What tells one intent from another when executions, not n8n's recoveries, may repeat it. */
export interface IntentParts {
	/** The look-back of "Reuse Identical Recent Job": the length of the key's time slot. */
	lookBackMs: number;
	/** How many items before this one in this node run had the same input. */
	occurrence: number;
	/** Failed jobs of the same input the look-back saw: after a failure the same input is a new intent. */
	failed: readonly string[];
	/**
	 * Set when the key's job turned out to be one this run already holds, or one an earlier run of this
	 * node in this execution used (a loop): the next key to try.
	 */
	attempt?: number;
}

/**
 * The look-back slot an intent's key is derived from: that of the run's root start (n8n 2.x), or of
 * `clockNow` (older n8n). Slot n runs from n × lookBackMs.
 */
function intentSlot(ctx: IExecuteFunctions, lookBackMs: number, clockNow: number): number {
	const started = executionContextOf(ctx)?.establishedAt;
	const at = typeof started === 'number' ? started : clockNow;
	return Math.floor(at / Math.max(1, lookBackMs));
}

/**
 * One key per intent across executions, for runs that treat a recent job of the same input as theirs
 * (a webhook called again while its first execution still runs, on another worker): both executions
 * derive the same key before either has created, so the service replays the second create instead of
 * charging twice. The key depends on the workflow, node, input, its occurrence among the node run's
 * items, the failed jobs of that input, and the time slot (one look-back long) of the run's root
 * start (n8n 2.x keeps it in every Retry; older n8n: the time of the create). Two starts in one slot are
 * less than a look-back apart, so the key never replays what the look-back would not pick up; two calls
 * on either side of a slot's end that both create before either sees the other's job still make two (and,
 * with a view up to INTENT_VIEW_AGE_MS old, when the first one's create came after the slot's end).
 */
export function deriveIntentKey(
	ctx: IExecuteFunctions,
	purpose: string,
	body: unknown,
	parts: IntentParts,
	clockNow: number,
): string {
	const node = ctx.getNode();
	const material = [
		ctx.getWorkflow().id ?? '',
		'intent',
		String(intentSlot(ctx, parts.lookBackMs, clockNow)),
		node.id ?? node.name,
		purpose,
		canonicalJson(body),
		String(parts.occurrence),
		[...parts.failed].sort().join(','),
		String(parts.attempt ?? 0),
	].join('\u0000');
	return `n8n.intent.${purpose}.${createHash('sha256').update(material).digest('hex').slice(0, 48)}`;
}

// ---- Picking up a recent job of the same intent ----

/**
 * "Reuse Identical Recent Job":
 * - `recoveries` (default): only in runs that are most likely a recovery — n8n's Retry of an execution
 *   (mode `retry`) and a webhook call (mode `webhook`, a caller that calls again after a crash), except
 *   a message of the Chat Trigger. Schedules and other triggers (`trigger`), manual runs (`manual`), chat
 *   (`chat`, a Chat Trigger's webhook), sub-workflows (`integrated`), the CLI (`cli`), error workflows
 *   (`error`), evaluations and agents create.
 * - `unattended`: every run not started by hand (all modes but `manual`) — the default up to 0.2.0.
 * - `always` / `never`.
 * As a tool (of an AI agent, or of an MCP client through the MCP Server Trigger, whose calls run in mode
 * `webhook`) each call is its own intent whatever the setting: only n8n's Retry picks up, and only the
 * job this node used in the execution's earlier try (`never`: not even that).
 */
export type ReuseRecentJob = 'recoveries' | 'unattended' | 'always' | 'never';
export const DEFAULT_REUSE: ReuseRecentJob = 'recoveries';

/** The modes in which a repeat of the same input is most likely a recovery, not a new intent. */
const RECOVERY_MODES: readonly string[] = ['retry', 'webhook'];

/** Whether a run of `mode` (started by `triggerType`) looks for a recent job of the same input. */
function reuseAppliesTo(mode: string, triggerType: unknown, reuse: ReuseRecentJob): boolean {
	if (reuse === 'always') return true;
	if (reuse === 'never') return false;
	if (reuse === 'unattended') return mode !== 'manual';
	if (!RECOVERY_MODES.includes(mode)) return false;
	// A production Chat Trigger answers chat messages through a webhook: each message is a request.
	return !(
		mode === 'webhook' &&
		typeof triggerType === 'string' &&
		/\.chatTrigger$/i.test(triggerType)
	);
}

/**
 * Whether this run looks for a recent job of the same input before creating one. As a tool each call is
 * its own intent: a call looks only when n8n's Retry brought along the jobs this node used in the
 * execution's earlier try (an agent asked again), and picks up only those (findAdoptable).
 */
export function reuseApplies(ctx: IExecuteFunctions, reuse: ReuseRecentJob): boolean {
	if (runsAsTool(ctx)) return reuse !== 'never' && usedByThisNodeEarlier(ctx).size > 0;
	return reuseAppliesTo(ctx.getMode(), executionContextOf(ctx)?.triggerNode?.type, reuse);
}

/**
 * Whether this run creates with the intent's key (deriveIntentKey) rather than the execution's: when
 * its root run, too, took a recent job of the same input for its own, so that a Retry derives the key
 * its root did. A Retry whose root n8n does not name (older n8n) keeps the execution's key and relies
 * on the look-back.
 */
export function intentKeyApplies(ctx: IExecuteFunctions, reuse: ReuseRecentJob): boolean {
	if (runsAsTool(ctx)) return false; // a tool call is its own intent, never another call's
	const root = rootMode(ctx);
	return (
		root !== 'retry' &&
		reuseApplies(ctx, reuse) &&
		reuseAppliesTo(root, executionContextOf(ctx)?.triggerNode?.type, reuse)
	);
}

/** The JobInput as the service stores it (defaults filled in), for comparing inputs. */
function normalized(input: IDataObject | undefined): string {
	const i = input ?? {};
	return canonicalJson({
		mode: i.mode,
		prompt: i.prompt ?? '',
		sourceAssetId: i.sourceAssetId ?? null,
		referenceAssetId: i.referenceAssetId ?? null,
		personaId: i.personaId ?? null,
		durationSeconds: i.durationSeconds ?? 5,
		aspectRatio: i.aspectRatio ?? '9:16',
	});
}

const recentJobsKey = (lookBackMs: number) => `recentJobs:${lookBackMs}`;

/** When this node run first looked for a recent job (package clock). */
function lookUpBegan(run: JobRun): number {
	const began = (run.cache.get('recentJobsSince') as number | undefined) ?? now();
	run.cache.set('recentJobsSince', began);
	return began;
}

/**
 * Jobs created in the last `lookBackMs`, newest first, from the key's recent-jobs view that every
 * execution of the process shares (watch.ts recentJobsOf: at most one list look per poll interval for
 * the key, plus every job the process created or read since), from a list look sent at or after
 * `freshAfter`. What the item saw is kept for its key (failedOfInput).
 */
async function recentJobs(
	ctx: IExecuteFunctions,
	run: JobRun,
	wish: { lookBackMs: number; freshAfter: number; itemIndex: number; maxWaitSeconds?: number },
): Promise<Job[]> {
	const { lookBackMs, ...rest } = wish;
	const jobs = await recentJobsOf(ctx, { since: now() - lookBackMs, ...rest });
	run.cache.set(recentJobsKey(lookBackMs), jobs);
	return jobs;
}

/**
 * How old the recent-jobs view may be for a run whose key comes from the intent (findAdoptable, `byIntent`).
 * What a view that old may miss is a job created within that time — by an execution of the same intent,
 * which derives the same key (the service replays its job, charged once; a replayed job that failed meanwhile
 * leads to the intent's next key, as a fresh look would: createJob), or by another intent. So the look a
 * catalogue sent as webhook calls pays is one per minute per worker, not one per poll interval.
 *
 * And never a view read before the slot its key comes from began (intentFreshAfter): a call repeated across
 * a slot's end derives another key than the first call, so only the look guards it, and a view from before
 * the slot's end could miss the first call's job. A view read after the slot's end has every job created
 * before it; what it misses of the previous slot is a job whose create came after the slot's end, as a view
 * a minute old misses anywhere in the slot. A run whose key comes from the slot before (its execution
 * started before the end: a catalogue's webhook calls still creating) takes a view a minute old there too.
 */
export const INTENT_VIEW_AGE_MS = 60_000;

/**
 * The oldest list look an intent-keyed run may take the view from at `at` (see INTENT_VIEW_AGE_MS): a minute
 * before, and not before its key's slot began (nor after `at`).
 */
export function intentFreshAfter(ctx: IExecuteFunctions, lookBackMs: number, at: number): number {
	const slotStart = intentSlot(ctx, lookBackMs, at) * Math.max(1, lookBackMs);
	return Math.min(at, Math.max(at - INTENT_VIEW_AGE_MS, slotStart));
}

/** Failed jobs of exactly this input among those the look-back read (findAdoptable reads them). */
export function failedOfInput(run: JobRun, input: IDataObject, lookBackMinutes: number): string[] {
	const wanted = normalized(input);
	const recent =
		(run.cache.get(recentJobsKey(lookBackMinutes * 60_000)) as Job[] | undefined) ?? [];
	return recent
		.filter((job) => job.state === 'failed' && normalized(job.input) === wanted)
		.map((job) => job.id);
}

/** The recent job of this input the item may pick up (see findAdoptable), oldest first. */
function pickFrom(
	ctx: IExecuteFunctions,
	run: JobRun,
	input: IDataObject,
	recent: readonly Job[],
): Job | undefined {
	const wanted = normalized(input);
	const execution = ctx.getExecutionId() ?? '';
	const node = nodeKey(ctx);
	const thisExecution = new Set<string>();
	const earlierTryOfThisNode = new Set<string>();
	const earlierTryOfOtherNodes = new Set<string>();
	for (const used of recordOf(ctx)) {
		if (used.execution === execution) thisExecution.add(used.id);
		else if (used.node === node) earlierTryOfThisNode.add(used.id);
		else earlierTryOfOtherNodes.add(used.id);
	}
	// Oldest first: a retried batch picks its jobs up in the order they were created.
	const candidates = [...recent]
		.reverse()
		.filter(
			(job) =>
				job.state !== 'failed' &&
				!run.claimed.has(job.id) &&
				!thisExecution.has(job.id) &&
				(earlierTryOfThisNode.has(job.id) || !earlierTryOfOtherNodes.has(job.id)) &&
				normalized(job.input) === wanted,
		);
	const own = candidates.find((job) => earlierTryOfThisNode.has(job.id));
	return own ?? (runsAsTool(ctx) ? undefined : candidates[0]);
}

/**
 * A job created in the last `lookBackMinutes` with exactly this input, not failed, not already
 * claimed by another item of this run, and not created or picked up by this execution (another node,
 * an earlier node run) — or undefined. Jobs this node used in an earlier try of a retried execution
 * come first; as a tool only those (another call's job is never this call's). The caller claims (and
 * records) what it adopts.
 *
 * The jobs come from the process's shared view of the key (recentJobs). `byIntent` (the run's key comes
 * from the intent): a view up to INTENT_VIEW_AGE_MS old will do — what it may miss is a job created within
 * that time, e.g. by an execution of the same intent running at the same time, which derives the same key
 * (the service replays it: charged once). Otherwise (the look is the only
 * guard, e.g. n8n's Retry of a schedule's run): a list look sent after this node run began, as when each
 * run read the list itself. Either way an unfinished job is picked up only as a list look sent after this
 * run began shows it (a create answer says queued; the job may have failed since): else the next look
 * (at most one interval away) decides.
 */
export async function findAdoptable(
	ctx: IExecuteFunctions,
	run: JobRun,
	input: IDataObject,
	lookBackMinutes: number,
	itemIndex: number,
	maxWaitSeconds?: number,
	byIntent = false,
): Promise<Job | undefined> {
	const began = lookUpBegan(run);
	const wish = { lookBackMs: lookBackMinutes * 60_000, itemIndex, maxWaitSeconds };
	const { serviceKey } = await resolveService(ctx, itemIndex);
	// never a view from before a create of this process whose answer was lost (its job may be there)
	const uncertain = uncertainCreateAt(serviceKey) + 1;
	const at = now();
	const freshAfter = Math.max(
		byIntent ? intentFreshAfter(ctx, wish.lookBackMs, at) : began,
		uncertain,
	);
	const candidate = pickFrom(ctx, run, input, await recentJobs(ctx, run, { ...wish, freshAfter }));
	if (!candidate || isFinished(candidate)) return candidate;
	const known = stateOf(serviceKey, candidate.id);
	if (known?.listed && known.at >= began) return candidate;
	// a look sent after its state was learned (e.g. its create answer said queued)
	const freshAfter2 = Math.max(began, (known?.at ?? began) + 1);
	const fresh = await recentJobs(ctx, run, { ...wish, freshAfter: freshAfter2 });
	return pickFrom(ctx, run, input, fresh);
}

// ---- The jobs an execution used ----

/*
 * Jobs an execution created or picked up, shared by all its nodes: the job list does not tell which
 * execution created a job (a Job carries no key or metadata), so the nodes record it themselves in
 * the execution's flow context (n8n's `getContext('flow')`: part of the execution's data, kept while it
 * waits, and copied into a Retry of it). Each entry names the execution and the node.
 * - Same execution: never picked up again — two Create nodes (or a loop) with one input make two jobs.
 * - An earlier try of this execution (the record came with n8n's Retry): picked up only by the node
 *   that used it, and that node takes it first — the other nodes' outputs are kept by the Retry.
 * Where the flow context is not offered, a bounded process-wide record per execution id stands in.
 */
const RECORD_KEY = 'generationServiceJobs';
/** Entries kept per execution: twice the jobs the look-back can list. */
const MAX_RECORDED = MAX_VIEW_PAGES * PAGE_SIZE * 2;
/** Executions the process-wide stand-in remembers. */
const MAX_FALLBACK_EXECUTIONS = 200;

interface UsedJob {
	id: string;
	execution: string;
	node: string;
	/** The node's run in the execution (a loop runs it again); absent in records of older versions. */
	run?: number;
}

/** ≤ MAX_FALLBACK_EXECUTIONS executions (the oldest goes first), each record ≤ MAX_RECORDED entries. */
const fallbackRecords = processStore('usedJobs', new Map<string, UsedJob[]>(), (map) =>
	map.clear(),
);

function recordOf(ctx: IExecuteFunctions): UsedJob[] {
	const getContext = (ctx as Partial<IExecuteFunctions>).getContext;
	if (typeof getContext === 'function') {
		try {
			const flow = getContext.call(ctx, 'flow') as IDataObject;
			if (!Array.isArray(flow[RECORD_KEY])) flow[RECORD_KEY] = [];
			return flow[RECORD_KEY] as unknown as UsedJob[];
		} catch {
			// no execution data in this context: the process-wide record below
		}
	}
	const execution = ctx.getExecutionId() ?? '';
	let record = fallbackRecords.get(execution);
	if (!record) {
		record = [];
		keepRecent(fallbackRecords, execution, record, MAX_FALLBACK_EXECUTIONS);
	}
	return record;
}

function nodeKey(ctx: IExecuteFunctions): string {
	const node = ctx.getNode();
	return node.id ?? node.name;
}

/** Records that this execution (this node) created or picked up `jobId`. */
export function recordUsedJob(ctx: IExecuteFunctions, jobId: string): void {
	const record = recordOf(ctx);
	const execution = ctx.getExecutionId() ?? '';
	const node = nodeKey(ctx);
	if (record.some((e) => e.id === jobId && e.execution === execution && e.node === node)) return;
	record.push({ id: jobId, execution, node, run: runIndexOf(ctx) });
	if (record.length > MAX_RECORDED) record.splice(0, record.length - MAX_RECORDED);
}

/** Which run of the node this is in its execution (a loop runs it again); 0 where n8n does not say. */
function runIndexOf(ctx: IExecuteFunctions): number {
	try {
		const index = ctx.getWorkflowDataProxy(0).$thisRunIndex;
		return typeof index === 'number' ? index : 0;
	} catch {
		return 0;
	}
}

/** Jobs this node used in an earlier try of this execution (the record came with n8n's Retry). */
function usedByThisNodeEarlier(ctx: IExecuteFunctions): Set<string> {
	const execution = ctx.getExecutionId() ?? '';
	const node = nodeKey(ctx);
	return new Set(
		recordOf(ctx)
			.filter((e) => e.execution !== execution && e.node === node)
			.map((e) => e.id),
	);
}

/**
 * Whether an earlier run of this node in this execution (a loop) used `jobId`. Not n8n's "Retry On Fail"
 * (the same run again) nor n8n's Retry (another execution), which go on with the job they had.
 */
export function usedInEarlierRun(ctx: IExecuteFunctions, jobId: string): boolean {
	const execution = ctx.getExecutionId() ?? '';
	const node = nodeKey(ctx);
	const run = runIndexOf(ctx);
	return recordOf(ctx).some(
		(e) =>
			e.id === jobId &&
			e.execution === execution &&
			e.node === node &&
			e.run !== undefined &&
			e.run !== run,
	);
}
