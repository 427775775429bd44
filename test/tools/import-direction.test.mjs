// Imports go one way: commands (scripts/), suites (test/) and benchmarks (bench/) use the tooling library
// (tools/lib/); the library uses none of them; suites and benchmarks never import a command; the shipped
// package (nodes/, credentials/) never imports the tooling.
import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, it } from 'node:test';

import {
	filesUnder,
	importCircles,
	importedPaths,
	packageImports,
	resolves,
} from '../../tools/lib/imports.mjs';

/** The repo folders (first path segment) that `file`'s relative imports reach. */
export function importedAreas(file, text) {
	return importedPaths(file, text)
		.map((p) => p.split(path.sep))
		.map((parts) => (parts[0] === 'tools' ? `tools/${parts[1]}` : parts[0]));
}

const RULES = [
	{ from: 'tools/lib', never: ['scripts', 'test', 'bench'] },
	{ from: 'scripts', never: ['test'] },
	{ from: 'test', never: ['scripts'] },
	{ from: 'bench', never: ['scripts', 'test'] },
	{ from: 'nodes', never: ['tools/lib', 'scripts', 'test', 'bench', 'emulator'] },
	{ from: 'credentials', never: ['tools/lib', 'scripts', 'test', 'bench', 'emulator'] },
];

describe('import direction', () => {
	for (const rule of RULES) {
		it(`${rule.from}/ imports nothing from ${rule.never.join(', ')}`, () => {
			const bad = filesUnder(rule.from).flatMap((file) =>
				importedAreas(file)
					.filter((area) => rule.never.includes(area))
					.map((area) => `${file} → ${area}/`),
			);
			assert.deepEqual(bad, []);
		});
	}

	it('every relative import of the tooling, commands, benchmarks and suites names a file that exists', () => {
		const missing = ['tools', 'scripts', 'bench', 'test', 'emulator'].flatMap((dir) =>
			filesUnder(dir).flatMap((file) =>
				importedPaths(file)
					.filter((p) => !resolves(p))
					.map((p) => `${file} → ${p}`),
			),
		);
		assert.deepEqual(missing, []);
	});

	it('finds an import of a file that is not there (the check can fail)', () => {
		const planted = ['import { startSink } from', "'../../tools/lib/soak/soak.mjs';"].join(' ');
		const paths = importedPaths('bench/parts/queue.mjs', planted);
		assert.deepEqual(paths, ['tools/lib/soak/soak.mjs']);
		assert.equal(resolves(paths[0]), false);
		assert.equal(resolves('tools/lib/soak/sink.mjs'), true);
	});

	it('finds a planted import (the check can fail)', () => {
		// built from parts, so that this file's own text does not hold the imports it plants
		const planted = [
			['import { x } from', "'../../scripts/soak.mjs';"].join(' '),
			['const y = await import(', "'../../test/e2e/harness.mjs');"].join(''),
		].join('\n');
		const areas = importedAreas('tools/lib/example.mjs', planted);
		assert.deepEqual(areas, ['scripts', 'test']);
	});

	it('the package (nodes/, credentials/) has no import circle, type imports included', () => {
		assert.deepEqual(importCircles(packageImports()), []);
	});

	it('finds a planted import circle (the check can fail)', () => {
		const graph = new Map([
			['a.ts', ['b.ts']],
			['b.ts', ['c.ts']],
			['c.ts', ['a.ts', 'd.ts']],
			['d.ts', []],
		]);
		assert.deepEqual(importCircles(graph), [['a.ts', 'b.ts', 'c.ts']]);
	});
});
