// The report of `npm run bench` as it is written: every section a part emits is printed and kept for
// docs/benchmarks.md, with the goals (met or not, and why) and the findings the parts measured; the markdown
// table and the number formats the sections share.
import fs from 'node:fs';
import path from 'node:path';

import { MiB, fmtMiB } from './measure.mjs';

export const say = (m = '') => process.stdout.write(`${m}\n`);
export const log = (m) => process.stderr.write(`[bench] ${m}\n`);

export const ms1 = (ms) => (Number.isFinite(ms) ? `${Math.round(ms)} ms` : 'n/a');
export const yes = (b) => (b ? '**met**' : '**not met**');
export const mib1 = (b) => (Number.isFinite(b) ? (b / MiB).toFixed(1) : 'n/a');
export const signed = (b) =>
	!Number.isFinite(b) ? 'n/a' : b >= 0 ? `+${fmtMiB(b)}` : `−${fmtMiB(-b)}`;
export const ratio2 = (a, b) =>
	Number.isFinite(a) && Number.isFinite(b) && b > 0 ? (a / b).toFixed(2) : 'n/a';

/** Markdown table; also what the console shows. */
export function table(head, rows) {
	const all = [head, ...rows].map((r) => r.map((c) => String(c ?? '')));
	const w = head.map((_, i) => Math.max(3, ...all.map((r) => r[i].length)));
	const line = (r) => `| ${r.map((c, i) => c.padEnd(w[i])).join(' | ')} |`;
	return [
		line(all[0]),
		`| ${w.map((n) => '-'.repeat(n)).join(' | ')} |`,
		...all.slice(1).map(line),
	].join('\n');
}

/** A part's goals ({ goal, result, met, note }) as a table, with `head` for its four columns. */
export const goalsTable = (goals, head = ['Goal', 'Result', 'Met?', 'Why']) =>
	table(
		head,
		goals.map((g) => [g.goal, g.result, yes(g.met), g.note]),
	);

/**
 * An empty report: `emit(text)` prints a line and keeps it (`keep(text)` only keeps it); `goals` ({ goal, result, met, note }),
 * `findings` (text with this run's figures) and `durations` (part name -> ms) fill up as the parts run.
 */
export function createReport() {
	const md = [];
	return {
		md,
		goals: [],
		findings: [],
		durations: {},
		charts: [], // { file, alt, svg }: written into images/ beside the report (charts.mjs)
		// { doc, name, text }: a block another page of docs/ shows between its markers (doc-section.mjs writeBlocks)
		blocks: [],
		emit(text = '') {
			say(text);
			md.push(text);
		},
		/** Kept for docs/benchmarks.md, not printed (e.g. a section's markers, doc-section.mjs). */
		keep(text) {
			md.push(text);
		},
	};
}

/** The report as one markdown file. */
export function writeReport(file, report) {
	fs.mkdirSync(path.dirname(file), { recursive: true });
	fs.writeFileSync(file, report.md.join('\n') + '\n');
	writeCharts(file, report);
}

/** The report's charts as SVG files in images/ beside `file` (the doc's image lines point there). */
export function writeCharts(file, report) {
	if (!report.charts?.length) return;
	const dir = path.join(path.dirname(file), 'images');
	fs.mkdirSync(dir, { recursive: true });
	for (const c of report.charts) fs.writeFileSync(path.join(dir, c.file), c.svg);
}
