// Part 2 of `npm run bench`: memory moving files. Downloads of finished jobs' outputs and uploads of MP4s
// of several sizes through ours and through n8n's HTTP Request node: peak RSS of n8n's main process and of
// its process tree, median of interleaved repetitions; then probed runs (memory-probe.mjs) say where the
// added memory is. Reported by memory-report.mjs.
import fs from 'node:fs';
import path from 'node:path';

import { REPO } from '../../tools/lib/repo.mjs';
import { loadAverage } from '../setup.mjs';
import { MiB, paddedMp4 } from '../measure.mjs';
import * as W from '../workflows.mjs';
import { probeMemory } from './memory-probe.mjs';
import { emitMemory } from './memory-report.mjs';

export const name = 'memory';
/** Its section of docs/benchmarks.md can be refreshed alone: `npm run bench -- --only=memory --doc`. */
export const docSection = true;
/** How its rows in the closing Goals table and its findings start (doc-section.mjs). */
export const goalPrefix = ['Download memory flat', 'Peak memory added'];
export const findingPrefix = ['**Memory (part 2)', '**Upload: the memory is added before the POST'];

export const options = [
	{ flags: ['mem-reps'], key: 'memReps', parse: Number, default: 5, help: 'part 2: repetitions' },
	{
		flags: ['probe-reps'],
		key: 'probeReps',
		parse: Number,
		default: 1,
		help: 'part 2: repetitions of the probed runs',
	},
];

const DL_SIZES = [
	{ k: 't', bytes: 4096, label: '4 KiB' },
	{ k: '5', bytes: 5 * MiB, label: '5 MiB' },
	{ k: '20', bytes: 20 * MiB, label: '20 MiB' },
	{ k: '100', bytes: 100 * MiB, label: '100 MiB' },
];
const UP_SIZES = [
	{ k: 't', label: '2 KiB' },
	{ k: '5', bytes: 5 * MiB, label: '5 MiB' },
	{ k: '20', bytes: 20 * MiB, label: '20 MiB' },
];

/** Files to upload, finished jobs to download, and a workflow per transfer, side and size. */
export async function prepare({ emu, files }) {
	const DL = DL_SIZES.map((d) => ({ ...d }));
	const UP = UP_SIZES.map((u) => ({ ...u }));
	const sample = fs.readFileSync(path.join(REPO, 'examples', 'samples', 'sample-video.mp4'));
	for (const u of UP) {
		u.file = path.join(files, `bench-up-${u.k}.mp4`);
		fs.writeFileSync(u.file, u.bytes ? paddedMp4(sample, u.bytes) : sample);
		u.label = u.bytes ? u.label : `${(sample.length / 1024).toFixed(1)} KiB`;
	}
	await finishedJobs(emu, DL);
	const memWf = []; // { id, transfer, side, size }
	for (const d of DL) {
		memWf.push({ id: `mDlO${d.k}`, transfer: 'download', side: 'ours', size: d });
		memWf.push({ id: `mDlH${d.k}`, transfer: 'download', side: 'http', size: d });
	}
	for (const u of UP) {
		memWf.push({ id: `mUpO${u.k}`, transfer: 'upload', side: 'ours', size: u });
		memWf.push({ id: `mUpH${u.k}`, transfer: 'upload', side: 'http', size: u });
	}
	return { DL, UP, memWf, workflows: memWf.map((m) => workflowOf(emu, m)) };
}

/** Succeeded jobs with outputs of each download size (d.jobId), created directly: part of no measured run. */
async function finishedJobs(emu, DL) {
	emu.control.setJobTiming({ queuedMs: 0, runningMs: 0 });
	for (const d of DL) {
		emu.control.setOutputBytes(d.bytes);
		const res = await fetch(`${emu.baseUrl}/jobs`, {
			method: 'POST',
			headers: {
				Authorization: `Bearer ${emu.keys.full}`,
				'Content-Type': 'application/json',
				'Idempotency-Key': `bench-dl-setup-${d.k}-${Date.now()}`,
			},
			body: JSON.stringify({
				mode: 'text_to_video',
				prompt: `bench ${d.label} output`,
				durationSeconds: 5,
				aspectRatio: '16:9',
			}),
		});
		d.jobId = (await res.json()).data.id;
	}
	emu.control.setOutputBytes(4096);
	emu.control.setJobTiming({ queuedMs: 1000, runningMs: 2000 });
	for (const d of DL) {
		const job = emu.control.jobs().find((j) => j.id === d.jobId);
		if (job?.state !== 'succeeded')
			throw new Error(`setup job not succeeded: ${JSON.stringify(job)}`);
	}
}

function workflowOf(emu, m) {
	if (m.transfer === 'download')
		return m.side === 'ours'
			? W.dlOurs(m.size.jobId, 'benchOurs', m.id)
			: W.dlBaseline(m.size.jobId, 'benchBase', emu.baseUrl, m.id);
	return m.side === 'ours'
		? W.upOurs(m.size.file, 'benchOurs', m.id)
		: W.upBaseline(
				m.size.file,
				'benchBase',
				emu.baseUrl,
				m.id,
				`bench-baseline-upload-${m.size.k}-0001`,
			);
}

export async function run(ctx, { DL, UP, memWf }) {
	ctx.log(
		`part 2: memory, downloads of ${DL.map((d) => d.label).join(', ')}, uploads of ${UP.map((u) => u.label).join(', ')}`,
	);
	const meta = { t0: Date.now(), loadAtStart: loadAverage() };
	const { peaks, okAll } = await measurePeaks(ctx, memWf);
	const probed = await probeMemory(ctx, memWf, checkRun);
	emitMemory(ctx, { DL, UP, memWf, peaks, okAll, ...probed }, { ...meta, specs: options });
}

/** Peak RSS (main process and tree) of every workflow, once per repetition, interleaved. */
async function measurePeaks(ctx, memWf) {
	const { opt, emu, run } = ctx;
	const peaks = Object.fromEntries(memWf.map((m) => [m.id, { tree: [], main: [] }]));
	const okAll = Object.fromEntries(memWf.map((m) => [m.id, true]));
	for (let rep = 0; rep < opt.memReps; rep++) {
		// interleaved: every workflow once per repetition, the order rotated so drift favours no side
		const order = memWf.map((_, i) => memWf[(i + rep * 3) % memWf.length]);
		for (const m of order) {
			emu.control.clearJournal();
			const r = await run(m.id, { timeoutMs: 300_000, sampleMs: 20 });
			okAll[m.id] &&= checkRun(ctx, m, r);
			peaks[m.id].tree.push(r.peakRssBytes);
			peaks[m.id].main.push(r.mainPeakRssBytes);
		}
	}
	return { peaks, okAll };
}

/** Whether a run moved its file: the upload answered, or the output downloaded into binary data. */
function checkRun({ emu, failText, log }, m, r) {
	const j = emu.control.journal();
	let ok = r.ok;
	if (m.transfer === 'upload') ok &&= j.some((e) => e.path === '/v1/assets' && e.status < 300);
	else {
		ok &&= j.some((e) => /\/output$/.test(e.path) && e.status === 200);
		const node = m.side === 'ours' ? 'Wait for Job' : 'Download';
		const bin =
			r.result?.data?.resultData?.runData?.[node]?.at(-1)?.data?.main?.[0]?.[0]?.binary?.data;
		ok &&= Boolean(bin?.mimeType);
	}
	if (!ok) log(`  ${m.id} not clean: ${failText(r)}`);
	return ok;
}
