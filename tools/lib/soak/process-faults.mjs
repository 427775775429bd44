// The soak's process faults: SIGKILL a worker while its execution waits for a job and while it downloads, restart
// the main, restart Redis — each once per 10-minute block of load at a seeded moment (a short soak gets one of
// each; runSoak's processFaultKinds picks some). Every planned fault runs (the load goes on until the last one is
// done); one that cannot be done in time is counted as not done.
import { secs } from '../format.mjs';
import { pause, waitUntil } from '../wait.mjs';
import { RUNNING_STATUSES } from './judge.mjs';
import { count } from './run-state.mjs';
import { WF } from './settings.mjs';

/** The process faults, in the order of their moments within each 10-minute block of load. */
export const PROCESS_FAULTS = [
	'SIGKILL a worker mid-wait',
	'SIGKILL a worker mid-download',
	'restart the main',
	'restart Redis',
];

/**
 * The seeded moments of the process faults of `kinds` (ms since the load started): in each 10-minute block
 * (at least one), the faults of PROCESS_FAULTS in that order, each within its fifth of the block. Draws from
 * `rand` for every fault of PROCESS_FAULTS, planned or not (so a subset keeps the others' moments).
 */
export function planProcessFaults({ minutes, loadMs, rand, kinds }) {
	const blocks = Math.max(1, Math.round(minutes / 10));
	const plan = [];
	for (let b = 0; b < blocks; b++) {
		const start = (b * loadMs) / blocks;
		const len = loadMs / blocks;
		PROCESS_FAULTS.forEach((kind, i) => {
			const at = start + len * (0.1 + 0.2 * i + 0.15 * rand());
			if (kinds.includes(kind)) plan.push({ at, kind });
		});
	}
	return plan;
}

const runningOf = async (stack, workflowId) =>
	(await stack.executions(workflowId)).filter((e) => RUNNING_STATUSES.includes(e.status));

/** Workers running no trigger-path execution: a worker killed during one loses that poll's items (n8n). */
async function killableWorkers({ stack, workerNames }) {
	const busy = new Set(
		(await runningOf(stack, WF.deliver)).map((e) => stack.workerOfExecution(e.id)).filter(Boolean),
	);
	return workerNames.filter((w) => !busy.has(w));
}

/** Jobs a worker created (its log) that are now in state `states`. */
function jobsOfWorker({ stack, emu }, worker, states) {
	const ids = [
		...stack.logOf(worker).matchAll(/Generation Service job (job_[0-9a-f]+) created/g),
	].map((m) => m[1]);
	const byId = new Map(emu.control.jobs().map((j) => [j.id, j]));
	return ids.filter((id) => states.includes(byId.get(id)?.state));
}

async function killAndRestart({ stack, state, log }, kind, worker) {
	const killed = await stack.killWorker(worker);
	count(state.stats.processFaults, kind);
	log(`${state.stamp()}  ${kind}: ${worker} (pid ${killed.pid}) SIGKILLed; restarting it`);
	await stack.startWorker(worker);
}

/** Make the next jobs long, then kill a worker that follows a running job. */
async function killMidWait(ctx) {
	ctx.emu.control.scriptJobs([{ runningMs: 20_000 }, { runningMs: 20_000 }]);
	return waitUntil(
		'a worker waiting for a job',
		async () => {
			for (const w of await killableWorkers(ctx)) {
				if (jobsOfWorker(ctx, w, ['running']).length) {
					await killAndRestart(ctx, 'SIGKILL a worker mid-wait', w);
					return true;
				}
			}
			return false;
		},
		{ timeoutMs: 90_000, everyMs: 500 },
	);
}

/** How long a download of key B is held (under the node's 60 s timeout), and how long of it a kill is sought. */
const HOLD_MS = 40_000;
const KILL_WITHIN_MS = 34_000;
/** Downloads held in turn until one's execution runs on a killable worker. */
const DOWNLOAD_TRIES = 5;

/**
 * Hold the next download answer of key B (the replace workflow's Download Output) for HOLD_MS; once held (the
 * fault is used up when the request arrives), kill the worker running that execution, if that worker runs no
 * trigger-path execution then (killableWorkers). While it waits for the download the batch callers make no new
 * call: a replace execution shares key A with every batch execution, and behind a busy stretch of theirs its
 * download came minutes later, after the 180 s this waits (two CI runs of 3fe0680 and of an earlier commit: not
 * done both times, and the load held 130 s longer waiting for it). Before that, no new service fault is injected
 * until those already armed have been used (by the batch calls, still running then): once the batch callers are
 * held, the replace call is the only one left to meet a fault armed for any request (a read answered after the
 * timeout, a 429 storm; in a CI run of 1f834fa the replace call in flight took about 160 s and then failed).
 * Both holds end as soon as a download is held, so the soak's service faults and batch calls go on while a
 * kill is sought. The worker holding a download may be running the trigger path's execution (each minute's
 * poll, whose downloads on key A can take a minute and more behind the batch calls): then the next download is
 * held, up to DOWNLOAD_TRIES times (a CI run of 05be84e: three tries of 12 s each found the held download's
 * worker busy, and the fault, holding every service fault for 103 s, was not done).
 */
async function killMidDownload(ctx) {
	const { stack, emu, keys, state, log } = ctx;
	const armed = () =>
		emu.control.faults().some((f) => f.action === 'delay' && f.keyId === keys.b.keyId);
	for (let tries = 1; tries <= DOWNLOAD_TRIES; tries++) {
		try {
			state.faultsHeld = true;
			await waitUntil('the armed service faults used', () => emu.control.faults().length === 0, {
				timeoutMs: 60_000,
				everyMs: 300,
			}).catch(() => undefined); // still armed after a minute: held on anyway
			emu.control.injectFault({
				method: 'GET',
				path: /^\/v1\/jobs\/[^/]+\/output$/,
				keyId: keys.b.keyId,
				action: 'delay',
				delayMs: HOLD_MS,
			});
			state.batchHeld = true;
			await waitUntil('a download held', () => !armed(), { timeoutMs: 180_000, everyMs: 300 });
		} finally {
			state.batchHeld = false;
			state.faultsHeld = false;
		}
		const heldAt = Date.now();
		const seen = new Set();
		while (Date.now() - heldAt < KILL_WITHIN_MS) {
			const killable = await killableWorkers(ctx);
			for (const e of await runningOf(stack, WF.replace)) {
				const w = stack.workerOfExecution(e.id);
				if (w && killable.includes(w)) {
					await killAndRestart(ctx, 'SIGKILL a worker mid-download', w);
					return true;
				}
				if (w) seen.add(`execution ${e.id} on ${w}`);
			}
			await pause(300);
		}
		log(
			`${state.stamp()}  SIGKILL a worker mid-download: try ${tries} of ${DOWNLOAD_TRIES}, no killable worker in ${secs(KILL_WITHIN_MS)} of the held download (replace executions seen running: ${[...seen].join(', ') || 'none'})`,
		);
	}
	throw new Error(`no killable worker while a download was held (${DOWNLOAD_TRIES} tries)`);
}

async function restartMain({ stack, pollSecond, state, log }) {
	if (!stack.workers.length) {
		// regular mode: the trigger path's executions run in the main itself, and n8n keeps a poll's
		// cursor when the execution it started is lost (a main stopped at a poll lost that poll's 40
		// items): as with a worker in queue mode, restart it while no such execution runs nor starts
		const nearPoll = () => {
			const s = new Date().getUTCSeconds();
			const d = (s - pollSecond + 60) % 60;
			return d <= 3 || d >= 50;
		};
		await waitUntil(
			'no trigger-path execution running nor due',
			async () => !nearPoll() && (await runningOf(stack, WF.deliver)).length === 0,
			{ timeoutMs: 180_000, everyMs: 500 },
		);
	}
	const r = await stack.restartMain();
	count(state.stats.processFaults, 'restart the main');
	log(
		`${state.stamp()}  restart the main: stopped in ${secs(r.stopped.ms)}, ready in ${secs(r.started.ms)}`,
	);
}

async function restartRedis({ stack, state, log }) {
	const r = await stack.restartRedis();
	state.redisRestartedAt.push(Date.now());
	count(state.stats.processFaults, 'restart Redis');
	log(`${state.stamp()}  restart Redis: back in ${secs(r.ms)}`);
}

const ACTIONS = {
	'SIGKILL a worker mid-wait': killMidWait,
	'SIGKILL a worker mid-download': killMidDownload,
	'restart the main': restartMain,
	'restart Redis': restartRedis,
};

/**
 * The process faults' actions on this stack: kind → async () => …; `pollSecond`: the trigger's second of each
 * minute. The workers are those running now (a stack may hold workers started later, e.g. the queue-mode
 * suite's test f).
 */
export function processFaultActions({ stack, emu, keys, pollSecond, state, log }) {
	const workerNames = stack.workers.filter((w) => w.pid !== undefined).map((w) => w.name);
	const ctx = { stack, emu, keys, pollSecond, state, log, workerNames };
	return Object.fromEntries(Object.entries(ACTIONS).map(([kind, act]) => [kind, () => act(ctx)]));
}

/** Run each planned fault at its moment (ms since `state.t0`); one that throws is counted as not done. */
export async function runProcessFaults(plan, actions, { state, log }) {
	for (const step of plan) {
		if (state.elapsed() < step.at) await pause(step.at - state.elapsed());
		try {
			await actions[step.kind]();
		} catch (error) {
			count(state.stats.skipped, step.kind);
			log(`${state.stamp()}  ${step.kind}: not done (${error.message.split('\n')[0]})`);
		}
	}
}
