// The figures of part 2 (memory.mjs) as its report reads them: medians of the measured peaks, "added" (a
// size's peak minus the tiny file's), and medians over the probed runs.
import { median } from '../measure.mjs';

/** Accessors over { memWf, peaks, probes } (see memory.mjs and memory-probe.mjs). */
export function memoryFigures({ memWf, peaks, probes }) {
	const med = (id, k = 'main') => median(peaks[id][k]);
	const idOf = (transfer, side, k) =>
		memWf.find((m) => m.transfer === transfer && m.side === side && m.size.k === k).id;
	const added = (transfer, side, k, what = 'main') =>
		med(idOf(transfer, side, k), what) - med(idOf(transfer, side, 't'), what);
	const P = (id, mode) => probes[`${id}|${mode}`] ?? [];
	const pm = (id, mode, f) => median(P(id, mode).map(f));
	return {
		med,
		idOf,
		added,
		P,
		pm,
		/** Flatness of downloads: added at 100 MiB ÷ added at 20 MiB (main process). */
		flat: (side) => added('download', side, '100') / added('download', side, '20'),
		/** Uploads: arrayBuffers when the POST starts, above the process's first sample. */
		upStart: (id, mode = 'plain') =>
			pm(id, mode, (x) => x.before.arrayBuffers - (x.firstSample?.arrayBuffers ?? 0)),
		/** Δ arrayBuffers during the transfer. */
		dAB: (id, mode = 'plain') => pm(id, mode, (x) => x.max.arrayBuffers - x.before.arrayBuffers),
		/** Δ RSS during the transfer. */
		dRSS: (id, mode = 'plain') => pm(id, mode, (x) => x.max.rss - x.before.rss),
	};
}
