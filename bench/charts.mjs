// The charts of docs/benchmarks.md, drawn from what a part measured in this run (bench/svg.mjs writes them):
// each is { file, alt, svg }; a part pushes it to report.charts and emits its image line, and the report is
// written with its charts into images/ beside it (report.mjs).
import { MiB } from './measure.mjs';
import { barChart, lineChart } from './svg.mjs';

/** Counts rising at each time: [[0, 0], [t1, 1], [t2, 2], …] in seconds. */
export const cumulative = (msList) => [
	[0, 0],
	...[...msList].sort((a, b) => a - b).map((ms, i) => [ms / 1000, i + 1]),
];

/** A batch run of part 3 (batch.mjs's record): MP4s downloaded over time, ours against the floor's. */
export function batchChart(rec, label) {
	const floorT0 = rec.floor.finishAt - rec.floor.floorMs;
	const title = `Batch of ${rec.n} (${label}, from second ${rec.phaseS}): MP4s over time`;
	return {
		file: `bench-batch-${rec.n}.svg`,
		alt: title,
		svg: lineChart({
			title,
			xLabel: "seconds from the run's first request",
			yLabel: 'jobs',
			series: [
				{ name: 'MP4s downloaded (ours)', points: cumulative(rec.downloadsMs) },
				{ name: 'jobs ended (emulator)', points: cumulative(rec.endsMs) },
				{
					name: 'floor: perfect client',
					points: cumulative(rec.floor.downloadsAt.map((t) => t - floorT0)),
				},
			],
			vlines: [
				{ at: rec.floor.floorMs / 1000, label: `floor ${(rec.floor.floorMs / 1000).toFixed(1)} s` },
			],
		}),
	};
}

/**
 * Part 6 (queue mode), the three patterns side by side (queue-measure.mjs's records): each pattern's MP4s
 * delivered to the sink over time from its calls, and its floor (the same perfect client as part 3).
 */
export function queueChart(results, n) {
	const floors = [...new Set(results.map((r) => (r.floor.floorMs / 1000).toFixed(1)))];
	const title = `Queue mode, ${n} long jobs at once: MP4s delivered over time, per pattern`;
	return {
		file: 'bench-queue-deliveries.svg',
		alt: title,
		svg: lineChart({
			title,
			xLabel: 'seconds from the calls',
			yLabel: 'MP4s delivered',
			series: results.map((r) => ({
				name: r.pattern,
				points: cumulative(r.checked.firstAts.map((at) => at - r.t0)),
			})),
			vlines: floors.map((s) => ({ at: Number(s), label: `floor ${s} s` })),
		}),
	};
}

/** Part 6: what each pattern cost the workers, in slot-seconds (from their logs). */
export function queueSlotsChart(results) {
	const title = 'Queue mode: worker slot-seconds per pattern (from the workers’ logs)';
	return {
		file: 'bench-queue-slots.svg',
		alt: title,
		svg: barChart({
			title,
			xLabel: 'pattern',
			yLabel: 'worker slot-seconds',
			groups: results.map((r) => r.pattern),
			series: [
				{ name: 'worker slot-seconds', values: results.map((r) => Math.round(r.slotSeconds)) },
			],
		}),
	};
}

/**
 * Part 7 (a thousand videos), its runs side by side (thousand-measure.mjs's records): each run's MP4s stored in
 * the bucket over time from its first request on the key, and each run's floor (bench/floor.mjs).
 */
export function thousandChart(results, n) {
	const title = `A thousand videos through queue mode (${n} prompts): MP4s in the bucket over time`;
	return {
		file: 'bench-thousand-deliveries.svg',
		alt: title,
		svg: lineChart({
			title,
			xLabel: "seconds from the run's first request on the key",
			yLabel: 'MP4s in the bucket',
			series: results.map((r) => ({
				name: r.name,
				points: cumulative(r.bucket.storedAts.map((at) => at - r.floor.t0)),
			})),
			vlines: [...new Set(results.map((r) => (r.floor.floorMs / 1000).toFixed(1)))].map((s) => ({
				at: Number(s),
				label: `floor ${s} s`,
			})),
		}),
	};
}

/**
 * Part 2 (memory): the main process's peak memory added by file size (a size's median peak minus the tiny
 * file's), ours beside HTTP Request, downloads then uploads. `added(transfer, side, k)` in bytes
 * (memory-figures.mjs); `DL`/`UP` the sizes ({ k, label }), the tiny one (k 't') left out.
 */
export function memoryChart({ DL, UP, added }) {
	const groups = [];
	const ours = [];
	const http = [];
	for (const [transfer, sizes] of [
		['download', DL],
		['upload', UP],
	])
		for (const s of sizes.filter((x) => x.k !== 't')) {
			groups.push(`${transfer} ${s.label}`);
			ours.push(mib(added(transfer, 'ours', s.k)));
			http.push(mib(added(transfer, 'http', s.k)));
		}
	const title = 'Peak memory added by file size (n8n main process, median)';
	return {
		file: 'bench-memory-added.svg',
		alt: title,
		svg: barChart({
			title,
			xLabel: 'transfer and file size',
			yLabel: 'MiB added',
			groups,
			series: [
				{ name: 'ours', values: ours },
				{ name: 'HTTP Request', values: http },
			],
			valueLabel: (v) => v.toFixed(1),
		}),
	};
}

const mib = (bytes) => Math.round((bytes / MiB) * 10) / 10;
