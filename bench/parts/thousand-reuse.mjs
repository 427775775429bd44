// Part 7 (a thousand videos) over several sessions: its documented run takes hours, so a run's record written
// by --thousand-dump carries what it was measured with (`provenance`: the run's settings, a hash of the
// package's sources, the commit, when), and --thousand-reuse=DIR takes such a record instead of running the
// run again when both match this session's (thousand.mjs runSteps). A record that failed, or of other settings
// or other sources, is never taken. The section then says which runs came from which session and commit.
import fs from 'node:fs';
import path from 'node:path';

import { hashFiles } from '../../tools/lib/pack.mjs';
import { REPO } from '../../tools/lib/repo.mjs';
import { runTag } from './thousand-figures.mjs';
import { EXAMPLES_USED } from './thousand-workflows.mjs';

/**
 * What the package under test is made from, as far as a run of part 7 can tell: its manifest and build
 * settings, its nodes and credentials, and the examples the part's workflows are built from (their node
 * parameters are what runs). Not the README, licence, icons or other examples of tools/lib/pack.mjs's
 * PACK_INPUTS (they change the tarball, not what a run does), nor the emulator or the bench itself.
 */
export const SOURCE_INPUTS = [
	'package.json',
	'tsconfig.json',
	'nodes',
	'credentials',
	...EXAMPLES_USED.map((f) => `examples/${f}`),
];

/** sha256 (16 hex digits) of SOURCE_INPUTS under `root`, as tools/lib/pack.mjs keys its pack cache. */
export const sourcesHash = (root = REPO) => hashFiles(SOURCE_INPUTS, root);

const shown = (v) => (v === undefined ? 'none' : JSON.stringify(v));

/**
 * Why `record` may not stand for a run of `settings` on sources `sources`, or undefined when it may: it failed,
 * it carries no provenance (written before --thousand-reuse), a setting differs, or the sources do.
 */
export function whyNotReused(record, { settings, sources }) {
	if (record.failed) return `it failed (${record.failed})`;
	const p = record.provenance;
	if (!p?.settings || !p.sources) return 'it carries no settings and sources hash';
	const keys = [...new Set([...Object.keys(settings), ...Object.keys(p.settings)])];
	const differ = keys.filter((k) => shown(settings[k]) !== shown(p.settings[k]));
	if (differ.length)
		return `other settings (${differ.map((k) => `${k} ${shown(p.settings[k])} there, ${shown(settings[k])} here`).join('; ')})`;
	if (p.sources !== sources) return `other package sources (${p.sources} there, ${sources} here)`;
	return undefined;
}

/**
 * The record in `file` if it may stand for the run ({ record }), why not ({ why }), or {} when there is no
 * such file.
 */
export function reusable(file, expected) {
	let text;
	try {
		text = fs.readFileSync(file, 'utf8');
	} catch (error) {
		if (error.code === 'ENOENT') return {};
		return { why: `unreadable (${error.message})` };
	}
	let record;
	try {
		record = JSON.parse(text);
	} catch (error) {
		return { why: `not JSON (${error.message})` };
	}
	const why = whyNotReused(record, expected);
	return why ? { why } : { record };
}

/** Writes `record` as `dir`/`name` whole or not at all (a run cut short leaves no half record to reuse). */
export function writeRecord(dir, name, record) {
	fs.mkdirSync(dir, { recursive: true });
	const file = path.join(dir, name);
	const tmp = `${file}.${process.pid}.tmp`;
	fs.writeFileSync(tmp, JSON.stringify(record, null, 1));
	fs.renameSync(tmp, file);
}

/**
 * The section's sentence on where its runs come from, when some were reused (`all`: the part's records, a
 * reused one with `reused`, each with its `provenance`); undefined when every run was measured in this session.
 */
export function sessionsText(all, { sources }) {
	if (!all.some((r) => r.reused)) return undefined;
	const sessions = new Map();
	for (const r of all) {
		const p = r.provenance ?? {};
		const s = sessions.get(p.session) ?? { session: p.session, commit: p.commit, runs: [] };
		s.runs.push(r);
		sessions.set(p.session, s);
	}
	const list = [...sessions.values()].sort((a, b) => String(a.session).localeCompare(b.session));
	const said = list.map(
		(s) =>
			`${s.runs.map(runTag).join(', ')} ${s.runs[0].reused ? 'reused, measured' : 'measured in this session'} from ${s.session} at commit ${s.commit}`,
	);
	return `Measured over ${list.length} session${list.length > 1 ? 's' : ''} (\`--thousand-reuse\`: a run whose record from an earlier session has the same settings and package sources is not run again): ${said.join('; ')}. Every run on the same package sources (sha256 ${sources} of ${SOURCE_INPUTS.join(', ')}).`;
}
