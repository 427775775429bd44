// Reading what bench/memprobe.cjs wrote during one `n8n execute` (see there): memory samples of n8n's main
// process and its HTTP client events, summarised around the file transfer.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const PROBE_FILE = path.join(path.dirname(fileURLToPath(import.meta.url)), 'memprobe.cjs');

/**
 * Environment for a probed run: the preload and its output file; with `gcMs` > 0 also a garbage collection
 * of kind `gc` ('minor' = scavenge of the young generation, or 'full') every `gcMs`.
 */
export function probeEnv(outFile, { periodMs = 10, gcMs = 0, gc = 'minor' } = {}) {
	return {
		NODE_OPTIONS: `--require ${PROBE_FILE}${gcMs > 0 ? ' --expose-gc' : ''}`,
		GS_MEMPROBE_FILE: outFile,
		GS_MEMPROBE_MS: String(periodMs),
		GS_MEMPROBE_GC_MS: String(gcMs),
		GS_MEMPROBE_GC: gc,
	};
}

const KEYS = ['rss', 'heapTotal', 'heapUsed', 'external', 'arrayBuffers'];

/** { samples: [{t, rss, heapTotal, heapUsed, external, arrayBuffers}], events: [{t, e, m, p, ...}] } */
export function readProbe(file) {
	const samples = [];
	const events = [];
	let text = '';
	try {
		text = fs.readFileSync(file, 'utf8');
	} catch {
		return { samples, events };
	}
	for (const line of text.split('\n')) {
		if (!line) continue;
		let o;
		try {
			o = JSON.parse(line);
		} catch {
			continue; // a line cut by a crash
		}
		if (o.s) samples.push(Object.fromEntries([['t', o.t], ...KEYS.map((k, i) => [k, o.s[i]])]));
		else if (o.e) events.push(o);
	}
	samples.sort((a, b) => a.t - b.t);
	return { samples, events };
}

/**
 * The transfer (the request whose path matches `pathRe`, method `method`): its start and end, the memory
 * just before it, the highest of each figure from its start to `afterMs` after its end, the figures at the
 * RSS peak of that span, and the RSS peak of the whole run.
 */
export function summariseTransfer({ samples, events }, { method, pathRe, afterMs = 500 }) {
	const start = events.find((e) => e.e === 'req' && e.m === method && pathRe.test(e.p));
	if (!start || !samples.length) return undefined;
	const end =
		events.find((e) => e.e === 'res-end' && e.m === method && pathRe.test(e.p) && e.t >= start.t) ??
		events.find((e) => e.e === 'res' && e.m === method && pathRe.test(e.p) && e.t >= start.t);
	const endT = end?.t ?? samples[samples.length - 1].t;
	const before = [...samples].reverse().find((s) => s.t <= start.t) ?? samples[0];
	const span = samples.filter((s) => s.t >= start.t && s.t <= endT + afterMs);
	if (!span.length) return undefined;
	const max = Object.fromEntries(KEYS.map((k) => [k, Math.max(...span.map((s) => s[k]))]));
	const atPeak = span.reduce((a, s) => (s.rss > a.rss ? s : a), span[0]);
	const after = samples.filter((s) => s.t > endT + afterMs);
	const gcs = events.filter((e) => e.e === 'gc' && e.t >= start.t && e.t <= endT + afterMs);
	const gcCount = {};
	for (const g of gcs) gcCount[g.kind] = (gcCount[g.kind] ?? 0) + 1;
	// ArrayBuffer memory just before each mark-compact in the transfer: what V8 let pile up before collecting
	const beforeMajor = gcs
		.filter((g) => g.kind === 'major')
		.map((g) => [...span].reverse().find((x) => x.t <= g.t)?.arrayBuffers)
		.filter((x) => x !== undefined);
	const heap = events.find((e) => e.e === 'heap');
	return {
		newSpace: heap?.newSpace,
		gcCount,
		arrayBuffersBeforeMajor: beforeMajor,
		transferMs: endT - start.t,
		before,
		max,
		atPeak,
		runPeakRss: Math.max(...samples.map((s) => s.rss)),
		/** RSS peak after the transfer (result printing, shutdown): tells whether it, not the transfer, set the run's peak. */
		afterPeakRss: after.length ? Math.max(...after.map((s) => s.rss)) : NaN,
		samples: samples.length,
	};
}
