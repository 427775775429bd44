// Picking up a job this intent already created (same input, recent, not failed), so a retried,
// recovered or re-run execution does not pay again — while deliberate repeats create.
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { runsAsTool } from '../../agent';
import { canonicalJson, executionContextOf, rootMode } from '../../idempotency';
import type { JobRun } from '../run';
import { now, resolveService } from '../../transport';
import type { Job } from '../job';
import { MIN_POLL_MS, isFinished } from '../job';
import { stateOf, uncertainCreateAt } from '../follow/recent';
import { nodeKey, recordOf, usedByThisNodeEarlier } from './usedJobs';
import { recentJobsOf } from '../follow/watcher';

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
 * execution of the process shares (watcher.ts recentJobsOf: at most one list look per poll interval for
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
 * from the intent): a view up to one poll interval old will do — what it may miss is a job another
 * process created within that interval, i.e. an execution of the same intent running at the same time,
 * which derives the same key (the service replays it: charged once). Otherwise (the look is the only
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
	const freshAfter = Math.max(byIntent ? now() - MIN_POLL_MS : began, uncertain);
	const candidate = pickFrom(ctx, run, input, await recentJobs(ctx, run, { ...wish, freshAfter }));
	if (!candidate || isFinished(candidate)) return candidate;
	const known = stateOf(serviceKey, candidate.id);
	if (known?.listed && known.at >= began) return candidate;
	// a look sent after its state was learned (e.g. its create answer said queued)
	const freshAfter2 = Math.max(began, (known?.at ?? began) + 1);
	const fresh = await recentJobs(ctx, run, { ...wish, freshAfter: freshAfter2 });
	return pickFrom(ctx, run, input, fresh);
}
