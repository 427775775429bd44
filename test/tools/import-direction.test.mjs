// Imports go one way: commands (scripts/), suites (test/) and benchmarks (bench/) use the tooling library
// (tools/lib/); the library uses none of them; suites and benchmarks never import a command; the shipped
// package (nodes/, credentials/) never imports the tooling.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';

import { REPO } from '../../tools/lib/repo.mjs';

const SOURCE = /\.(mjs|cjs|js|ts)$/;

function filesUnder(dir) {
	const abs = path.join(REPO, dir);
	if (!fs.existsSync(abs)) return [];
	return fs.readdirSync(abs, { withFileTypes: true }).flatMap((e) => {
		const rel = path.join(dir, e.name);
		if (e.isDirectory()) return e.name === 'node_modules' ? [] : filesUnder(rel);
		return SOURCE.test(e.name) ? [rel] : [];
	});
}

/** The repo paths `file`'s relative imports name (as written: a .ts module may be named without its extension). */
export function importedPaths(file, text = fs.readFileSync(path.join(REPO, file), 'utf8')) {
	const specs = [
		...text.matchAll(/\bfrom\s+'([^']+)'/g),
		...text.matchAll(/\bimport\(\s*'([^']+)'\s*\)/g),
		...text.matchAll(/\brequire\(\s*'([^']+)'\s*\)/g),
	].map((m) => m[1]);
	return specs
		.filter((s) => s.startsWith('.'))
		.map((s) => path.relative(REPO, path.resolve(REPO, path.dirname(file), s)));
}

/** The repo folders (first path segment) that `file`'s relative imports reach. */
export function importedAreas(file, text) {
	return importedPaths(file, text)
		.map((p) => p.split(path.sep))
		.map((parts) => (parts[0] === 'tools' ? `tools/${parts[1]}` : parts[0]));
}

/** Whether an imported path names a file (as TypeScript and tsx resolve it: as is, .ts, /index.ts). */
const resolves = (p) =>
	[p, `${p}.ts`, `${p}.js`, path.join(p, 'index.ts')].some((c) => {
		const abs = path.join(REPO, c);
		return fs.existsSync(abs) && fs.statSync(abs).isFile();
	});

/** The repository file an imported path names, as TypeScript resolves it; undefined when none. */
function resolvedFile(p) {
	return [p, `${p}.ts`, `${p}.js`, path.join(p, 'index.ts')].find((c) => {
		const abs = path.join(REPO, c);
		return fs.existsSync(abs) && fs.statSync(abs).isFile();
	});
}

/**
 * The import circles of `graph` (file → the files it imports): its strongly connected components of more
 * than one file (or a file importing itself), each sorted, found with Tarjan's algorithm.
 */
export function importCircles(graph) {
	let next = 0;
	const index = new Map();
	const low = new Map();
	const stack = [];
	const onStack = new Set();
	const circles = [];
	const visit = (file) => {
		index.set(file, next);
		low.set(file, next++);
		stack.push(file);
		onStack.add(file);
		for (const to of graph.get(file) ?? []) {
			if (!index.has(to)) {
				visit(to);
				low.set(file, Math.min(low.get(file), low.get(to)));
			} else if (onStack.has(to)) {
				low.set(file, Math.min(low.get(file), index.get(to)));
			}
		}
		if (low.get(file) !== index.get(file)) return;
		const component = [];
		let member;
		do {
			member = stack.pop();
			onStack.delete(member);
			component.push(member);
		} while (member !== file);
		if (component.length > 1 || (graph.get(file) ?? []).includes(file)) circles.push(component.sort());
	};
	for (const file of graph.keys()) if (!index.has(file)) visit(file);
	return circles;
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
		const files = [...filesUnder('nodes'), ...filesUnder('credentials')];
		const graph = new Map(
			files.map((file) => [file, importedPaths(file).map(resolvedFile).filter(Boolean)]),
		);
		assert.deepEqual(importCircles(graph), []);
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
