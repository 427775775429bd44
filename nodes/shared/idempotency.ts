import { createHash, randomUUID } from 'crypto';
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { runsAsTool } from './agent';
import { IDEMPOTENCY_KEY_PATTERN } from './constants';
import { runStore } from './processState';

const KEY_RE = new RegExp(IDEMPOTENCY_KEY_PATTERN);

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
export function executionContextOf(ctx: IExecuteFunctions): ExecutionContextFields | undefined {
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
export function executionAnchor(ctx: IExecuteFunctions): string {
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
 * key, so the transport's own retries, n8n's "Retry On Fail" and n8n's Retry of a failed (or
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
export function rootMode(ctx: IExecuteFunctions): string {
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
 * One key per intent across executions, for runs that treat a recent job of the same input as theirs
 * (a webhook called again while its first execution still runs, on another worker): both executions
 * derive the same key before either has created, so the service replays the second create instead of
 * charging twice. The key depends on the workflow, node, input, its occurrence among the node run's
 * items, the failed jobs of that input, and the time slot (one look-back long) of the run's root
 * start (n8n 2.x keeps it in every Retry; older n8n: the time of the create). Two starts in one slot are
 * less than a look-back apart, so the key never replays what the look-back would not pick up; two calls
 * on either side of a slot's end that both create before either sees the other's job still make two.
 */
export function deriveIntentKey(
	ctx: IExecuteFunctions,
	purpose: string,
	body: unknown,
	parts: IntentParts,
	clockNow: number,
): string {
	const node = ctx.getNode();
	const started = executionContextOf(ctx)?.establishedAt;
	const at = typeof started === 'number' ? started : clockNow;
	const material = [
		ctx.getWorkflow().id ?? '',
		'intent',
		String(Math.floor(at / Math.max(1, parts.lookBackMs))),
		node.id ?? node.name,
		purpose,
		canonicalJson(body),
		String(parts.occurrence),
		[...parts.failed].sort().join(','),
		String(parts.attempt ?? 0),
	].join('\u0000');
	return `n8n.intent.${purpose}.${createHash('sha256').update(material).digest('hex').slice(0, 48)}`;
}

/** The key of an upload is the file's sha256: the same bytes always replay the existing asset. */
export function uploadIdempotencyKey(sha256: string): string {
	return `asset.sha256.${sha256}`;
}

export function isValidIdempotencyKey(key: string): boolean {
	return KEY_RE.test(key);
}

/** A user-given key (e.g. a row id) is checked locally so a bad one costs no request. */
export function checkIdempotencyKey(
	ctx: IExecuteFunctions,
	key: string,
	itemIndex: number,
): string {
	if (!isValidIdempotencyKey(key)) {
		throw new NodeOperationError(
			ctx.getNode(),
			`Idempotency Key "${key}" is not valid: it must be 16 to 128 characters from A-Z a-z 0-9 _ . : - (it is ${key.length} characters long).`,
			{ itemIndex },
		);
	}
	return key;
}
