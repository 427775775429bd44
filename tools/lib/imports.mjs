// The imports between the repository's source files, as the tooling checks them: which files a file's
// relative imports name, which file each resolves to, and the import circles of a graph of them.
import fs from 'node:fs';
import path from 'node:path';

import { REPO } from './repo.mjs';

const SOURCE = /\.(mjs|cjs|js|ts)$/;

/** The source files under `dir` (repository paths), node_modules left out. */
export function filesUnder(dir) {
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

/** The repository file an imported path names, as TypeScript resolves it; undefined when none. */
export function resolvedFile(p) {
	return [p, `${p}.ts`, `${p}.js`, path.join(p, 'index.ts')].find((c) => {
		const abs = path.join(REPO, c);
		return fs.existsSync(abs) && fs.statSync(abs).isFile();
	});
}

/** Whether an imported path names a file. */
export const resolves = (p) => resolvedFile(p) !== undefined;

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
		if (component.length > 1 || (graph.get(file) ?? []).includes(file))
			circles.push(component.sort());
	};
	for (const file of graph.keys()) if (!index.has(file)) visit(file);
	return circles;
}

/** The files of nodes/ and credentials/ each package file imports (resolved, type imports included). */
export function packageImports() {
	const files = [...filesUnder('nodes'), ...filesUnder('credentials')];
	return new Map(
		files.map((file) => [file, importedPaths(file).map(resolvedFile).filter(Boolean)]),
	);
}
