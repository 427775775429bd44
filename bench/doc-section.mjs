// One part's section of docs/benchmarks.md, refreshed without the full run (`npm run bench -- --only=queue
// --doc`), as `npm run soak -- --doc` refreshes its section of docs/reliability.md: a part that has its own
// section (`docSection: true` in its module) emits it between markers, and its goals' rows in the closing
// Goals table start with its `goalPrefix`. Text functions, and writeSections, which scripts/bench.mjs calls.
import fs from 'node:fs';

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

/**
 * `doc` with the Goals table's rows whose goal starts with `prefix` replaced by `rows` (markdown table lines,
 * `| goal | … |`), where the first of them was; without any, `rows` are added at the end of the table.
 */
export function replaceGoalRows(doc, prefix, rows) {
	const lines = doc.split('\n');
	const head = lines.findIndex((l) => /^## Goals$/.test(l));
	if (head < 0) return doc;
	const first = lines.findIndex((l, k) => k > head && l.startsWith('|'));
	if (first < 0) return doc;
	let end = first;
	while (end < lines.length && lines[end].startsWith('|')) end++;
	const mine = (l) => l.replace(/^\|\s*/, '').startsWith(prefix);
	const at = lines.findIndex((l, k) => k >= first && k < end && mine(l));
	const kept = lines.slice(first, end).filter((l) => !mine(l));
	kept.splice(at >= 0 ? at - first : kept.length, 0, ...rows); // no row before `at` is the part's
	return [...lines.slice(0, first), ...kept, ...lines.slice(end)].join('\n');
}

/**
 * `doc` with the sections and goal rows of `parts` (part modules with docSection) taken from this run's
 * report (`report.md`, `report.goals`).
 */
export function refreshedDoc(doc, report, parts) {
	const text = report.md.join('\n');
	let out = doc;
	for (const part of parts) {
		const section = sectionOf(text, part.name);
		if (!section) throw new Error(`the report has no section of part ${part.name}`);
		out = replaceSection(out, part.name, section);
		const rows = report.goals.filter((g) => g.goal.startsWith(part.goalPrefix)).map(goalRow);
		out = replaceGoalRows(out, part.goalPrefix, rows);
	}
	return out;
}

/** A goal as a row of the closing Goals table (closing.mjs's columns). */
const goalRow = (g) => `| ${[g.goal, g.result, yes(g.met), g.note].join(' | ')} |`;

/** Rewrites `file` (docs/benchmarks.md) with the sections and goal rows of `parts` from `report`. */
export function writeSections(file, report, parts) {
	fs.writeFileSync(file, refreshedDoc(fs.readFileSync(file, 'utf8'), report, parts));
	writeCharts(file, report);
}
