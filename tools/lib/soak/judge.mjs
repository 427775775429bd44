// The chaos soak's judge (scripts/soak.mjs): which of the referee's violations came from processes sharing a
// limit, none of which could know what the others were told or used (a collision: reported), and which a
// process could have avoided by itself (a violation: fails the soak). Pure functions over plain records the
// soak collects while it runs: no I/O, no timers, no clock.
//
// The records (the soak's watchers look the process up while the client's socket is open):
//   arrival  { requestId, at, keyId, jobRead, process }
//                                                    each request whose process was looked up as it arrived
//                                                    (ownerNeededAtArrival), e.g. every request of the
//                                                    shared key (the emulator counts it in the window it
//                                                    arrives in) and every read or creation of a job
//   entry    { requestId, at, keyId, status, errorCode, retryAfter, violations, jobListLook,
//              unfinishedListed, process }           each journal entry the judge needs
//                                                    (ownerNeededInJournal): 429s with Retry-After (who was
//                                                    told to wait, until when), requests judged by their
//                                                    process, first pages of a key's job list
// A process is its name and pid (processName): a restarted worker is another process, which remembers
// nothing of the killed one; 'unknown' when none was found.
//
// The rules (judgeViolations):
//   retry_after_ip / retry_after_key  a collision when another process was told that wait (a 429 with
//       Retry-After of that scope, told at least the in-flight grace before) and the early process was not
//       told it itself; else a violation
//   exhausted_window  a collision only on the shared key, when another known process's requests counted in
//       that same rate window (from its start to the early request); else a violation
//   list_poll_too_soon  the referee keeps one budget of first-page looks per key; a collision when the
//       process's own looks of that key, judged alone with the referee's rule (judgeListLooks), were within
//       the budget and another known process looked at that key's list while the budget refilled
//       (LIST_LOOK_BURST × minPollIntervalMs); else a violation
//   poll_too_soon  the referee counts the 5 s between answers naming a job per account; a collision when the
//       answer it came too soon after went to another known process (e.g. the trigger on the main reading an
//       open job a worker waits for) and the process's own last read of that job was at least the poll
//       interval before; else a violation
//   any other kind, or an unknown process: a violation
// Executions (judgeExecutions): one the main enqueued before a Redis restart that no worker ever started is
// lost with Redis's queue (n8n leaves it `new`), reported apart from executions left running.
import { judgeListLooks, LIST_LOOK_BURST } from '../../../emulator/src/referee.ts';

export const UNKNOWN = 'unknown';
/** Violation kinds whose judgement depends on the process behind the request. */
export const JUDGED_BY_PROCESS = [
	'retry_after_ip',
	'retry_after_key',
	'exhausted_window',
	'poll_too_soon',
];
/** Execution statuses of an execution not finished. */
export const RUNNING_STATUSES = ['running', 'new', 'waiting', 'unknown'];

const secs = (ms) => `${(ms / 1000).toFixed(1)} s`;
const isListLook = (r) => Boolean(r.jobListLook) && r.keyId !== null;
/** The job a request reads (GET /v1/jobs/{id}), else null. */
export const jobReadOf = (r) =>
	r.method === 'GET' ? (/^\/v1\/jobs\/(job_[^/]+)$/.exec(r.path ?? '')?.[1] ?? null) : null;
/** A request whose answer names a job (a read, or a creation): the referee's poll_too_soon counts from it. */
const namesJob = (r) => jobReadOf(r) !== null || (r.method === 'POST' && r.path === '/v1/jobs');

/** A process: its name and pid (`worker2 (pid 571)`). */
export const processName = ({ name, pid }) => `${name} (pid ${pid})`;

/** A process's name without its pid (`worker2`): its role, for counts per role. */
export const roleOf = (process) => process.replace(/ \(pid \d+\)$/, '');

/** Whether any of these violation kinds is judged by the process behind the request. */
export const judgedByProcess = (kinds) => kinds.some((k) => JUDGED_BY_PROCESS.includes(k));

/** Whether the soak must find the process behind a request as it arrives (an arrival notice). */
export function ownerNeededAtArrival(notice, sharedKeyId) {
	return (
		judgedByProcess(notice.violations) ||
		notice.keyId === sharedKeyId ||
		isListLook(notice) ||
		namesJob(notice)
	);
}

/** The limit a 429 told its process to wait for: 'ip', the key's id, or undefined (no such wait). */
export function retryAfterScope(entry) {
	if (entry.status !== 429 || entry.retryAfter === null) return undefined;
	if (entry.errorCode === 'ip_rate_limited') return 'ip';
	if (entry.errorCode === 'rate_limited') return entry.keyId;
	return undefined;
}

/** Whether the judge needs this journal entry (and so its process). */
export function ownerNeededInJournal(entry) {
	return Boolean(retryAfterScope(entry)) || judgedByProcess(entry.violations) || isListLook(entry);
}

/** The arrival record of a notice whose process was looked up. */
export const arrivalFact = (notice, process) => ({
	requestId: notice.requestId,
	at: notice.at,
	keyId: notice.keyId,
	jobRead: jobReadOf(notice),
	process,
});

/** The record of a journal entry the judge needs, with its process. */
export const journalFact = (entry, process) => ({
	requestId: entry.requestId,
	at: entry.at,
	keyId: entry.keyId,
	status: entry.status,
	errorCode: entry.errorCode,
	retryAfter: entry.retryAfter,
	violations: entry.violations,
	jobListLook: entry.jobListLook,
	unfinishedListed: entry.unfinishedListed,
	fault: entry.fault,
	process,
});

/** 429 ip_rate_limited answers per role (process name without pid), from the journal records. */
export function ipLimitedByRole(entries) {
	const out = {};
	for (const e of entries)
		if (e.errorCode === 'ip_rate_limited')
			out[roleOf(e.process)] = (out[roleOf(e.process)] ?? 0) + 1;
	return out;
}

/** The waits told (429 with Retry-After): { scope, at, end, process }. */
export function holdsOf(entries) {
	return entries
		.filter((e) => retryAfterScope(e))
		.map((e) => ({
			scope: retryAfterScope(e),
			at: e.at,
			end: e.at + e.retryAfter * 1000,
			process: e.process,
		}));
}

/** First pages of a key's job list (any answer): { requestId, at, keyId, process, unfinished }. */
export function listLooksOf(entries) {
	return entries.filter(isListLook).map((e) => ({
		requestId: e.requestId,
		at: e.at,
		keyId: e.keyId,
		process: e.process,
		unfinished: e.unfinishedListed ?? null,
	}));
}

/**
 * Each known process's first-page looks of each key judged alone, in arrival order, with the referee's
 * rule: requestId → { tooSoon, credit } (credit null: its first look, not judged).
 */
export function judgeOwnListLooks(looks, minPollIntervalMs) {
	const byProcessAndKey = new Map();
	for (const l of looks) {
		if (l.process === UNKNOWN) continue;
		const k = `${l.process} ${l.keyId}`;
		if (!byProcessAndKey.has(k)) byProcessAndKey.set(k, []);
		byProcessAndKey.get(k).push(l);
	}
	const own = new Map();
	for (const group of byProcessAndKey.values()) {
		group.sort((a, b) => a.at - b.at);
		judgeListLooks(group, minPollIntervalMs).forEach((j, i) => own.set(group[i].requestId, j));
	}
	return own;
}

/** The known processes other than `who` among these records, in order of first appearance. */
const othersThan = (who, records) => [
	...new Set(records.map((r) => r.process).filter((p) => p !== who && p !== UNKNOWN)),
];

/** retry_after_ip / retry_after_key by `who`: the collision, or undefined (a violation). */
export function earlyArrivalCollision(v, who, holds, graceMs) {
	const scope = v.kind === 'retry_after_ip' ? 'ip' : v.keyId;
	const covering = holds.filter((h) => h.scope === scope && h.at + graceMs <= v.at && v.at < h.end);
	if (who === UNKNOWN || covering.some((h) => h.process === who)) return undefined;
	const told = covering.reduce((a, b) => (b.end > a.end ? b : a), covering[0]);
	return told
		? { process: who, toldProcess: told.process, afterMs: v.at - told.at, earlyMs: told.end - v.at }
		: undefined;
}

/** exhausted_window by `who`: the collision, or undefined (a violation). */
export function usedWindowCollision(v, who, arrivals, { sharedKeyId, rateWindowMs }) {
	if (v.keyId !== sharedKeyId || who === UNKNOWN) return undefined;
	const start = Math.floor(v.at / rateWindowMs) * rateWindowMs;
	const inWindow = arrivals.filter((r) => r.keyId === sharedKeyId && r.at >= start && r.at <= v.at);
	const sharedWith = othersThan(who, inWindow);
	return sharedWith.length ? { process: who, sharedWith } : undefined;
}

/**
 * poll_too_soon by `who`, `earlier` the answer it came too soon after ({ process }, named by the referee):
 * a collision when that answer went to another known process and `who`'s own last read of the job (its
 * arrivals) was at least the poll interval before; else undefined (a violation).
 */
export function readCollision(v, who, earlier, arrivals, minPollIntervalMs) {
	if (who === UNKNOWN || !earlier || earlier.process === UNKNOWN || earlier.process === who) {
		return undefined;
	}
	const job = jobReadOf(v);
	const own = arrivals
		.filter((a) => a.process === who && a.jobRead === job && a.at < v.at)
		.reduce((last, a) => (!last || a.at > last.at ? a : last), undefined);
	if (own && v.at - own.at < minPollIntervalMs) return undefined;
	return { process: who, sharedWith: [earlier.process], ownGapMs: own ? v.at - own.at : null };
}

/** list_poll_too_soon by `who` (its own looks' judgement `own`): the collision, or undefined. */
export function listLookCollision(v, who, own, looks, minPollIntervalMs) {
	if (who === UNKNOWN || !own || own.tooSoon) return undefined;
	const refillMs = LIST_LOOK_BURST * minPollIntervalMs;
	const sharedWith = othersThan(
		who,
		looks.filter((l) => l.keyId === v.keyId && l.at >= v.at - refillMs && l.at <= v.at),
	);
	if (!sharedWith.length) return undefined;
	// a process's first look is not judged: it had the whole burst
	const ownCredit = Math.floor((own.credit ?? LIST_LOOK_BURST) * 10) / 10;
	return { process: who, ownCredit, sharedWith };
}

/**
 * The referee's violations told apart, from the soak's records `{ arrivals, entries }` and the rules'
 * settings `{ sharedKeyId, rateWindowMs, graceMs, minPollIntervalMs }`: `violations` (each the referee's
 * with its `process` and, for a list look, `ownLook`: its process's looks judged alone) fail the soak;
 * `collisions` ({ kind, keyId, at, detail }: see the collision functions above) are reported.
 */
export function judgeViolations(refereeViolations, { arrivals, entries }, rules) {
	const processOf = new Map([...arrivals, ...entries].map((e) => [e.requestId, e.process]));
	const holds = holdsOf(entries);
	const looks = listLooksOf(entries);
	const ownLook = judgeOwnListLooks(looks, rules.minPollIntervalMs);
	// the earlier answer a violation names (poll_too_soon: "that answer: req_…"): its process and fault
	const earlierOf = (v) => {
		const id = /that answer: (req_\w+)/.exec(v.detail ?? '')?.[1];
		if (!id || !processOf.has(id)) return undefined;
		const fault = entries.find((x) => x.requestId === id)?.fault ?? null;
		return { requestId: id, process: processOf.get(id), fault };
	};
	const collisionOf = (v, who) => {
		if (v.kind === 'exhausted_window') return usedWindowCollision(v, who, arrivals, rules);
		if (v.kind === 'list_poll_too_soon')
			return listLookCollision(v, who, ownLook.get(v.requestId), looks, rules.minPollIntervalMs);
		if (v.kind === 'retry_after_ip' || v.kind === 'retry_after_key')
			return earlyArrivalCollision(v, who, holds, rules.graceMs);
		if (v.kind === 'poll_too_soon')
			return readCollision(v, who, earlierOf(v), arrivals, rules.minPollIntervalMs);
		return undefined;
	};
	const violations = [];
	const collisions = [];
	for (const v of refereeViolations) {
		const who = processOf.get(v.requestId) ?? UNKNOWN;
		const detail = collisionOf(v, who);
		if (detail) collisions.push({ kind: v.kind, keyId: v.keyId, at: v.at, detail });
		else
			violations.push({
				...v,
				process: who,
				ownLook: ownLook.get(v.requestId),
				earlier: earlierOf(v),
			});
	}
	return { violations, collisions };
}

/** One violation as the soak's problem line names it (by which process, when since `t0`). */
export function describeViolation(v, t0) {
	const by = `by ${v.process} at ${secs(v.at - t0)}`;
	const judged = v.ownLook
		? `, its own looks judged alone: ${v.ownLook.tooSoon ? 'too soon' : 'within'}`
		: '';
	const earlier = v.earlier
		? ` [that answer by ${v.earlier.process}${v.earlier.fault ? `, fault ${v.earlier.fault}` : ''}]`
		: '';
	return `${v.kind} ${v.method} ${v.path} (${by}${judged}) ${v.detail ?? ''}${earlier}`;
}

/** The soak's problem line for its violations (the first 10 described). */
export function violationsProblem(violations, t0) {
	const each = violations.slice(0, 10).map((v) => describeViolation(v, t0));
	return `${violations.length} referee violation(s): ${each.join('; ')}`;
}

/** Collisions counted by kind: `retry_after_ip`, else `<kind> (key <keyLabel(keyId)>)`. */
export function countCollisionKinds(collisions, keyLabel) {
	const out = {};
	for (const c of collisions) {
		const k = c.kind === 'retry_after_ip' ? c.kind : `${c.kind} (key ${keyLabel(c.keyId)})`;
		out[k] = (out[k] ?? 0) + 1;
	}
	return out;
}

/** Collisions as the report lists them: { kind, key, ...detail }. */
export const reportedCollisions = (collisions, keyLabel) =>
	collisions.map(({ kind, keyId, detail }) => ({ kind, key: keyLabel(keyId), ...detail }));

/** One line on a report's collisions of processes sharing key A or the IP (empty when none). */
export function describeCollisions(r) {
	if (!r.collisions.length) return '';
	const each = r.collisions.map((c) =>
		c.kind === 'list_poll_too_soon' && c.process
			? `${c.kind} key ${c.key ?? '-'}: ${c.process} had ${c.ownCredit} first-page look(s) left by itself; the key's budget was spent with ${c.sharedWith.join(', ')}`
			: c.kind === 'exhausted_window' && c.process
				? `${c.kind} key ${c.key ?? '-'}: ${c.process} into a window ${c.sharedWith.join(', ')} used too`
				: c.kind === 'poll_too_soon' && c.process
					? `${c.kind} key ${c.key ?? '-'}: ${c.process} read a job ${c.ownGapMs === null ? 'for the first time' : `${(c.ownGapMs / 1000).toFixed(1)} s after its own last read`}, soon after ${c.sharedWith.join(', ')} did`
					: c.process
						? `${c.kind} key ${c.key ?? '-'}: ${c.process} ${(c.afterMs / 1000).toFixed(2)} s after ${c.toldProcess} was told to wait, ${(c.earlyMs / 1000).toFixed(2)} s before that wait ended`
						: `${c.kind} key ${c.key}`,
	);
	return `${r.collisions.length} collision(s) of processes sharing a limit (not told themselves; list looks within their own budget): ${JSON.stringify(r.sharedKeyCollisions)}: ${each.join('; ')}`;
}

/**
 * An execution lost with Redis's queue: left `new`, started by no worker (`byWorker`: execution id →
 * worker), created before one of the Redis restarts (`redisRestartedAt`, epoch ms).
 */
export function lostWithRedisQueue(e, byWorker, redisRestartedAt) {
	return (
		e.status === 'new' &&
		!byWorker[e.id] &&
		redisRestartedAt.some((at) => Date.parse(e.createdAt ?? e.startedAt ?? '') <= at)
	);
}

/** Not finished, and not lost with Redis's queue. */
export const stillRunning = (e, byWorker, redisRestartedAt) =>
	RUNNING_STATUSES.includes(e.status) && !lostWithRedisQueue(e, byWorker, redisRestartedAt);

/** The soak's executions: { lostWithQueue, leftRunning } (each a list of executions). */
export function judgeExecutions(executions, { byWorker, redisRestartedAt }) {
	return {
		lostWithQueue: executions.filter((e) => lostWithRedisQueue(e, byWorker, redisRestartedAt)),
		leftRunning: executions.filter((e) => stillRunning(e, byWorker, redisRestartedAt)),
	};
}
