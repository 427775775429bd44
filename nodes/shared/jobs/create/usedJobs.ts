// The jobs an execution created or picked up, by node and run: what keeps one execution from picking up
// its own jobs again, and lets a Retry of it find the jobs its earlier try used (adoption.ts reads it).
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { processStore } from '../../processState';
import { MAX_VIEW_PAGES, PAGE_SIZE } from '../follow/looks';

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

export function recordOf(ctx: IExecuteFunctions): UsedJob[] {
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
		fallbackRecords.set(execution, record);
		if (fallbackRecords.size > MAX_FALLBACK_EXECUTIONS) {
			fallbackRecords.delete(fallbackRecords.keys().next().value as string);
		}
	}
	return record;
}

export function nodeKey(ctx: IExecuteFunctions): string {
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
export function usedByThisNodeEarlier(ctx: IExecuteFunctions): Set<string> {
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
