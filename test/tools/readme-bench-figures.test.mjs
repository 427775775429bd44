// The table of the three queue-mode patterns in docs/scale.md ("Running at scale") gives the figures the bench wrote into
// docs/benchmarks.md (part 6, `npm run bench -- --only=queue --doc`): none typed apart from the run.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';

import { sectionOf } from '../../bench/doc-section.mjs';
import { REPO } from '../../tools/lib/repo.mjs';

/** The rows (cells) of the first Markdown table after the line that starts with `heading`. */
export function tableAfter(text, heading) {
	const lines = text.split('\n');
	const start = lines.findIndex((l) => l.startsWith(heading));
	if (start < 0) return undefined;
	const first = lines.findIndex((l, i) => i > start && l.startsWith('|'));
	const rows = [];
	for (let i = first + 2; i < lines.length && lines[i].startsWith('|'); i++) {
		rows.push(
			lines[i]
				.slice(1, -1)
				.split('|')
				.map((c) => c.trim()),
		);
	}
	return rows;
}

/** The table's row figures (docs/scale.md): last MP4, floor, ratio, slot-seconds, requests per job, 429, MP4s verified. */
const readmeFigures = (row) => [
	row[1],
	row[2],
	row[3],
	row[4].replace(/,/g, ''),
	row[5],
	row[6],
	row[7],
];
/** The bench's: the same columns of its main table (slot-seconds: the workers' logs, before "; sampled"). */
const benchFigures = (row) => [
	row[1],
	row[2],
	row[3],
	row[4].split(';')[0],
	row[5],
	row[7],
	row[9],
];

/** Pairs docs/scale.md's rows with the bench's; returns the mismatches as text. */
export function mismatches(readme, bench) {
	const readmeRows = tableAfter(readme, '**Many long jobs at once') ?? [];
	const benchRows = tableAfter(sectionOf(bench, 'queue') ?? '', '**How it is measured.**') ?? [];
	if (readmeRows.length !== 3 || benchRows.length !== 3) {
		return [
			`rows: docs/scale.md ${readmeRows.length}, bench ${benchRows.length} (3 each expected)`,
		];
	}
	return readmeRows.flatMap((row, i) => {
		const want = benchFigures(benchRows[i]);
		const got = readmeFigures(row);
		return got.every((v, k) => v === want[k])
			? []
			: [`${row[0]}: docs/scale.md ${got.join(' / ')} ≠ bench ${want.join(' / ')}`];
	});
}

describe("docs/scale.md's queue-mode figures", () => {
	const readme = fs.readFileSync(path.join(REPO, 'docs', 'scale.md'), 'utf8');
	const bench = fs.readFileSync(path.join(REPO, 'docs', 'benchmarks.md'), 'utf8');

	it('are the ones the bench wrote in docs/benchmarks.md (part 6)', () => {
		assert.deepEqual(mismatches(readme, bench), []);
	});

	it('a figure changed in docs/scale.md is found (the check can fail)', () => {
		// the doc's first pattern row with its "Last MP4 after" cell changed
		const [row] = tableAfter(readme, '**Many long jobs at once');
		const line = readme.split('\n').find((l) => l.startsWith(`| ${row[0]} |`));
		const changed = readme.replace(line, line.replace(`| ${row[1]} |`, `| 1${row[1]} |`));
		assert.notEqual(changed, readme);
		assert.equal(mismatches(changed, bench).length, 1);
	});
});
