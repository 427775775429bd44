// One part's section of docs/benchmarks.md, refreshed without the full run (`npm run bench -- --only=queue
// --doc`), as `npm run soak -- --doc` refreshes its section of docs/reliability.md: a part that has its own
// section (`docSection: true` in its module) emits it between markers, its goals' rows in the closing
// Goals table start with its `goalPrefix`, and its findings' bullets with its `findingPrefix` (each a string
// or a list of them). Text functions, and writeSections, which scripts/bench.mjs calls.
import fs from 'node:fs';
import path from 'node:path';

import { writeCharts, yes } from './report.mjs';

export const sectionStart = (name) => `<!-- bench:${name}:start -->`;
export const sectionEnd = (name) => `<!-- bench:${name}:end -->`;

/** The part's section in `text` (markers included), or undefined. */
export function sectionOf(text, name) {
	const i = text.indexOf(sectionStart(name));
	const j = text.indexOf(sectionEnd(name));
	return i >= 0 && j > i ? text.slice(i, j + sectionEnd(name).length) : undefined;
}

/**
 * `doc` with the part's section replaced by `section` (markers included); without one yet, the section goes
 * before the closing "## Goals" (else at the end).
 */
export function replaceSection(doc, name, section) {
	const old = sectionOf(doc, name);
	if (old) return doc.replace(old, () => section);
	const goals = doc.search(/^## Goals$/m);
	if (goals < 0) return `${doc.trimEnd()}\n\n${section}\n`;
	return `${doc.slice(0, goals)}${section}\n\n${doc.slice(goals)}`;
}

const startsWithAny = (text, prefix) => [prefix].flat().some((p) => p && text.startsWith(p));

/**
 * `doc` with the Goals table's rows whose goal starts with `prefix` (a string or a list) replaced by `rows`
 * (markdown table lines, `| goal | … |`), where the first of them was; without any, `rows` are added at the
 * end of the table.
 */
export function replaceGoalRows(doc, prefix, rows) {
	const lines = doc.split('\n');
	const head = lines.findIndex((l) => /^## Goals$/.test(l));
	if (head < 0) return doc;
	const first = lines.findIndex((l, k) => k > head && l.startsWith('|'));
	if (first < 0) return doc;
	let end = first;
	while (end < lines.length && lines[end].startsWith('|')) end++;
	const mine = (l) => startsWithAny(l.replace(/^\|\s*/, ''), prefix);
	const at = lines.findIndex((l, k) => k >= first && k < end && mine(l));
	const kept = lines.slice(first, end).filter((l) => !mine(l));
	kept.splice(at >= 0 ? at - first : kept.length, 0, ...rows); // no row before `at` is the part's
	return [...lines.slice(0, first), ...kept, ...lines.slice(end)].join('\n');
}

/**
 * `doc` with the Findings list's bullets that start with `prefix` (a string or a list; the text after "- ")
 * replaced by `items` (texts without the "- "), where the first of them was; without any, `items` go first.
 */
export function replaceFindings(doc, prefix, items) {
	const lines = doc.split('\n');
	const head = lines.findIndex((l) => /^## Findings/.test(l));
	if (head < 0) return doc;
	const first = lines.findIndex((l, k) => k > head && l.startsWith('- '));
	if (first < 0) return doc;
	let end = first;
	while (end < lines.length && lines[end].startsWith('- ')) end++;
	const mine = (l) => startsWithAny(l.slice(2), prefix);
	const at = lines.findIndex((l, k) => k >= first && k < end && mine(l));
	const kept = lines.slice(first, end).filter((l) => !mine(l));
	kept.splice(at >= 0 ? at - first : 0, 0, ...items.map((f) => `- ${f}`));
	return [...lines.slice(0, first), ...kept, ...lines.slice(end)].join('\n');
}

/**
 * `doc` with the sections, goal rows and findings of `parts` (part modules with docSection) taken from this run's
 * report (`report.md`, `report.goals`, `report.findings`).
 */
export function refreshedDoc(doc, report, parts) {
	const text = report.md.join('\n');
	let out = doc;
	for (const part of parts) {
		const section = sectionOf(text, part.name);
		if (!section) throw new Error(`the report has no section of part ${part.name}`);
		out = replaceSection(out, part.name, section);
		const rows = report.goals.filter((g) => startsWithAny(g.goal, part.goalPrefix)).map(goalRow);
		out = replaceGoalRows(out, part.goalPrefix, rows);
		if (part.findingPrefix) {
			const items = (report.findings ?? []).filter((f) => startsWithAny(f, part.findingPrefix));
			out = replaceFindings(out, part.findingPrefix, items);
		}
	}
	return out;
}

/** The Goals table's rows (markdown lines) whose goal starts with `prefix` (a string or a list). */
export function goalRowsOf(doc, prefix) {
	const lines = doc.split('\n');
	const head = lines.findIndex((l) => /^## Goals$/.test(l));
	if (head < 0) return [];
	const rows = [];
	for (let k = lines.findIndex((l, i) => i > head && l.startsWith('|')); k > 0; k++) {
		if (!lines[k]?.startsWith('|')) break;
		if (startsWithAny(lines[k].replace(/^\|\s*/, ''), prefix)) rows.push(lines[k]);
	}
	return rows;
}

/**
 * `doc` (written by a full run) with the sections and goal rows of `parts` (parts with their own section that
 * the run did not run, e.g. an opt-in one) as they were in `previous`, the doc before the run.
 */
export function keepSections(doc, previous, parts) {
	let out = doc;
	for (const part of parts) {
		const section = sectionOf(previous, part.name);
		if (!section) continue;
		out = replaceSection(out, part.name, section);
		out = replaceGoalRows(out, part.goalPrefix, goalRowsOf(previous, part.goalPrefix));
	}
	return out;
}

/** A goal as a row of the closing Goals table (closing.mjs's columns). */
const goalRow = (g) => `| ${[g.goal, g.result, yes(g.met), g.note].join(' | ')} |`;

/** Rewrites `file` (docs/benchmarks.md) with the sections and goal rows of `parts` from `report`. */
export function writeSections(file, report, parts) {
	fs.writeFileSync(file, refreshedDoc(fs.readFileSync(file, 'utf8'), report, parts));
	writeCharts(file, report);
	writeBlocks(path.dirname(file), report);
}

/**
 * `doc` with the text between the markers of block `name` replaced by `text` (the markers kept, each on its
 * own line); throws when the page has no such markers (a block is never added where nobody placed it).
 */
export function replaceBlock(doc, name, text) {
	const old = sectionOf(doc, name);
	if (!old) throw new Error(`no ${sectionStart(name)} … ${sectionEnd(name)} markers`);
	return doc.replace(old, () => `${sectionStart(name)}\n\n${text}\n\n${sectionEnd(name)}`);
}

/** Writes the report's blocks (`report.blocks`: { doc, name, text }) into the pages of `docsDir`. */
export function writeBlocks(docsDir, report) {
	for (const b of report.blocks ?? []) {
		const file = path.join(docsDir, b.doc);
		try {
			fs.writeFileSync(file, replaceBlock(fs.readFileSync(file, 'utf8'), b.name, b.text));
		} catch (error) {
			throw new Error(`${file}: ${error.message}`);
		}
	}
}

/**
 * The line a part with its own section starts with, since that section may come from a run of its own
 * (`--only=<part> --doc`), not the full run the rest of the doc states: when, at which commit, on what load,
 * how long, and with which of its options (`specs`, the part's `options`), each said to be the default or not.
 */
export function runNote({ specs, opt, commit, cores, loadAtStart, loadAtEnd, partMs }) {
	const shown = specs.filter((s) => s.default !== undefined);
	const value = (v) => (Array.isArray(v) ? v.join(',') : String(v));
	const changed = shown.filter((s) => value(opt[s.key]) !== value(s.default));
	const opts = shown.map((s) => `\`--${s.flags[0]}=${value(opt[s.key])}\``).join(' ');
	const which = changed.length
		? `not the defaults for ${changed.map((s) => `\`--${s.flags[0]}\` (default ${value(s.default)})`).join(', ')}`
		: 'the defaults';
	return `Run on ${new Date().toISOString()} (commit ${commit}, ${cores} cores, load average ${loadAtStart} at the start, ${loadAtEnd} at the end); the part took ${(partMs / 1000).toFixed(1)} s, with ${opts} (${which}).`;
}
