// What the soak logs and samples while it runs: a progress line and the RSS of each n8n process every 15 s, one
// sample after the warm-up and one at the end.
import { count } from './run-state.mjs';

const mib = (b) => `${Math.round((b ?? 0) / 2 ** 20)}`;

/**
 * The run's monitor: `rss` fills with samples ({ at (ms since the run started), label, rss: { name: bytes } });
 * `start(loadMs)` starts the ticker and the warm-up sample, `endLoad()` cancels a warm-up sample not taken yet,
 * `stop()` stops the ticker and logs and samples once more (`end`). `jobsBefore`: the emulator's jobs before.
 */
export function runMonitor({ stack, emu, sink, state, log, jobsBefore }) {
	const rss = [];
	const sample = (label) => rss.push({ at: state.elapsed(), label, rss: stack.currentRss() });
	const { stats } = state;
	const progress = () => {
		const jobs = emu.control.jobs().filter((j) => !jobsBefore.has(j.id));
		const states = {};
		for (const j of jobs) count(states, j.state);
		log(
			`${state.stamp()}  calls ${stats.calls.batch}+${stats.calls.replace} (attempts ${stats.attempts.batch + stats.attempts.replace}), items ${stats.items}, jobs ${JSON.stringify(states)}, delivered ${sink.deliveries.size}, faults ${Object.values(stats.faults).reduce((a, b) => a + b, 0)}+${Object.values(stats.processFaults).reduce((a, b) => a + b, 0)}, RSS MiB ${Object.entries(
				stack.currentRss(),
			)
				.map(([k, v]) => `${k} ${mib(v)}`)
				.join(' ')}`,
		);
	};
	let ticker;
	let warmup;
	return {
		rss,
		start(loadMs) {
			ticker = setInterval(() => {
				progress();
				sample(rss.length === 0 ? 'start' : 'during');
			}, 15_000);
			warmup = setTimeout(() => sample('after warm-up'), Math.min(60_000, loadMs / 4));
		},
		endLoad: () => clearTimeout(warmup),
		stop() {
			clearInterval(ticker);
			progress();
			sample('end');
		},
	};
}

/** The samples as the report lists them: { at (s), label, mib: { name: MiB } }. */
export const rssReport = (rss) =>
	rss.map((r) => ({
		at: Math.round(r.at / 1000),
		label: r.label,
		mib: Object.fromEntries(Object.entries(r.rss).map(([k, v]) => [k, Number(mib(v))])),
	}));
