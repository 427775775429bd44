// One soak run on a prepared stack (setup.mjs): it schedules and runs the load (load.mjs), the service faults
// (faults.mjs) and the process faults (process-faults.mjs) while the watchers collect facts (watchers.mjs) and
// the monitor samples (monitor.mjs); then it waits for the stack to drain, checks the outcomes (checks.mjs),
// judges the referee's violations and the executions (judge.mjs) and reports (report.mjs).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { secs } from '../format.mjs';
import { pause, waitUntil } from '../wait.mjs';
import { allDelivered, checkOutcomes, jobsFinished, soakJobsOf, soakProblems } from './checks.mjs';
import { ipLimitSwitch, prng, serviceFaultLoop } from './faults.mjs';
import { judgeExecutions, judgeViolations, stillRunning } from './judge.mjs';
import { startCallers } from './load.mjs';
import { runMonitor } from './monitor.mjs';
import {
	PROCESS_FAULTS,
	planProcessFaults,
	processFaultActions,
	runProcessFaults,
} from './process-faults.mjs';
import { soakReport } from './report.mjs';
import { runState } from './run-state.mjs';
import { RATE_WINDOW_MS, SOAK_EMULATOR } from './settings.mjs';
import { watchFacts } from './watchers.mjs';

/** The emulator as the soak wants it: the soak's window and job timing, no violations, faults nor IP limit. */
function resetEmulator(emu) {
	emu.control.setSettings({ rateWindowMs: RATE_WINDOW_MS });
	emu.control.setJobTiming(SOAK_EMULATOR.jobTiming);
	emu.control.clearViolations();
	emu.control.clearFaults();
	emu.control.setSettings({ ipLimit: null });
}

/**
 * Before the load: the seeded streams (one per actor, so the faults' schedule does not depend on how the
 * callers' calls interleave), the run's state, the emulator reset, the watchers, what existed before, the
 * monitor and the process faults' plan. Returns the run: the options with all of these.
 */
async function prepareRun(options) {
	const { stack, emu, prepared, minutes, seed, log } = options;
	const { sink, keys } = prepared;
	const run = { ...options, sink, keys, loadMs: minutes * 60_000 };
	const rand = prng(seed); // the process faults' moments
	run.faultRand = prng(seed ^ 0x5eed5eed); // the service faults: moments, kinds, parameters
	run.callerRand = [1, 2, 3].map((i) => prng(seed + i * 7919)); // each caller's batches and pauses
	const state = (run.state = runState());
	resetEmulator(emu);
	run.watcher = watchFacts({ stack, emu, sharedKeyId: keys.a.keyId });
	run.ipLimit = ipLimitSwitch(emu);
	const jobsBefore = new Set(emu.control.jobs().map((j) => j.id));
	run.execsBefore = new Set((await stack.allExecutions()).map((e) => String(e.id)));
	/** The soak's jobs now: created since it started, for an intent its callers asked for. */
	run.soakJobs = () => soakJobsOf(emu.control.jobs(), { jobsBefore, intents: state.intents });
	run.monitor = runMonitor({ stack, emu, sink, state, log, jobsBefore });
	const { pollSecond } = prepared;
	run.actions = processFaultActions({ stack, emu, keys, pollSecond, state, log });
	run.plan = planProcessFaults({
		minutes,
		loadMs: run.loadMs,
		rand,
		kinds: options.processFaultKinds,
	});
	return run;
}

/**
 * The load: callers, service faults and process faults, until the load's time is up and every planned
 * process fault is done; then the callers' last calls, and no fault nor IP limit left.
 */
async function runLoad(run) {
	const { stack, emu, keys, seed, video, state, log, monitor, ipLimit, loadMs, plan } = run;
	log(
		`soak: seed ${seed}, ${run.minutes} min of load, then up to ${run.drainMinutes} min to drain; process faults at ${plan.map((p) => `${p.kind} ${secs(p.at)}`).join(', ')}`,
	);
	monitor.start(loadMs);
	const callers = startCallers({ stack, state, seed, video, rands: run.callerRand });
	const processDone = runProcessFaults(plan, run.actions, { state, log });
	const faultsDone = serviceFaultLoop({ emu, keys, rand: run.faultRand, ipLimit, state, log });
	await pause(loadMs);
	await processDone;
	state.stopping = true;
	log(`${state.stamp()}  load ends; waiting for the callers' last calls`);
	await Promise.all(callers);
	await faultsDone;
	emu.control.clearFaults();
	ipLimit.lift();
	monitor.endLoad();
}

/**
 * The drain: wait (up to `drainMinutes`) until every soak job finished, no soak execution runs and every
 * succeeded job was delivered; then the monitor's last sample. Returns { drained, drainMs }.
 */
async function drain({ stack, sink, execsBefore, state, drainMinutes, soakJobs, monitor }) {
	const drainedNow = async () => {
		const jobs = soakJobs();
		if (!jobsFinished(jobs)) return false;
		const byWorker = stack.executionsByWorker();
		const running = (await stack.allExecutions()).filter(
			(e) => !execsBefore.has(String(e.id)) && stillRunning(e, byWorker, state.redisRestartedAt),
		);
		if (running.length) return false;
		return allDelivered(jobs, sink.deliveries);
	};
	const drainStart = Date.now();
	let drained;
	try {
		drained = await waitUntil('drained', drainedNow, {
			timeoutMs: drainMinutes * 60_000,
			everyMs: 5000,
		});
	} catch {
		drained = false;
	}
	const drainMs = Date.now() - drainStart;
	monitor.stop();
	return { drained, drainMs };
}

/**
 * Processes sharing a limit (key A, used by every execution; the IP all of them send from) learn of each
 * other only from the service's answers (a documented limit): the judge tells their collisions from a process
 * ignoring what it was itself told (judge.mjs), and which executions were left running or lost with Redis's
 * queue. Returns the judge's verdicts with the executions.
 */
async function judgeRun({ stack, emu, keys, facts, execsBefore, state }) {
	const settings = emu.control.settings();
	const { violations, collisions } = judgeViolations(emu.control.violations(), facts, {
		sharedKeyId: keys.a.keyId,
		rateWindowMs: RATE_WINDOW_MS,
		graceMs: settings.inFlightGraceMs,
		minPollIntervalMs: settings.minPollIntervalMs,
	});
	const executions = (await stack.allExecutions()).filter((e) => !execsBefore.has(String(e.id)));
	const byWorker = stack.executionsByWorker();
	const { lostWithQueue, leftRunning } = judgeExecutions(executions, {
		byWorker,
		redisRestartedAt: state.redisRestartedAt,
	});
	const judged = { violations, collisions, leftRunning, lostWithQueue, entries: facts.entries };
	return { executions, byWorker, judged };
}

/**
 * A run with violations keeps what the emulator saw (its journal: every request with its arrival, status,
 * fault and client port) and the watchers' facts (the process behind each request judged) in a file outside
 * the repo, named in the log: the requests around a violation tell which client step made it.
 */
function keepJournal(run, emu, facts) {
	const file = path.join(os.tmpdir(), `gs-soak-journal-${run.seed}-${Date.now()}.json`);
	const kept = { journal: emu.control.journal(), violations: emu.control.violations(), facts };
	const plain = (_key, value) => (value instanceof Map ? [...value] : value);
	fs.writeFileSync(file, JSON.stringify(kept, plain, 1));
	run.log(`violations: the emulator's journal and the watchers' facts are kept in ${file}`);
}

/** After the drain: the outcomes checked, the violations and executions judged, the report. */
async function reportRun(run, { drained, drainMs }) {
	const { stack, emu, keys, sink, state, watcher, execsBefore, drainMinutes } = run;
	const jobs = run.soakJobs();
	const ledger = emu.control.ledger();
	const outcomes = checkOutcomes({ jobs, ledger, deliveries: sink.deliveries });
	watcher.stop();
	const { facts } = watcher;
	const verdicts = await judgeRun({ stack, emu, keys, facts, execsBefore, state });
	const { executions, byWorker, judged } = verdicts;
	const { violations, leftRunning } = judged;
	const t0 = state.t0;
	const problems = soakProblems({ drained, drainMinutes, outcomes, violations, leftRunning, t0 });
	if (violations.length) keepJournal(run, emu, facts);
	const summary = {
		seed: run.seed,
		minutes: run.minutes,
		wallMs: state.elapsed(),
		drainMs,
		stats: state.stats,
		intents: state.intents.size,
		requests: emu.control.journal().length,
		rss: run.monitor.rss,
	};
	const delivered = sink.deliveries.size;
	const report = { run: summary, jobs, outcomes, delivered, executions, byWorker, judged };
	return soakReport({ ...report, keys, problems });
}

/**
 * Run the soak on a stack prepared with setupSoak (and publishSoak). Returns a report object (report.mjs);
 * `report.problems` lists every failed check (empty = passed). Prints progress through `log`.
 */
export async function runSoak({
	stack,
	emu,
	prepared,
	minutes,
	seed,
	log,
	video,
	drainMinutes = 5,
	processFaultKinds = PROCESS_FAULTS,
}) {
	const options = { stack, emu, prepared, minutes, seed, log, video };
	const run = await prepareRun({ ...options, drainMinutes, processFaultKinds });
	await runLoad(run);
	const { drained, drainMs } = await drain(run);
	return reportRun(run, { drained, drainMs });
}
