// The charts of docs/benchmarks.md, drawn from what a part measured in this run (bench/svg.mjs writes them):
// each is { file, alt, svg }; a part pushes it to report.charts and emits its image line, and the report is
// written with its charts into images/ beside it (report.mjs).
import { lineChart } from './svg.mjs';

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
