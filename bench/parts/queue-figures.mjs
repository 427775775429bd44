// The figures of part 6 (queue mode) from what it collected, as pure functions (unit-tested in
// test/tools/bench-queue.test.mjs): worker slots from the workers' log lines, the main's execution list
// sampled over time, the MP4s the sink received, requests by process, the goal's request budget, and the
// referee's records of a key told apart (part 7 uses them too).
import { judgeViolations } from '../../tools/lib/soak/judge.mjs';

/** "Worker started execution 12 (job 15)" / "Worker finished execution 12 (job 15)" → { kind, executionId, bullJob }. */
export function workerLogEvent(line) {
	const m = /Worker (started|finished) execution (\d+) \(job ([^)]+)\)/.exec(line);
	return m ? { kind: m[1], executionId: m[2], bullJob: m[3] } : undefined;
}

/**
 * A worker slot per queue job a worker ran: [{ worker, executionId, from, to, open }] from its log events
 * ({ worker, kind, executionId, bullJob, at }, in time order). A parked execution is two queue jobs (up to its
 * Wait node, then from its resume), so its parked time is in no slot. A job not seen finished by `endAt`
 * (an execution that failed: n8n logs no "finished" then) is counted up to `endAt`, marked `open`.
 */
export function slotsOf(events, endAt) {
	const open = new Map();
	const slots = [];
	for (const e of events) {
		const id = `${e.worker}/${e.bullJob}`;
		if (e.kind === 'started') open.set(id, e);
		else if (open.has(id)) {
			const s = open.get(id);
			open.delete(id);
			slots.push({ worker: e.worker, executionId: e.executionId, from: s.at, to: e.at });
		}
	}
	for (const s of open.values())
		slots.push({ worker: s.worker, executionId: s.executionId, from: s.at, to: endAt, open: true });
	return slots.sort((a, b) => a.from - b.from);
}

/** Length (ms) of the union of intervals [{ from, to }]. */
export function unionMs(intervals) {
	let total = 0;
	let end = -Infinity;
	for (const { from, to } of [...intervals].sort((a, b) => a.from - b.from)) {
		if (to <= end) continue;
		total += to - Math.max(from, end);
		end = to;
	}
	return total;
}

/** Per worker, the time (ms) it ran at least one of these slots: { worker: ms }. */
export function busyByWorker(slots) {
	const by = {};
	for (const s of slots) (by[s.worker] ??= []).push(s);
	return Object.fromEntries(Object.entries(by).map(([w, list]) => [w, unionMs(list)]));
}

/**
 * The main's execution list sampled over time ([{ at, counts: { running, new, waiting } }], in time order) as
 * execution-seconds per status, each sample held until the next one (the last until `endAt`), and the most
 * executions running at once.
 */
export function integrateSamples(samples, endAt) {
	const seconds = { running: 0, new: 0, waiting: 0 };
	let maxRunning = 0;
	samples.forEach((s, k) => {
		const next = k + 1 < samples.length ? samples[k + 1].at : endAt;
		for (const status of Object.keys(seconds))
			seconds[status] += ((s.counts[status] ?? 0) * Math.max(0, next - s.at)) / 1000;
		maxRunning = Math.max(maxRunning, s.counts.running ?? 0);
	});
	return { ...seconds, maxRunning };
}

/**
 * The sink's deliveries (job id → [{ sha256, at }]) of the pattern's jobs ({ id, state, outputSha256 }):
 * how many arrived exactly once with their job's sha256, those that arrived more than once, none, or with
 * another sha256, and when the last job's MP4 arrived (its first delivery).
 */
export function verifyDeliveries(jobs, deliveries) {
	const out = { verified: 0, twice: [], missing: [], badSha: [], lastAt: NaN, firstAts: [] };
	for (const job of jobs) {
		const got = deliveries.get(job.id) ?? [];
		if (!got.length) {
			out.missing.push(job.id);
			continue;
		}
		if (got.length > 1) out.twice.push(job.id);
		if (got.some((d) => d.sha256 !== job.outputSha256)) out.badSha.push(job.id);
		else if (got.length === 1) out.verified++;
		const first = Math.min(...got.map((d) => d.at));
		out.firstAts.push(first);
		out.lastAt = Number.isNaN(out.lastAt) ? first : Math.max(out.lastAt, first);
	}
	return out;
}

/** A job look: the first page of the job list or a job's read (not a further page, not the output). */
export const isLook = (e) =>
	e.method === 'GET' &&
	((e.path === '/v1/jobs' && !/(^|&)cursor=/.test(e.query ?? '')) ||
		/^\/v1\/jobs\/[^/]+$/.test(e.path));

/**
 * The goal's budget for waiting in the node: the floor's requests that are not looks (N creates, N
 * downloads) plus, per process, one look per interval while it ran executions (⌈busy / interval⌉ + 1) and
 * one capabilities read per minute of it (⌈busy / 60 s⌉, at least 1). `busy`: { process: ms }.
 */
export function waitBudget({ n, busy, intervalMs }) {
	const perProcess = Object.fromEntries(
		Object.entries(busy).map(([p, ms]) => [
			p,
			{ looks: Math.ceil(ms / intervalMs) + 1, capabilities: Math.max(1, Math.ceil(ms / 60_000)) },
		]),
	);
	const extra = Object.values(perProcess).reduce((a, x) => a + x.looks + x.capabilities, 0);
	return { total: 2 * n + extra, perProcess };
}

/**
 * The referee's records `v` of one key told apart as the soak tells them (tools/lib/soak/judge.mjs), from the
 * facts collected with the process behind each request (`facts`: journalFact records; `rules`: the judge's):
 * `own`, violations by a process alone; `collisions`, of processes sharing the key (each within its own
 * budget, e.g. two workers' list looks); `all`, every record with its process.
 */
export function judgeKeyRecords(v, facts, rules) {
	const { violations, collisions } = judgeViolations(v, { arrivals: facts, entries: facts }, rules);
	const processOf = new Map(facts.map((f) => [f.requestId, f.process]));
	return {
		all: v.map((x) => ({ ...x, process: processOf.get(x.requestId) ?? 'unknown' })),
		own: violations,
		collisions,
	};
}
