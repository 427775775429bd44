// docs/verification.md (the verification dossier): every file it cites exists, every test title it cites is in
// the file it names — so the dossier cannot point at a proof that was moved, renamed or deleted.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';

import { REPO } from '../../tools/lib/repo.mjs';

const DOSSIER = path.join(REPO, 'docs', 'verification.md');
const PATH_RE = /^(?![@/])[\w.-]+(?:\/[\w.-]+)*\.(?:md|json|ts|mjs|js|yml|yaml|svg)$/;

/** The references of a dossier text: [{ file, title? }] (a path in backticks, optionally › "test title"). */
export function references(text) {
	const refs = [];
	for (const m of text.matchAll(/`([^`\n]+)`(?:\s*›\s*"([^"\n]+)")?/g)) {
		if (PATH_RE.test(m[1])) refs.push({ file: m[1], title: m[2] });
		else if (m[2]) refs.push({ file: m[1], title: m[2], notAPath: true });
	}
	return refs;
}

/** What is wrong with the references of `text` against the repository at `root`. */
export function problems(text, root = REPO) {
	const out = [];
	for (const ref of references(text)) {
		if (ref.notAPath) {
			out.push(`\`${ref.file}\` is not a file path`);
			continue;
		}
		const file = path.join(root, ref.file);
		if (!fs.existsSync(file)) {
			out.push(`\`${ref.file}\` does not exist`);
			continue;
		}
		if (ref.title && !fs.readFileSync(file, 'utf8').includes(ref.title)) {
			out.push(`\`${ref.file}\` has no test "${ref.title}"`);
		}
	}
	return out;
}

describe('verification dossier (docs/verification.md)', () => {
	const text = fs.readFileSync(DOSSIER, 'utf8');

	it('cites files and tests that exist', () => {
		assert.ok(references(text).length >= 30, `only ${references(text).length} references`);
		assert.deepEqual(problems(text), []);
	});

	it('every requirement row names at least one proof', () => {
		const rows = text
			.split('\n')
			.filter((l) => l.startsWith('| ') && !/^\| (Requirement|---)/.test(l));
		assert.ok(rows.length >= 15, `${rows.length} rows`);
		for (const row of rows) assert.ok(references(row).length > 0, `no proof in: ${row}`);
	});

	it('finds a planted file and a planted test title (the check can fail)', () => {
		const planted =
			'| x | `test/e2e/no-such.test.mjs`; `test/unit/transport.test.ts` › "a test nobody wrote"; `test/unit/ssrf.test.ts` |\n';
		assert.deepEqual(problems(planted), [
			'`test/e2e/no-such.test.mjs` does not exist',
			'`test/unit/transport.test.ts` has no test "a test nobody wrote"',
		]);
	});
});
