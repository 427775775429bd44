// The section of part 2 (memory.mjs): peaks and "added" per transfer and size, the probed runs, the uploads'
// arrayBuffers and the HTTP client alone; then its findings and goals (memory-goals.mjs).
import path from 'node:path';

import { memoryChart } from '../charts.mjs';
import { sectionEnd, sectionStart } from '../doc-section.mjs';
import { fmtMiB } from '../measure.mjs';
import { PROBE_FILE } from '../probe.mjs';
import { mib1, ms1, ratio2, signed, table } from '../report.mjs';
import { partRunNote } from '../setup.mjs';
import { memoryFigures } from './memory-figures.mjs';
import { memoryFindings, memoryGoals } from './memory-goals.mjs';

/**
 * data: { DL, UP, memWf, peaks, okAll, probeSet, probes, newSpace, alone }; meta: { t0, loadAtStart, specs }
 * (the part's options), for the line that says how this section was run.
 */
export function emitMemory(ctx, data, meta) {
	const f = memoryFigures(data);
	ctx.report.keep(sectionStart('memory'));
	emitPeaks(ctx, data, f, meta);
	emitProbes(ctx, data, f);
	emitUploads(ctx, data, f);
	emitAlone(ctx, data);
	ctx.report.keep(sectionEnd('memory'));
	ctx.report.findings.push(...memoryFindings(data, f));
	ctx.report.goals.push(...memoryGoals(data, f));
}

function emitPeaks(
	{ opt, emit, report },
	{ DL, UP, peaks, okAll },
	{ med, idOf, added, flat },
	meta,
) {
	emit('## 2. Memory moving files (downloads and uploads of several sizes)');
	emit();
	emit(partRunNote(meta, opt));
	emit();
	emit(
		`Peak RSS of n8n's main process (where the nodes run) and of the whole process tree (main + task runner + helpers, summed from /proc every 20 ms) during one \`n8n execute\`; median of ${opt.memReps} runs, all workflows interleaved in each repetition. Downloads: a finished job's output (\`setOutputBytes\`) through ours (**Wait for Job**, download on; Download Output uses the same download path) and through n8n's **HTTP Request** (GET output, response format File). Uploads: a valid MP4 (the sample padded with an ISO-BMFF \`free\` box) read from disk by Read/Write Files, then ours (**Asset Upload**) or HTTP Request (POST /v1/assets, binary body). **Added** = the median peak minus the median peak of the same workflow with the tiny file (${DL[0].label} output / ${UP[0].label} upload): n8n, the node's code and the HTTP client are loaded in both, so the difference is what the file's size costs.`,
	);
	emit();
	const rows = [];
	for (const [transfer, sizes] of [
		['download', DL],
		['upload', UP],
	]) {
		for (const s of sizes) {
			const o = idOf(transfer, 'ours', s.k);
			const h = idOf(transfer, 'http', s.k);
			const isT = s.k === 't';
			rows.push([
				transfer,
				s.label,
				fmtMiB(med(o)),
				fmtMiB(med(h)),
				isT ? '—' : signed(added(transfer, 'ours', s.k)),
				isT ? '—' : signed(added(transfer, 'http', s.k)),
				isT ? '—' : ratio2(added(transfer, 'ours', s.k), added(transfer, 'http', s.k)),
				isT
					? '—'
					: `${signed(added(transfer, 'ours', s.k, 'tree'))} / ${signed(added(transfer, 'http', s.k, 'tree'))}`,
				peaks[o].main.map(mib1).join(', '),
				peaks[h].main.map(mib1).join(', '),
				okAll[o] && okAll[h] ? 'ok' : 'FAILED',
			]);
		}
	}
	emit(
		table(
			[
				'Transfer',
				'Size',
				'Peak main, ours',
				'Peak main, HTTP Request',
				'Added, ours',
				'Added, HTTP Request',
				'Ratio ours/HTTP',
				'Added (tree), ours / HTTP',
				'Runs main, ours (MiB)',
				'Runs main, HTTP (MiB)',
				'Run',
			],
			rows,
		),
	);
	emit();
	emit(
		`Flatness of downloads (added at 100 MiB ÷ added at 20 MiB, main process): ours **${flat('ours').toFixed(2)}**, HTTP Request ${flat('http').toFixed(2)} (goal ≤ 1.2).`,
	);
	emit();
	// the picture: the "Added" columns above, ours beside HTTP Request per transfer and size
	const chart = memoryChart({ DL, UP, added });
	report.charts.push(chart);
	emit(`![${chart.alt}](images/${chart.file})`);
	emit();
}

/** One row of the probe table: a workflow in one mode, medians over its probed runs. */
function probeRow(m, mode, runs, { pm }) {
	const d = (k) => pm(m.id, mode, (x) => x.max[k] - x.before[k]);
	const counts = {};
	for (const x of runs)
		for (const [k, v] of Object.entries(x.gcCount ?? {})) counts[k] = (counts[k] ?? 0) + v;
	const gcParts = Object.entries(counts).map(([k, v]) => `${v / runs.length} ${k}`);
	const beforeMajor = runs.flatMap((x) => x.arrayBuffersBeforeMajor ?? []);
	return [
		m.transfer,
		m.side === 'ours' ? 'ours' : 'HTTP Request',
		m.size.label,
		mode === 'plain' ? '—' : 'every 10 ms',
		ms1(pm(m.id, mode, (x) => x.transferMs)),
		fmtMiB(pm(m.id, mode, (x) => x.before.rss)),
		signed(d('rss')),
		signed(d('heapUsed')),
		signed(d('heapTotal')),
		signed(d('external')),
		signed(d('arrayBuffers')),
		gcParts.length ? gcParts.join(', ') : 'none',
		beforeMajor.length ? beforeMajor.map(fmtMiB).join(', ') : '—',
		fmtMiB(pm(m.id, mode, (x) => x.runPeakRss)),
		runs.every((x) => x.ok) ? 'ok' : 'FAILED',
	];
}

function emitProbes({ opt, emit }, { probeSet }, f) {
	emit('### Where the added memory is (probed runs)');
	emit();
	emit(
		`Bench-only instrumentation: \`NODE_OPTIONS=--require bench/${path.basename(PROBE_FILE)}\` in the n8n process of these runs only (nothing in nodes/ changes) samples \`process.memoryUsage()\` every 10 ms, records every garbage collection (perf_hooks) and the HTTP client's request/response events (diagnostics_channel). ${opt.probeReps} run${opt.probeReps === 1 ? '' : 's'} per row (median when more). "Before" = the last sample before the transfer's request started; "max" = the highest value from the request's start to 500 ms after its response ended; Δ = max − before. "Scavenge every 10 ms" = the same run with a young-generation collection (\`gc({type: 'minor'})\`, --expose-gc) every 10 ms from the start of the process: what is left is memory still referenced, the rest was garbage waiting for a collection (the frequent scavenges also change n8n's start-up, so only the Δ columns of those rows compare).`,
	);
	emit();
	const probeRows = [];
	for (const m of probeSet) {
		for (const mode of ['plain', 'scavenge']) {
			const runs = f.P(m.id, mode);
			if (runs.length) probeRows.push(probeRow(m, mode, runs, f));
		}
	}
	emit(
		table(
			[
				'Transfer',
				'Node',
				'Size',
				'Scavenge',
				'Transfer time',
				'RSS before',
				'Δ RSS',
				'Δ heapUsed',
				'Δ heapTotal',
				'Δ external',
				'Δ arrayBuffers',
				'GCs during the transfer',
				'arrayBuffers at each mark-compact',
				'Run peak RSS (probe)',
				'Run',
			],
			probeRows,
		),
	);
	emit();
}

// uploads: what was already there when the POST started (Read/Write Files' copy into the store, and for ours the sha256 pass)
function emitUploads({ emit }, { UP }, { idOf, upStart, dAB }) {
	const row = (label, id) => [label, signed(upStart(id)), signed(dAB(id))];
	emit(
		table(
			[
				'Upload',
				'arrayBuffers when the POST starts (above the first sample)',
				'Δ arrayBuffers during the POST',
			],
			[
				row('ours, ' + UP[0].label, idOf('upload', 'ours', 't')),
				row('ours, 20 MiB', idOf('upload', 'ours', '20')),
				row('HTTP Request, ' + UP[0].label, idOf('upload', 'http', 't')),
				row('HTTP Request, 20 MiB', idOf('upload', 'http', '20')),
			],
		),
	);
	emit();
}

function emitAlone({ emit }, { newSpace, alone }) {
	emit(
		`The same HTTP client without n8n (bench/http-alone.cjs on n8n's Node ${alone.node}: a loopback server in another process sends the body, the client reads it to the end and drops it, no file, no n8n, no node of ours): the highest \`arrayBuffers\` above its start. In the probed n8n runs V8's new space (young generation) was ${fmtMiB(newSpace)} when the first request left (median): V8 grows it while n8n starts (it allocates a lot), so in the node's run a scavenge — the cheap collection that frees dead Buffers of the young generation — comes only after that much new allocation.`,
	);
	emit();
	emit(
		table(
			[
				'Body',
				`Young generation as a fresh process (new space ${fmtMiB(alone.rows[0]?.freshNewSpace)})`,
				`New space fixed at ${fmtMiB(alone.rows[0]?.bigNewSpace)} as in n8n (\`--min/max-semi-space-size=${alone.semiMiB}\`)`,
			],
			alone.rows.map((x) => [`${x.mib} MiB`, fmtMiB(x.fresh), fmtMiB(x.big)]),
		),
	);
	emit();
}
