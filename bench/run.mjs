// One run of `npm run bench`: the package packed, the n8n host, the emulator and the n8n instances set up
// once; then every chosen part prepares (keys, credentials, inputs, workflows), the credentials and
// workflows are imported, and the parts run one after the other, each emitting its section into the report.
// Returns the report (with totalMs); whoever called decides where it goes.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { startEmulator } from '../tools/lib/emulator.mjs';
import { ensureHost } from '../tools/lib/hosts.mjs';
import { createInstance } from '../tools/lib/instance.mjs';
import { packOnce } from '../tools/lib/pack.mjs';
import { REPO } from '../tools/lib/repo.mjs';
import { emitClosing } from './closing.mjs';
import { benchContext } from './context.mjs';
import { fmtS } from './measure.mjs';
import { packCommit } from './previous.mjs';
import { createReport, log } from './report.mjs';
import { commitOf, emitSetup, machineInfo, nodeVersion } from './setup.mjs';

/** Runs the parts of `parts` (the part modules, in order) that `opt.only` names. */
export async function runBench(opt, parts) {
	const t0 = Date.now();
	const startedAt = new Date();
	const report = createReport();
	const chosen = parts.filter((p) => opt.only.includes(p.name));

	log('build and pack the package…');
	const tarball = await packOnce();
	const host = await ensureHost({ version: '2' });
	let previous;
	if (chosen.some((p) => p.needsPrevious?.(opt))) {
		log(`build and pack the previous version (${opt.previous})…`);
		previous = await packCommit(REPO, opt.previous, log);
	}
	const emu = await startEmulator({ jobTiming: { queuedMs: 1000, runningMs: 2000 } });
	emu.control.grantCredits(100_000);
	const files = fs.mkdtempSync(path.join(os.tmpdir(), 'gs-bench-files-'));
	const cur = await createInstance({ version: '2', fileAccessDir: files });
	const prev = previous ? await createInstance({ version: '2', fileAccessDir: files }) : undefined;
	const machine = machineInfo(host);
	const commitNow = commitOf(REPO);
	try {
		await cur.installPackage(tarball);
		if (prev) await prev.installPackage(previous.tarball);
		machine.n8nNode = nodeVersion(host.nodeBin);
		const ctx = benchContext({ opt, emu, tarball, cur, prev, previous, files, report });
		const prepared = await prepareParts(ctx, chosen);
		const setupMs = Date.now() - t0;
		log(`setup done in ${fmtS(setupMs)}`);

		emitSetup(report, { startedAt, commitNow, previous, machine });
		for (const part of chosen) {
			const p0 = Date.now();
			await part.run(ctx, prepared.get(part));
			report.durations[part.name] = Date.now() - p0;
			log(`part ${parts.indexOf(part) + 1} done in ${fmtS(report.durations[part.name])}`);
		}
		report.totalMs = Date.now() - t0;
		emitClosing(report, {
			partNames: parts.map((p) => p.name),
			machine,
			setupMs,
			totalMs: report.totalMs,
		});
		return report;
	} finally {
		await cur.close();
		if (prev) await prev.close();
		// the baseline of part 4 draws 429s on purpose: the referee's records are reported, not a failure here
		emu.control.clearViolations();
		await emu.close();
		fs.rmSync(files, { recursive: true, force: true });
	}
}

/**
 * The keys both sides of parts 1 and 2 use, then each part's own keys, credentials and inputs; then the
 * credentials and workflows imported into their instances. Returns part -> what its prepare returned.
 */
async function prepareParts(ctx, chosen) {
	const { cur, prev, creds } = ctx;
	ctx.key('ours', { requestsPerMinute: 120 });
	ctx.key('base', { requestsPerMinute: 120 });
	ctx.ourCred('benchOurs', ctx.keys.ours.secret);
	ctx.baseCred('benchBase', ctx.keys.base.secret);
	const prepared = new Map();
	for (const part of chosen) prepared.set(part, await part.prepare(ctx));
	log(`importing ${creds.cur.length + creds.prev.length} credentials…`);
	await cur.importCredentials(creds.cur);
	if (prev && creds.prev.length) await prev.importCredentials(creds.prev);
	const wfs = [...prepared.values()].flatMap((x) => x.workflows ?? []);
	const prevWfs = [...prepared.values()].flatMap((x) => x.prevWorkflows ?? []);
	log(`importing ${wfs.length + prevWfs.length} workflows…`);
	if (wfs.length) await cur.importWorkflow(wfs);
	if (prev && prevWfs.length) await prev.importWorkflow(prevWfs);
	return prepared;
}
