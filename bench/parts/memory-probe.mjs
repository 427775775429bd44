// Where the added memory of part 2 (memory.mjs) is: probed runs of n8n (bench/memprobe.cjs preloaded:
// process.memoryUsage() every 10 ms, GC events, HTTP events), plain and with a scavenge every 10 ms, and
// the same HTTP client without n8n (bench/http-alone.cjs) with the young generation n8n had.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

import { REPO } from '../../tools/lib/repo.mjs';
import { MiB, median } from '../measure.mjs';
import { probeEnv, readProbe, summariseTransfer } from '../probe.mjs';

/**
 * The probed runs ({ probeSet, probes: 'id|mode' -> [summary] }), the young generation n8n had when the
 * first request left (newSpace, median) and the HTTP client alone (alone). `check(ctx, m, r)` judges a run.
 */
export async function probeMemory(ctx, memWf, check) {
	const { opt, files, log } = ctx;
	log('part 2: probed runs (process.memoryUsage() every 10 ms inside n8n, GC events, HTTP events)');
	const probeDir = path.join(files, 'probe');
	fs.mkdirSync(probeDir, { recursive: true });
	const probeSet = memWf.filter((m) => m.size.k !== '5');
	const probes = {}; // id|mode -> [summary]
	let probeSeq = 0;
	const probeRun = async (m, mode, attempt = 1) => {
		const file = path.join(probeDir, `${m.id}-${mode}-${++probeSeq}.ndjson`);
		ctx.emu.control.clearJournal();
		const r = await ctx.run(m.id, {
			timeoutMs: 300_000,
			sampleMs: 20,
			env: probeEnv(file, mode === 'scavenge' ? { gcMs: 10, gc: 'minor' } : {}),
		});
		const ok = check(ctx, m, r);
		const data = readProbe(file);
		const s = summariseTransfer(
			data,
			m.transfer === 'download'
				? { method: 'GET', pathRe: /\/output$/ }
				: { method: 'POST', pathRe: /\/v1\/assets$/ },
		);
		if (!s) {
			// e.g. the process died before the probe wrote the transfer's lines: once more, else left out
			log(
				`  probe of ${m.id} (${mode}): no transfer found (${data.samples.length} samples, ${data.events.length} events, exit ${r.exitCode}${r.signal ? ` ${r.signal}` : ''})`,
			);
			if (attempt < 2) await probeRun(m, mode, attempt + 1);
			return;
		}
		const key = `${m.id}|${mode}`;
		(probes[key] ??= []).push({
			...s,
			ok,
			mainPeak: r.mainPeakRssBytes,
			firstSample: data.samples[0],
		});
	};
	for (let rep = 0; rep < opt.probeReps; rep++) {
		for (const m of probeSet) await probeRun(m, 'plain');
		for (const m of probeSet.filter((x) => x.size.k !== 't')) await probeRun(m, 'scavenge');
		for (const m of probeSet.filter((x) => x.size.k === 't')) await probeRun(m, 'scavenge');
	}
	// the same HTTP client outside n8n: bench/http-alone.cjs with n8n's Node, young generation as in a fresh
	// process and as large as the probe saw in n8n
	const newSpace = median(
		Object.entries(probes)
			.filter(([k]) => k.endsWith('|plain'))
			.flatMap(([, v]) => v.map((x) => x.newSpace)),
	);
	const alone = await httpAlone(ctx.cur.host.nodeBin, [20, 100], newSpace);
	return { probeSet, probes, newSpace, alone };
}

/** bench/http-alone.cjs with n8n's Node: peak arrayBuffers of Node's HTTP client reading a body it drops. */
async function httpAlone(nodeBin, sizes, newSpaceBytes) {
	const script = path.join(REPO, 'bench', 'http-alone.cjs');
	// V8 reports the new space of --min/max-semi-space-size=S as S MiB: ask for what n8n had
	const semiMiB = Number.isFinite(newSpaceBytes)
		? Math.max(1, Math.round(newSpaceBytes / MiB))
		: 64;
	const rows = [];
	for (const mib of sizes) {
		const one = (extra) =>
			JSON.parse(
				execFileSync(nodeBin, [...extra, script, String(mib)], { timeout: 120_000 }).toString(),
			);
		const fresh = one([]);
		const big = one([`--min-semi-space-size=${semiMiB}`, `--max-semi-space-size=${semiMiB}`]);
		rows.push({
			mib,
			fresh: fresh.peakArrayBuffers,
			big: big.peakArrayBuffers,
			freshNewSpace: fresh.newSpace,
			bigNewSpace: big.newSpace,
		});
	}
	return { node: execFileSync(nodeBin, ['--version']).toString().trim(), semiMiB, rows };
}
