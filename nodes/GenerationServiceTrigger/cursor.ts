/**
 * The "Job Finished" trigger's cursor, kept in the workflow's static data (node scope).
 *
 * Why it is not a single watermark: GET /jobs lists jobs newest first by CREATION, but jobs FINISH
 * in any order, and a job created long ago may finish after many newer ones. So the trigger keeps:
 *
 * - `newest`: the largest `createdAt` a complete pass (below) has listed.
 * - `floor`: a creation-time watermark with this invariant: every job created at or after `floor`
 *   that existed when the last complete pass listed it is in `done` or in `open`; every job created
 *   before `floor` is handled, except those in `open`.
 * - `open`: id → createdAt of jobs seen but not emitted yet: still queued or running, or finished
 *   but left for the next poll because this one ran out of time.
 * - `pass`: a walk of the job list a poll ran out of time in (below), when there is one.
 * - `done`: id → createdAt of finished jobs already handled (emitted, left out by the filters, or
 *   finished before the trigger was activated), only for jobs created at or after `floor`.
 *
 * Each poll walks GET /jobs pages newest first until a page ends below `floor` (or the list ends): a
 * pass. A listed job at or above `floor` (or in `open`) that is finished and not in `done` is emitted and
 * goes to `done`; an unfinished one goes to `open`. `open` jobs the pass did not reach (see STALE) are read
 * one by one with GET /jobs/{id}. When the pass is complete (advanceCursor):
 *
 *   floor' = max(floor, min(newest' − OVERLAP, createdAt of the oldest non-stale open job))
 *
 * and `done` forgets ids created before floor'. `floor` never goes down, so a forgotten id is never
 * looked at again: the state stays bounded (jobs of the last OVERLAP, plus those since the oldest
 * open job) and no job is emitted twice. A job created after a pass has createdAt ≥ that pass's
 * `newest` − OVERLAP ≥ floor', so the next pass reaches it: none is missed, across pages (the walk
 * follows nextCursor) and restarts (everything is in static data).
 *
 * A pass the poll has no time to finish (n8n's poll budget) is kept in `pass`: the page it stopped
 * before, the newest and lowest createdAt it listed. `newest` and `floor` stay as they were — the jobs
 * between the floor and the pass's lowest are not listed yet, and may include jobs created since the
 * last complete pass — and the next poll goes on from that page, so a job list longer than one poll
 * can walk is still walked to its end, over several polls. A page cursor only ever leads to older jobs
 * (jobs created meanwhile come first in the list, and are for the next pass): going on with it may list
 * a job twice, never skips one. When the pass completes, `newest` becomes the newest it listed.
 *
 * - OVERLAP (5 min) re-reads recently created jobs, so a job whose createdAt was stamped before it
 *   became visible in the list, or a small clock skew between servers, is still caught; `done`
 *   prevents a second emission in that window.
 * - STALE (24 h): an open job older than `newest` − STALE no longer holds the floor down (it would
 *   make every poll walk a day of history); it is checked by id instead until it ends.
 */

export const CURSOR_VERSION = 1;
export const OVERLAP_MS = 5 * 60_000;
export const STALE_MS = 24 * 60 * 60_000;

/**
 * A walk of the job list from the top down to the floor that a poll ran out of time in: every job
 * created between `low` and `top` that existed when its page was listed is in `done` or `open`.
 */
export interface WalkPass {
	/** The nextCursor of the last page listed: where the next poll goes on. */
	page: string;
	/** Largest createdAt the pass listed. */
	top: number;
	/** Lowest createdAt the pass listed. */
	low: number;
}

export interface TriggerCursor {
	version: number;
	newest: number;
	floor: number;
	open: Record<string, number>;
	done: Record<string, number>;
	pass?: WalkPass;
}

/** What one poll's walk over GET /jobs established, for the pass it belongs to. */
export interface WalkSummary {
	/** Largest createdAt the pass listed, this poll and before (-Infinity when nothing was listed). */
	top: number;
	/** Lowest createdAt the pass listed, this poll and before (Infinity when nothing was listed). */
	low: number;
	/** True when the pass reached below the floor or the end of the list. */
	complete: boolean;
	/** When not complete: the page the next poll goes on from (none: the next poll starts at the top). */
	next?: string;
}

function isCount(value: unknown): value is number {
	return typeof value === 'number' && Number.isFinite(value);
}

function isIdMap(value: unknown): value is Record<string, number> {
	return (
		typeof value === 'object' &&
		value !== null &&
		!Array.isArray(value) &&
		Object.values(value).every(isCount)
	);
}

function readPass(stored: unknown): WalkPass | undefined {
	if (typeof stored !== 'object' || stored === null) return undefined;
	const p = stored as Partial<WalkPass>;
	if (typeof p.page !== 'string' || p.page === '' || !isCount(p.top) || !isCount(p.low)) {
		return undefined;
	}
	return { page: p.page, top: p.top, low: p.low };
}

/**
 * The cursor stored in static data, or undefined when there is none (or an unknown shape). A pass of an
 * unknown shape is dropped: the next poll walks from the top, which is always safe.
 */
export function readCursor(stored: unknown): TriggerCursor | undefined {
	if (typeof stored !== 'object' || stored === null) return undefined;
	const c = stored as Partial<TriggerCursor>;
	if (c.version !== CURSOR_VERSION || !isCount(c.newest) || !isCount(c.floor)) return undefined;
	if (!isIdMap(c.open) || !isIdMap(c.done)) return undefined;
	const pass = readPass(c.pass);
	return {
		version: c.version,
		newest: c.newest,
		floor: c.floor,
		open: c.open,
		done: c.done,
		...(pass && { pass }),
	};
}

/** `done` with the newly handled jobs, without the ids created before `floor` or still open. */
function doneAfter(
	done: Record<string, number>,
	handled: Record<string, number>,
	floor: number,
	open: Record<string, number>,
): Record<string, number> {
	const next: Record<string, number> = {};
	for (const [id, createdAt] of [...Object.entries(done), ...Object.entries(handled)]) {
		if (createdAt >= floor && !(id in open)) next[id] = createdAt;
	}
	return next;
}

/** floor' of a complete pass: OVERLAP below the newest, or the oldest open job that is not stale. */
function floorBelow(newest: number, open: Record<string, number>): number {
	const staleBefore = newest - STALE_MS;
	let candidate = newest - OVERLAP_MS;
	for (const createdAt of Object.values(open)) {
		if (createdAt >= staleBefore) candidate = Math.min(candidate, createdAt);
	}
	return candidate;
}

/**
 * The cursor after a poll. `open` is the complete new set of open jobs; `handled` the finished jobs this
 * poll emitted or left out (id → createdAt). A complete pass moves `newest` and `floor` up; a pass cut
 * short leaves them and is kept in `pass` for the next poll.
 */
export function advanceCursor(
	previous: Pick<TriggerCursor, 'newest' | 'floor' | 'done'>,
	walk: WalkSummary,
	open: Record<string, number>,
	handled: Record<string, number>,
): TriggerCursor {
	if (!walk.complete) {
		const pass =
			walk.next !== undefined && isCount(walk.top) && isCount(walk.low)
				? { page: walk.next, top: walk.top, low: walk.low }
				: undefined;
		return {
			version: CURSOR_VERSION,
			newest: previous.newest,
			floor: previous.floor,
			open: { ...open },
			done: doneAfter(previous.done, handled, previous.floor, open),
			...(pass && { pass }),
		};
	}
	const newest = Math.max(previous.newest, walk.top);
	const floor = Math.max(previous.floor, floorBelow(newest, open));
	return {
		version: CURSOR_VERSION,
		newest,
		floor,
		open: { ...open },
		done: doneAfter(previous.done, handled, floor, open),
	};
}

/**
 * The cursor of the first activation: what exists now is history. A walk cut short (the poll's time)
 * counts the jobs below what it listed as history too (the floor goes no lower than the lowest listed),
 * except the open ones it found.
 */
export function firstCursor(
	walk: WalkSummary,
	open: Record<string, number>,
	handled: Record<string, number>,
): TriggerCursor {
	const newest = Math.max(0, walk.top);
	let candidate = floorBelow(newest, open);
	if (!walk.complete) candidate = Math.min(candidate, walk.low);
	const floor = Math.max(0, candidate);
	return {
		version: CURSOR_VERSION,
		newest,
		floor,
		open: { ...open },
		done: doneAfter({}, handled, floor, open),
	};
}
