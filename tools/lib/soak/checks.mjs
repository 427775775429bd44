// The soak's end-of-run checks, as pure functions over what it recorded: the emulator's jobs and ledger entries,
// the sink's deliveries (job id → [{ sha256, bytes, at }]) and the judge's verdicts (judge.mjs). No I/O, no
// timers, no clock (unit-tested in test/tools/soak-checks.test.mjs).
//
//   duplicates      an intent (a prompt, or a replacement's duration and ratio) with more than one job not failed
//   charged twice   an intent with more than one job settled in the ledger
//   reserved ≠ once a job whose credits were reserved other than exactly once
//   lost            a succeeded job whose MP4 the sink never got
//   delivered twice a succeeded job whose MP4 the sink got more than once
//   wrong sha256    a delivery whose bytes are not the job's output (its sha256)
//   unknown         a delivery of a job that is not one of the soak's succeeded jobs
//   ledger          the emulator's own invariant of the account's ledger (its `invariantHolds`)
import { violationsProblem } from './judge.mjs';

/** What one caller's item asks for: a prompt, or (a replacement has none) its mode, duration and ratio. */
export const intentOf = (input) =>
	input.mode === 'character_replacement'
		? `replace ${input.durationSeconds} ${input.aspectRatio}`
		: `prompt ${input.prompt}`;

/** The soak's jobs: created since it started (not in `jobsBefore`), for an intent its callers asked for. */
export const soakJobsOf = (jobs, { jobsBefore, intents }) =>
	jobs.filter((j) => !jobsBefore.has(j.id) && intents.has(intentOf(j.input)));

/** Whether no job is queued or running any more. */
export const jobsFinished = (jobs) => !jobs.some((j) => ['queued', 'running'].includes(j.state));

/** Whether every succeeded job was delivered to the sink. */
export const allDelivered = (jobs, deliveries) =>
	jobs.filter((j) => j.state === 'succeeded').every((j) => deliveries.has(j.id));

/** `list` counted by `keyOf(item)`: { key: n }, keys in order of first appearance. */
export function countBy(list, keyOf) {
	const out = {};
	for (const x of list) out[keyOf(x)] = (out[keyOf(x)] ?? 0) + 1;
	return out;
}

/** The jobs grouped by intent: intent → [job]. */
export function jobsByIntent(jobs) {
	const byIntent = new Map();
	for (const j of jobs) {
		if (!byIntent.has(intentOf(j.input))) byIntent.set(intentOf(j.input), []);
		byIntent.get(intentOf(j.input)).push(j);
	}
	return byIntent;
}

/** Settle and reserve entries per job in the ledger: { settles, reserves } (job id → count). */
export function ledgerCounts(entries) {
	const settles = new Map();
	const reserves = new Map();
	for (const e of entries) {
		const m = e.kind === 'settle' ? settles : e.kind === 'reserve' ? reserves : undefined;
		if (m) m.set(e.jobId, (m.get(e.jobId) ?? 0) + 1);
	}
	return { settles, reserves };
}

/** Intents with more than one job not failed: [{ prompt (the intent), jobs (ids) }]. */
export function duplicateJobs(byIntent) {
	const out = [];
	for (const [prompt, list] of byIntent) {
		const live = list.filter((j) => j.state !== 'failed');
		if (live.length > 1) out.push({ prompt, jobs: live.map((j) => j.id) });
	}
	return out;
}

/** Intents with more than one job settled (`settles`: job id → count): [{ prompt, jobs }]. */
export function chargedTwice(byIntent, settles) {
	const out = [];
	for (const [prompt, list] of byIntent) {
		const charged = list.filter((j) => settles.get(j.id));
		if (charged.length > 1) out.push({ prompt, jobs: charged.map((j) => j.id) });
	}
	return out;
}

/** Jobs reserved other than exactly once (`reserves`: job id → count): their ids. */
export const reservedNotOnce = (jobs, reserves) =>
	jobs.filter((j) => (reserves.get(j.id) ?? 0) !== 1).map((j) => j.id);

/** Succeeded jobs the sink never got: their ids. */
export const lostOutputs = (succeeded, deliveries) =>
	succeeded.filter((j) => !deliveries.has(j.id)).map((j) => j.id);

/** Succeeded jobs the sink got more than once: their ids. */
export const deliveredTwice = (succeeded, deliveries) =>
	succeeded.filter((j) => (deliveries.get(j.id)?.length ?? 0) > 1).map((j) => j.id);

/** Succeeded jobs with a delivery whose sha256 is not their output's: their ids. */
export const wrongSha256 = (succeeded, deliveries) =>
	succeeded
		.filter((j) => (deliveries.get(j.id) ?? []).some((d) => d.sha256 !== j.output.sha256))
		.map((j) => j.id);

/** Deliveries of jobs that are not among the succeeded ones: their job ids. */
export const unknownDeliveries = (succeeded, deliveries) =>
	[...deliveries.keys()].filter((id) => !succeeded.some((j) => j.id === id));

/**
 * The soak's jobs checked against the ledger (`{ entries, invariantHolds }`) and the sink's deliveries:
 * { byIntent, duplicates, chargedTwice, doubleReserve, lost, twice, badSha, strangers, ledgerInvariant }.
 */
export function checkOutcomes({ jobs, ledger, deliveries }) {
	const byIntent = jobsByIntent(jobs);
	const { settles, reserves } = ledgerCounts(ledger.entries);
	const succeeded = jobs.filter((j) => j.state === 'succeeded');
	return {
		byIntent,
		duplicates: duplicateJobs(byIntent),
		chargedTwice: chargedTwice(byIntent, settles),
		doubleReserve: reservedNotOnce(jobs, reserves),
		lost: lostOutputs(succeeded, deliveries),
		twice: deliveredTwice(succeeded, deliveries),
		badSha: wrongSha256(succeeded, deliveries),
		strangers: unknownDeliveries(succeeded, deliveries),
		ledgerInvariant: ledger.invariantHolds,
	};
}

/**
 * The soak's problems (empty: passed), one line each, in this order: not drained, the outcomes' checks
 * (checkOutcomes), the ledger invariant, the referee's violations (judge.mjs; times since `t0`), executions
 * left running.
 */
export function soakProblems({ drained, drainMinutes, outcomes: o, violations, leftRunning, t0 }) {
	const problems = [];
	if (!drained) problems.push(`not drained after ${drainMinutes} min`);
	if (o.duplicates.length) problems.push(`duplicate jobs: ${JSON.stringify(o.duplicates)}`);
	if (o.chargedTwice.length)
		problems.push(`intents charged twice: ${JSON.stringify(o.chargedTwice)}`);
	if (o.doubleReserve.length) problems.push(`jobs reserved ≠ once: ${o.doubleReserve.join(', ')}`);
	if (o.lost.length) problems.push(`outputs lost (never delivered): ${o.lost.join(', ')}`);
	if (o.twice.length) problems.push(`outputs delivered twice: ${o.twice.join(', ')}`);
	if (o.badSha.length) problems.push(`outputs with a wrong sha256: ${o.badSha.join(', ')}`);
	if (o.strangers.length) problems.push(`deliveries of unknown jobs: ${o.strangers.join(', ')}`);
	if (!o.ledgerInvariant) problems.push('the ledger invariant does not hold');
	if (violations.length) problems.push(violationsProblem(violations, t0));
	if (leftRunning.length)
		problems.push(
			`executions left running: ${leftRunning.map((e) => `${e.id} (${e.workflowId}, ${e.status})`).join(', ')}`,
		);
	return problems;
}
