/**
 * The "Job Finished" trigger's cursor, kept in the workflow's static data (node scope).
 *
 * Why it is not a single watermark: GET /jobs lists jobs newest first by CREATION, but jobs FINISH
 * in any order, and a job created long ago may finish after many newer ones. So the trigger keeps:
 *
 * - `newest`: the largest `createdAt` any poll has listed.
 * - `floor`: a creation-time watermark with this invariant: every job created at or after `floor`
 *   that existed when the last poll listed it is in `done` or in `open`; every job created before
 *   `floor` is handled, except those in `open`.
 * - `open`: id → createdAt of jobs seen but not emitted yet: still queued or running, or finished
 *   but left for the next poll because this one ran out of time.
 * - `done`: id → createdAt of finished jobs already handled (emitted, left out by the filters, or
 *   finished before the trigger was activated), only for jobs created at or after `floor`.
 *
 * Each poll walks GET /jobs pages newest first until a page ends below `floor` (or the list ends).
 * A listed job at or above `floor` (or in `open`) that is finished and not in `done` is emitted and
 * goes to `done`; an unfinished one goes to `open`. `open` jobs the walk did not reach (see STALE)
 * are read one by one with GET /jobs/{id}. Then (advanceCursor):
 *
 *   floor' = max(floor, min(newest' − OVERLAP, createdAt of the oldest non-stale open job,
 *                           lowest createdAt walked when the walk stopped early))
 *
 * and `done` forgets ids created before floor'. `floor` never goes down, so a forgotten id is never
 * looked at again: the state stays bounded (jobs of the last OVERLAP, plus those since the oldest
 * open job) and no job is emitted twice. A job created after a poll has createdAt ≥ that poll's
 * `newest` − OVERLAP ≥ floor', so the next walk reaches it: none is missed, across pages (the walk
 * follows nextCursor), restarts (everything is in static data) and polls that stop early (the floor
 * stays at or below what was actually walked).
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

export interface TriggerCursor {
	version: number;
	newest: number;
	floor: number;
	open: Record<string, number>;
	done: Record<string, number>;
}

/** What one poll's walk over GET /jobs established. */
export interface WalkSummary {
	/** Largest createdAt listed by this walk (-Infinity when the list was empty). */
	newestListed: number;
	/** Lowest createdAt listed by this walk (Infinity when the list was empty). */
	lowestListed: number;
	/** True when the walk reached below the floor or the end of the list. */
	complete: boolean;
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

/** The cursor stored in static data, or undefined when there is none (or an unknown shape). */
export function readCursor(stored: unknown): TriggerCursor | undefined {
	if (typeof stored !== 'object' || stored === null) return undefined;
	const c = stored as Partial<TriggerCursor>;
	if (c.version !== CURSOR_VERSION || !isCount(c.newest) || !isCount(c.floor)) return undefined;
	if (!isIdMap(c.open) || !isIdMap(c.done)) return undefined;
	return { version: c.version, newest: c.newest, floor: c.floor, open: c.open, done: c.done };
}

/**
 * The cursor after a poll. `open` is the complete new set of open jobs; `handled` the finished
 * jobs this poll emitted or left out (id → createdAt).
 */
export function advanceCursor(
	previous: Pick<TriggerCursor, 'newest' | 'floor' | 'done'>,
	walk: WalkSummary,
	open: Record<string, number>,
	handled: Record<string, number>,
): TriggerCursor {
	const newest = Math.max(previous.newest, walk.newestListed);
	const staleBefore = newest - STALE_MS;
	let candidate = newest - OVERLAP_MS;
	for (const createdAt of Object.values(open)) {
		if (createdAt >= staleBefore) candidate = Math.min(candidate, createdAt);
	}
	if (!walk.complete) candidate = Math.min(candidate, walk.lowestListed);
	const floor = Math.max(previous.floor, candidate);
	const done: Record<string, number> = {};
	for (const [id, createdAt] of [...Object.entries(previous.done), ...Object.entries(handled)]) {
		if (createdAt >= floor && !(id in open)) done[id] = createdAt;
	}
	return { version: CURSOR_VERSION, newest, floor, open: { ...open }, done };
}
