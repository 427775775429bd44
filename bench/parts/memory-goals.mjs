// The findings and goals of part 2 (memory.mjs), written from its figures (memory-figures.mjs).
import { fmtMiB } from '../measure.mjs';
import { ratio2, signed } from '../report.mjs';

export function memoryFindings({ newSpace, alone }, f) {
	const { idOf, P, upStart, dAB, dRSS } = f;
	const dl100o = idOf('download', 'ours', '100');
	const dl20o = idOf('download', 'ours', '20');
	const dl100h = idOf('download', 'http', '100');
	const up20o = idOf('upload', 'ours', '20');
	const up20h = idOf('upload', 'http', '20');
	const upTo = idOf('upload', 'ours', 't');
	const upTh = idOf('upload', 'http', 't');
	const majors100 = P(dl100o, 'plain').flatMap((x) => x.arrayBuffersBeforeMajor ?? []);
	return [
		`**Memory (part 2): the added memory is the HTTP client's garbage, not a copy of the file.** During a download, RSS grows with \`arrayBuffers\` (Buffers outside the JS heap): 20 MiB through ours Δ RSS ${signed(dRSS(dl20o))} with Δ arrayBuffers ${signed(dAB(dl20o))}; 100 MiB Δ RSS ${signed(dRSS(dl100o))} with Δ arrayBuffers ${signed(dAB(dl100o))} (HTTP Request: ${signed(dRSS(dl100h))} / ${signed(dAB(dl100h))}). With a young-generation collection every 10 ms the same transfers leave Δ arrayBuffers ${signed(dAB(dl20o, 'scavenge'))} (20 MiB) and ${signed(dAB(dl100o, 'scavenge'))} (100 MiB) and Δ RSS ${signed(dRSS(dl20o, 'scavenge'))} / ${signed(dRSS(dl100o, 'scavenge'))}: the chunks were already written to the store and unreferenced, waiting for a collection. n8n's young generation is ${fmtMiB(newSpace)} by the time a node runs, so the per-chunk JS objects of a transfer never fill it and no scavenge comes; the socket's Buffers pile up, about twice the body (Node's HTTP client alone, with the same young generation, leaves ${fmtMiB(alone.rows.find((x) => x.mib === 20)?.big)} for a 20 MiB body it drops, against ${fmtMiB(alone.rows.find((x) => x.mib === 20)?.fresh)} in a fresh process: table above). Only V8's external-memory pressure starts a mark-compact (${majors100.length ? `seen at ${majors100.map(fmtMiB).join(', ')} of arrayBuffers in the 100 MiB download through ours` : 'none seen in the 100 MiB download through ours'}), so the pile is bounded but not flat: "added" keeps growing past 20 MiB, for HTTP Request as for ours, and how far is V8's heuristic, not the node's code.`,
		uploadFinding(f, { up20o, up20h, upTo, upTh }),
	];
}

/**
 * Where the memory of an upload is when its POST starts. Our hash pass reads the stored file once more (the
 * Idempotency-Key is derived from the bytes); whether that shows as more arrayBuffers than HTTP Request's is
 * up to V8's collections in that run, so the finding says what this run's figures show: a difference of a
 * quarter of the file or more is the second read, less is none worth naming.
 */
export function uploadFinding({ upStart, dAB }, { up20o, up20h, upTo, upTh }) {
	const ours = upStart(up20o);
	const http = upStart(up20h);
	const lead = `The POST itself adds little (Δ arrayBuffers during it: ours ${signed(dAB(up20o))}, HTTP Request ${signed(dAB(up20h))} for 20 MiB). When it starts, ${signed(ours)} of arrayBuffers have piled up in ours since the process started (Read/Write Files' copy of the file into n8n's store, then our hash pass over the stored file for the Idempotency-Key), against ${signed(http)} for HTTP Request (the Read/Write Files copy only); with the tiny file both are ${signed(upStart(upTo))} / ${signed(upStart(upTh))}.`;
	const scavenged = `with a scavenge every 10 ms, arrayBuffers when the POST starts are ${signed(upStart(up20o, 'scavenge'))} for ours and ${signed(upStart(up20h, 'scavenge'))} for HTTP Request`;
	if (ours - http >= 0.25 * 20 * 2 ** 20)
		return `**Upload: the memory is added before the POST, and the sha256 pass is one more file's worth of it.** ${lead} The difference is our second read of the file; like the rest it is garbage (${scavenged}), and it is the price of a key derived from the bytes, which makes an upload replay-safe across executions.`;
	return `**Upload: the memory is added before the POST; in this run our sha256 pass left no more of it than HTTP Request.** ${lead} Our second read of the file (the price of a key derived from the bytes, which makes an upload replay-safe across executions) is garbage collected by the time the POST starts or in the same pile; how much is left is V8's heuristic (${scavenged}).`;
}

export function memoryGoals({ okAll }, { added, flat }) {
	const memMet = (o, h) => h > 0 && o <= 0.5 * h;
	const ok = Object.values(okAll).every(Boolean);
	const a20 = {
		dl: [added('download', 'ours', '20'), added('download', 'http', '20')],
		up: [added('upload', 'ours', '20'), added('upload', 'http', '20')],
	};
	const goals = [
		{
			goal: 'Download memory flat: added at 100 MiB ≤ 1.2 × added at 20 MiB (main process)',
			result: `ours ${signed(added('download', 'ours', '100'))} vs ${signed(added('download', 'ours', '20'))} (×${flat('ours').toFixed(2)}); HTTP Request ×${flat('http').toFixed(2)}`,
			met: ok && flat('ours') <= 1.2,
			note:
				flat('ours') <= 1.2
					? ''
					: 'The growth from 20 to 100 MiB is garbage Buffers of the HTTP client waiting for V8 (see "Where the added memory is"): at 20 MiB no collection has run yet, at 100 MiB V8 caps the pile with a mark-compact. HTTP Request behaves the same. A node cannot call the garbage collector (n8n\'s lint forbids `global`/`process`); n8n could bound it for every node, e.g. with a smaller young generation or `--max-semi-space-size`.',
		},
	];
	for (const [label, key] of [
		['download', 'dl'],
		['upload', 'up'],
	]) {
		const [o, h] = a20[key];
		goals.push({
			goal: `Peak memory added ≤ 0.5 × HTTP Request's (${label}, 20 MiB, main process)`,
			result: `ours ${signed(o)} vs HTTP Request ${signed(h)} (ratio ${ratio2(o, h)})`,
			met: ok && memMet(o, h),
			note: memMet(o, h)
				? ''
				: `Neither node holds the file: n8n 2.41.1's HTTP Request node streams in filesystem mode too, so this compares two streaming clients, and what both add is the same kind of garbage (part 2).${label === 'upload' ? ' Ours adds one more pass of garbage for the sha256 key.' : ''} Half of a streaming client is not reachable by streaming better.`,
		});
	}
	return goals;
}
