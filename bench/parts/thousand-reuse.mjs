// Part 7 (a thousand videos) over several sessions: its documented run takes hours, so a run's record written
// by --thousand-dump carries what it was measured with (`provenance`: the run's settings, a hash of the
// package's sources, the commit, when), and --thousand-reuse=DIR takes such a record instead of running the
// run again when both match this session's (thousand.mjs runSteps). A record that failed, or of other settings
// or other sources, is never taken. The section then says which runs came from which session and commit.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { hashFiles } from '../../tools/lib/pack.mjs';
import { REPO } from '../../tools/lib/repo.mjs';
import { PUBLISH_EXAMPLE } from '../../tools/lib/s3.mjs';
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

/**
 * What a run of n8n's own nodes (side `base`: items-base, executions-base) is made from of this repo: the S3
 * node of the publish example, which it uploads with. It runs none of the package's nodes, so a change to the
 * package leaves its record standing (about 1.5 hours of runs at 2, 4 and 8 workers).
 */
export const BASE_INPUTS = [`examples/${PUBLISH_EXAMPLE}`];

/** sha256 (16 hex digits) of BASE_INPUTS under `root`. */
export const baseSourcesHash = (root = REPO) => hashFiles(BASE_INPUTS, root);

/**
 * baseSourcesHash of the repo `root` at `commit` (from git, the work tree untouched), for a record written
 * before records carried it; undefined when the commit is not in the clone.
 */
export function baseSourcesAt(commit, root = REPO) {
	const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gs-base-sources-'));
	try {
		for (const rel of BASE_INPUTS) {
			const text = execFileSync('git', ['-C', root, 'show', `${commit}:${rel}`], {
				stdio: ['ignore', 'pipe', 'ignore'],
			});
			fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
			fs.writeFileSync(path.join(dir, rel), text);
		}
		return hashFiles(BASE_INPUTS, dir);
	} catch {
		return undefined;
	} finally {
		fs.rmSync(dir, { recursive: true, force: true });
	}
}

const shown = (v) => (v === undefined ? 'none' : JSON.stringify(v));

/**
 * Why `record` may not stand for a run of `settings`, or undefined when it may: it failed, it carries no
 * provenance (written before --thousand-reuse), a setting differs, or what the run is made from does — for a
 * run of ours the package's sources (`sources`), for a run of n8n's own nodes (`base`) BASE_INPUTS
 * (`baseSources`; a record written before it carried them: BASE_INPUTS at its commit, from git).
 */
export function whyNotReused(record, { settings, sources, baseSources, base = false }) {
	if (record.failed) return `it failed (${record.failed})`;
	const p = record.provenance;
	if (!p?.settings || !p.sources) return 'it carries no settings and sources hash';
	const keys = [...new Set([...Object.keys(settings), ...Object.keys(p.settings)])];
	const differ = keys.filter((k) => shown(settings[k]) !== shown(p.settings[k]));
	if (differ.length)
		return `other settings (${differ.map((k) => `${k} ${shown(p.settings[k])} there, ${shown(settings[k])} here`).join('; ')})`;
	if (base) {
		const there = p.baseSources ?? baseSourcesAt(p.commit);
		if (there === undefined)
			return `its commit ${p.commit} is not in this clone, so what it ran of ${BASE_INPUTS.join(', ')} is unknown`;
		if (there !== baseSources)
			return `other ${BASE_INPUTS.join(', ')} (${there} there, ${baseSources} here)`;
		return undefined;
	}
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
export function sessionsText(all, { sources, baseSources }) {
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
	const bases = all.some((r) => r.side === 'base')
		? ` n8n's own nodes run none of the package's, so theirs stand as long as ${BASE_INPUTS.join(', ')} is the same (sha256 ${baseSources}).`
		: '';
	const ours = bases ? 'Every run of ours' : 'Every run';
	return `Measured over ${list.length} session${list.length > 1 ? 's' : ''} (\`--thousand-reuse\`: a run whose record from an earlier session has the same settings and package sources is not run again): ${said.join('; ')}. ${ours} on the same package sources (sha256 ${sources} of ${SOURCE_INPUTS.join(', ')}).${bases}`;
}
