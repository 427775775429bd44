// docs/architecture.md names files and folders of the repository: every one must exist, so the page
// cannot drift from the code it describes. A name in backticks with a top-level folder of the repository
// (nodes/, tools/, …) must exist as written; a bare file name (`pacer.ts`) must be the end of some
// repository path (`shared/router.ts` too); names with placeholders (`<Node>`, `*`) are patterns, not paths.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';

import { REPO } from '../../tools/lib/repo.mjs';

const DOC = 'docs/architecture.md';
const ROOTS = [
	'nodes',
	'credentials',
	'emulator',
	'tools',
	'scripts',
	'test',
	'bench',
	'docs',
	'examples',
];
const FILE = /^[\w.-]+\.(ts|mjs|js|json|md|yml)$/;

function allFiles(dir = '') {
	return fs.readdirSync(path.join(REPO, dir), { withFileTypes: true }).flatMap((e) => {
		if (e.name === 'node_modules' || e.name === '.git' || e.name === 'dist') return [];
		const rel = dir ? `${dir}/${e.name}` : e.name;
		return e.isDirectory() ? [rel, ...allFiles(rel)] : [rel];
	});
}

/** The repository paths `text` names in backticks: [as written, kind] — 'exact' or 'suffix'. */
export function namedPaths(text) {
	const names = [];
	for (const [, code] of text.matchAll(/`([^`\n]+)`/g)) {
		const name = code.trim().replace(/\/$/, '');
		if (/[<>*{}\s]/.test(name)) continue;
		if (ROOTS.includes(name.split('/')[0]) && name.includes('/')) names.push([name, 'exact']);
		else if (FILE.test(name.split('/').pop()) || /^[\w.-]+(\/[\w.-]+)+$/.test(name)) {
			names.push([name, 'suffix']); // `pacer.ts`, `shared/router.ts`, `actions/router.ts`
		}
	}
	return names;
}

/** The names of `text` that are not repository paths. */
export function missingPaths(text, files = allFiles()) {
	const all = new Set(files);
	return namedPaths(text)
		.filter(([name, kind]) =>
			kind === 'exact' ? !all.has(name) : !files.some((f) => f === name || f.endsWith(`/${name}`)),
		)
		.map(([name]) => name);
}

describe('docs/architecture.md', () => {
	const text = fs.readFileSync(path.join(REPO, DOC), 'utf8');

	it('names only paths that exist in the repository', () => {
		assert.ok(namedPaths(text).length > 40, 'the page names the files it describes');
		assert.deepEqual(missingPaths(text), []);
	});

	it('would see a wrong path (a planted one)', () => {
		const planted = `${text}\nSee \`nodes/shared/jobs/creat.ts\`, \`pacers2.ts\` and \`jobs/create.ts\`.\n`;
		assert.deepEqual(missingPaths(planted), [
			'nodes/shared/jobs/creat.ts',
			'pacers2.ts',
			'jobs/create.ts',
		]);
	});

	it('points to the spec inside the repository', () => {
		assert.match(text, /`docs\/spec\/generation-service-api-v1\.md`/);
		assert.doesNotMatch(text, /\.\.\/shared\/spec/);
	});
});
