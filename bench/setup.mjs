// The setup section of the report: the machine and the versions a run measured (the package's commit, n8n
// and its Node), and the opening paragraphs of docs/benchmarks.md.
import { execFileSync } from 'node:child_process';
import os from 'node:os';

import { REPO } from '../tools/lib/repo.mjs';
import { runNote } from './doc-section.mjs';
import { table } from './report.mjs';

/** The machine as the report names it; `n8nNode` is filled in once the host's Node is known. */
export function machineInfo(host) {
	return {
		cpu: os.cpus()[0]?.model ?? 'unknown',
		cores: os.cpus().length,
		ramGiB: (os.totalmem() / 2 ** 30).toFixed(1),
		node: process.version,
		n8n: host.n8nVersion,
		kernel: `${os.type()} ${os.release()}`,
		load: os
			.loadavg()
			.map((x) => x.toFixed(2))
			.join(' '),
	};
}

/** The n8n host's Node version, e.g. v24.21.0. */
export const nodeVersion = (nodeBin) => execFileSync(nodeBin, ['--version']).toString().trim();

/** HEAD's short hash, and whether nodes/ or credentials/ have uncommitted changes. */
export function commitOf(repo) {
	try {
		const head = execFileSync('git', ['-C', repo, 'rev-parse', '--short', 'HEAD'])
			.toString()
			.trim();
		const dirty = execFileSync('git', [
			'-C',
			repo,
			'status',
			'--porcelain',
			'--',
			'nodes',
			'credentials',
		])
			.toString()
			.trim();
		return `${head}${dirty ? ' + uncommitted changes in nodes/' : ''}`;
	} catch {
		return 'unknown';
	}
}

/** Title, what was measured on what, and how (before the parts' sections). */
export function emitSetup({ emit }, { startedAt, commitNow, previous, machine }) {
	emit("# Benchmarks: our nodes vs n8n's own nodes and vs the previous version");
	emit();
	emit(
		`Written by \`npm run bench\` (scripts/bench.mjs) on ${startedAt.toISOString()}; every figure below is the one this run printed. Package under test: commit ${commitNow}${previous ? `; previous version: commit ${previous.commit.slice(0, 7)}` : ''}.`,
	);
	emit();
	emit(
		table(
			['Machine', ''],
			[
				['CPU', `${machine.cpu} × ${machine.cores} cores`],
				['RAM', `${machine.ramGiB} GiB`],
				['OS', machine.kernel],
				[
					'n8n',
					`${machine.n8n} on Node ${machine.n8nNode} (filesystem binary mode, \`n8n execute\` per run)`,
				],
				['Bench / emulator', `Node ${process.version}, emulator in the bench process on 127.0.0.1`],
				['Load average at start', machine.load],
			],
		),
	);
	emit();
	emit(
		"Baseline = the same flow built only from n8n's own nodes: HTTP Request (v4.2) with a Header Auth credential (`Authorization: Bearer <key>`), Wait (v1.1), IF (v2.2). Previous version = this package built from an earlier commit and installed into a separate n8n instance (same node types, same workflow). Every run is a fresh `n8n execute` process, one at a time; requests are counted from the emulator's journal (each side has its own API key). The machine may be shared with other work (its load average is printed at start and end): wall and CPU figures carry that noise.",
	);
	emit();
}

/** The load average now, as the report prints it ("0.52 0.61 0.70"). */
export const loadAverage = () =>
	os
		.loadavg()
		.map((x) => x.toFixed(2))
		.join(' ');

/**
 * The first line of a part's own section (doc-section.mjs runNote): when, at which commit, on how many cores,
 * the load around it, and with which options; `meta` is the part's { specs, loadAtStart, t0 }.
 */
export const partRunNote = (meta, opt) =>
	runNote({
		specs: meta.specs,
		opt,
		commit: commitOf(REPO),
		cores: os.cpus().length,
		loadAtStart: meta.loadAtStart,
		loadAtEnd: loadAverage(),
		partMs: Date.now() - meta.t0,
	});
