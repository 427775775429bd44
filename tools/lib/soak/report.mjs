// The soak's report: the object runSoak returns (and --json writes), built from what the run recorded and the
// checks' and the judge's verdicts, and its human summary (formatReport, also what docs/reliability.md quotes).
import { secs } from '../format.mjs';
import { countBy } from './checks.mjs';
import {
	countCollisionKinds,
	describeCollisions,
	ipLimitedByRole,
	reportedCollisions,
} from './judge.mjs';
import { rssReport } from './monitor.mjs';

/** A key's label in the report's collisions: A, B, C, else its id. */
const keyLabelOf = (keys) => (keyId) =>
	keyId === keys.a.keyId
		? 'A'
		: keyId === keys.b.keyId
			? 'B'
			: keyId === keys.c.keyId
				? 'C'
				: keyId;

/**
 * The report of a run: `run` ({ seed, minutes, wallMs, drainMs, stats, intents (how many), requests, rss }),
 * the soak's `jobs` and their `outcomes` (checks.mjs checkOutcomes), `delivered` (how many jobs the sink got),
 * its `executions` with `byWorker` (execution id → worker), the judge's verdicts (`violations`, `collisions`,
 * `leftRunning`, `lostWithQueue`, `entries`: the journal records), the soak's `keys` and its `problems`.
 */
export function soakReport({
	run,
	jobs,
	outcomes,
	delivered,
	executions,
	byWorker,
	judged,
	keys,
	problems,
}) {
	const { stats } = run;
	const { violations, collisions, leftRunning, lostWithQueue, entries } = judged;
	const report = {
		seed: run.seed,
		minutes: run.minutes,
		wallMs: run.wallMs,
		drainMs: run.drainMs,
		calls: stats.calls,
		attempts: stats.attempts,
		failedAttempts: stats.failedAttempts,
		abandoned: stats.abandoned,
		intents: run.intents,
		items: stats.items,
		jobs: jobs.length,
		jobStates: countBy(jobs, (j) => j.state),
		adoptedOrReplayed: run.intents - outcomes.byIntent.size,
		delivered,
		requests: run.requests,
		faults: stats.faults,
		processFaults: stats.processFaults,
		skippedProcessFaults: stats.skipped,
		executions: executions.length,
		executionStatus: countBy(executions, (e) => `${e.workflowId}: ${e.status}`),
		executionsPerWorker: countBy(executions, (e) => byWorker[e.id] ?? 'no worker logged'),
		duplicates: outcomes.duplicates.length,
		chargedTwice: outcomes.chargedTwice.length,
		lost: outcomes.lost.length,
		deliveredTwice: outcomes.twice.length,
		violations: violations.length,
		sharedKeyCollisions: countCollisionKinds(collisions, (id) => (id === keys.a.keyId ? 'A' : id)),
		// each collision: kind, key, then for an early arrival process (the early one), toldProcess, afterMs
		// (since the other was told), earlyMs (before its wait ended); for a list look process, ownCredit (the
		// first-page looks it had left by itself, judged alone) and sharedWith (the other processes that looked
		// at that key's list while its budget refilled); for a used-up window process and sharedWith (the other
		// processes whose requests counted in that window)
		collisions: reportedCollisions(collisions, keyLabelOf(keys)),
		ipLimited: ipLimitedByRole(entries), // process name -> 429 ip_rate_limited answers it got
		leftRunning: leftRunning.length,
		// executions the main enqueued before a Redis restart that no worker started (n8n leaves them `new`)
		lostWithQueue: lostWithQueue.map((e) => `${e.id} (${e.workflowId})`),
		ledgerInvariant: outcomes.ledgerInvariant,
		rss: rssReport(run.rss),
		problems,
	};
	report.collisionNote = collisions.length ? describeCollisions(report) : '';
	return report;
}

/** Human summary of a report (also what docs/reliability.md quotes). */
export function formatReport(r) {
	const warm = r.rss.find((x) => x.label === 'after warm-up') ?? r.rss[0];
	const end = r.rss[r.rss.length - 1];
	const lines = [
		`seed ${r.seed}, ${r.minutes} min of load, wall ${secs(r.wallMs)} (drain ${secs(r.drainMs)})`,
		`calls: batch ${r.calls.batch}, replace ${r.calls.replace}; attempts ${r.attempts.batch}+${r.attempts.replace}; failed attempts ${JSON.stringify(r.failedAttempts)}; abandoned ${r.abandoned.length}`,
		`intents ${r.intents} (items), jobs ${r.jobs} ${JSON.stringify(r.jobStates)}, delivered ${r.delivered}, API requests ${r.requests}`,
		`service faults ${JSON.stringify(r.faults)}`,
		`process faults ${JSON.stringify(r.processFaults)}${Object.keys(r.skippedProcessFaults).length ? `, not done ${JSON.stringify(r.skippedProcessFaults)}` : ''}`,
		`executions ${r.executions} ${JSON.stringify(r.executionStatus)}; per worker ${JSON.stringify(r.executionsPerWorker)}`,
		`429 ip_rate_limited answers per process ${JSON.stringify(r.ipLimited)}`,
		`duplicate jobs ${r.duplicates}, intents charged twice ${r.chargedTwice}, lost outputs ${r.lost}, delivered twice ${r.deliveredTwice}, referee violations ${r.violations} (+ collisions of processes sharing a limit ${JSON.stringify(r.sharedKeyCollisions)}), left running ${r.leftRunning} (+ lost with Redis's queue, never started: ${r.lostWithQueue.length ? r.lostWithQueue.join(', ') : 'none'}), ledger invariant ${r.ledgerInvariant}`,
		`RSS MiB after warm-up (${warm?.at} s): ${JSON.stringify(warm?.mib)}; at the end (${end?.at} s): ${JSON.stringify(end?.mib)}`,
		`RSS MiB over time: ${r.rss.map((x) => `${x.at}s ${Object.values(x.mib).join('/')}`).join(', ')} (${Object.keys(end?.mib ?? {}).join('/')})`,
		r.collisionNote
			? `COLLISIONS: ${r.collisionNote}`
			: 'no collisions of processes sharing a limit',
		r.problems.length ? `PROBLEMS:\n  ${r.problems.join('\n  ')}` : 'all other checks passed',
	];
	return lines.join('\n');
}
