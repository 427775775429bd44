// The FLOOR of part "batch": what a perfect client could do with the same key, simulated (no n8n, no
// network). Rules, as the benchmark defines them:
//   - the key's budget is `limit` requests per fixed window of `windowMs`, windows aligned to multiples of
//     `windowMs` since the epoch (as the emulator counts them), and the client starts at `t0`, the time of
//     the measured run's first request (so the start phase in the minute is the measured one);
//   - 1 GET /capabilities (public: it spends no budget on the emulator), then N creates sent as fast as the
//     windows allow; each job ends `jobMs` after its create;
//   - one list poll every `pollMs` while any job is not yet seen finished (the first one `pollMs` after the
//     first create, then `pollMs` after the previous poll was sent); a poll shows as finished every job whose
//     end is at or before it;
//   - each download as soon as a poll has shown its job finished;
//   - when requests compete for the budget: polls first, then creates, then downloads;
//   - requests take no time (the floor ignores latency and transfer time).
// The floor is the time of the last download minus t0; maxDetectionMs, the longest time from a job's end to
// the poll that showed it (more than one interval only where the windows left no budget for a poll).

/**
 * @param {{ t0: number, n: number, jobMs: number, limit: number, windowMs?: number, pollMs?: number }} o
 * @returns {{ floorMs: number, finishAt: number, maxDetectionMs: number, requests: { capabilities: number, creates: number, polls: number, downloads: number }, windows: number, lastCreateAt: number, downloadsAt: number[] }}
 */
export function simulateFloor({ t0, n, jobMs, limit, windowMs = 60_000, pollMs = 5_000 }) {
	if (!(n > 0) || !(limit > 0)) throw new Error('n and limit must be positive');
	const used = new Map(); // window index -> requests sent in it
	const windowOf = (t) => Math.floor(t / windowMs);
	const left = (t) => limit - (used.get(windowOf(t)) ?? 0);
	const spend = (t) => used.set(windowOf(t), (used.get(windowOf(t)) ?? 0) + 1);

	const ends = []; // end time of each created job, in creation order
	const seenDone = new Array(n).fill(false);
	let maxDetectionMs = 0; // the longest time from a job's end to the poll that showed it
	let seenCount = 0;
	const downloadQueue = []; // job indexes seen finished, not yet downloaded
	let downloads = 0;
	const downloadsAt = []; // when each download was sent, in order
	let polls = 0;
	let pollDue = Infinity; // no poll before the first create
	let finishAt = NaN;
	let lastCreateAt = NaN;
	let t = t0;
	for (let guard = 0; guard < 1_000_000; guard++) {
		// 1. the poll, if due
		if (seenCount < n && pollDue <= t && left(t) > 0) {
			spend(t);
			polls++;
			for (let j = 0; j < ends.length; j++) {
				if (!seenDone[j] && ends[j] <= t) {
					seenDone[j] = true;
					maxDetectionMs = Math.max(maxDetectionMs, t - ends[j]);
					seenCount++;
					downloadQueue.push(j);
				}
			}
			pollDue = seenCount < n ? t + pollMs : Infinity;
		}
		// 2. creates
		while (ends.length < n && left(t) > 0) {
			spend(t);
			ends.push(t + jobMs);
			lastCreateAt = t;
			if (pollDue === Infinity && seenCount < n && polls === 0) pollDue = t + pollMs;
		}
		// 3. downloads
		while (downloadQueue.length && left(t) > 0) {
			spend(t);
			downloadQueue.shift();
			downloads++;
			downloadsAt.push(t);
			finishAt = t;
		}
		if (downloads === n) break;
		// next moment something can change: the next poll, or the next window when work waits for budget
		const nextWindow = (windowOf(t) + 1) * windowMs;
		const blocked = left(t) <= 0 && (ends.length < n || downloadQueue.length > 0 || pollDue <= t);
		let next = pollDue > t ? pollDue : Infinity;
		if (blocked || pollDue <= t) next = Math.min(next, nextWindow);
		if (!Number.isFinite(next)) throw new Error('floor simulation stalled');
		t = next;
	}
	return {
		floorMs: finishAt - t0,
		downloadsAt,
		finishAt,
		lastCreateAt,
		maxDetectionMs,
		requests: { capabilities: 1, creates: n, polls, downloads },
		windows: windowOf(finishAt) - windowOf(t0) + 1,
	};
}
