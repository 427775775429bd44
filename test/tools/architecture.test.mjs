// docs/architecture.md is held to its word:
// - the files and folders it names exist: a name in backticks with a top-level folder of the repository
//   (nodes/, tools/, …) as written; a bare file name (`pacing.ts`) as the end of some repository path
//   (`shared/router.ts` too); names with placeholders (`<Node>`, `*`) are patterns, not paths;
// - each walk (an ordered list of files under a heading) is a chain of imports: each file imports the next;
// - each function the table "Who decides what" names is defined in the file the row names;
// - its two diagrams draw exactly the imports between their boxes, no more and no fewer.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';

import ts from 'typescript';

import { importedPaths, packageImports, resolvedFile } from '../../tools/lib/imports.mjs';
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
		const planted = `${text}\nSee \`nodes/shared/jobs/creat.ts\`, \`pacers2.ts\` and \`jobs/follow.ts\`.\n`;
		assert.deepEqual(missingPaths(planted), [
			'nodes/shared/jobs/creat.ts',
			'pacers2.ts',
			'jobs/follow.ts',
		]);
	});

	it('points to the spec inside the repository', () => {
		assert.match(text, /`docs\/spec\/generation-service-api-v1\.md`/);
		assert.doesNotMatch(text, /\.\.\/shared\/spec/);
	});
});

/** The section of `text` under the heading line `heading`, up to the next heading of level 2 or 3. */
function section(text, heading) {
	const start = text.indexOf(`\n${heading}\n`);
	assert.ok(start >= 0, `docs/architecture.md has the heading "${heading}"`);
	const rest = text.slice(start + heading.length + 2);
	const end = rest.search(/\n#{2,3} /);
	return end < 0 ? rest : rest.slice(0, end);
}

/** The files of a walk: the ordered list of backticked paths under `heading`. */
export function walkOf(text, heading) {
	return [...section(text, heading).matchAll(/^\d+\. `([^`]+)`/gm)].map((m) => m[1]);
}

/** The links of a walk where a file does not import the next: `a ↛ b`. */
export function brokenLinks(walk) {
	const broken = [];
	for (let i = 0; i + 1 < walk.length; i++) {
		const imports = importedPaths(walk[i]).map(resolvedFile);
		if (!imports.includes(walk[i + 1])) broken.push(`${walk[i]} ↛ ${walk[i + 1]}`);
	}
	return broken;
}

/** The names a TypeScript file defines: functions, classes, methods, accessors, const-bound functions. */
export function definedNames(file) {
	const source = ts.createSourceFile(
		file,
		fs.readFileSync(path.join(REPO, file), 'utf8'),
		ts.ScriptTarget.Latest,
		true,
	);
	const names = new Set();
	const visit = (node) => {
		if (
			(ts.isFunctionDeclaration(node) ||
				ts.isClassDeclaration(node) ||
				ts.isMethodDeclaration(node) ||
				ts.isGetAccessorDeclaration(node)) &&
			node.name
		) {
			names.add(node.name.getText(source));
		}
		if (
			ts.isVariableDeclaration(node) &&
			node.initializer &&
			(ts.isArrowFunction(node.initializer) || ts.isFunctionExpression(node.initializer))
		) {
			names.add(node.name.getText(source));
		}
		ts.forEachChild(node, visit);
	};
	visit(source);
	return names;
}

/** The rows of the table under `heading`: [functions named in column 2, the file in column 3]. */
export function decisionsOf(text, heading) {
	return section(text, heading)
		.split('\n')
		.filter((line) => /^\|/.test(line) && !/^\|\s*-/.test(line))
		.slice(1)
		.map((line) => line.split('|').map((cell) => cell.trim()))
		.map((cells) => [
			[...cells[2].matchAll(/`([^`]+)`/g)].map((m) => m[1]),
			/`([^`]+)`/.exec(cells[3])?.[1],
		]);
}

/** The rows whose functions are not defined in their file: `file: name`. */
export function undefinedDecisions(rows) {
	return rows.flatMap(([names, file]) => {
		const defined = file && fs.existsSync(path.join(REPO, file)) ? definedNames(file) : new Set();
		return names.filter((name) => !defined.has(name)).map((name) => `${file}: ${name}`);
	});
}

/** Every function and method name defined in the package's TypeScript (nodes/, credentials/). */
function packageFunctionNames() {
	const files = allFiles('nodes')
		.concat(allFiles('credentials'))
		.filter((f) => f.endsWith('.ts'));
	return new Set(files.flatMap((f) => [...definedNames(f)]));
}

/** The declarations named `name` in `file` that take parameters: functions, methods, const-bound functions. */
function declarationsOf(file, name) {
	const source = ts.createSourceFile(
		file,
		fs.readFileSync(path.join(REPO, file), 'utf8'),
		ts.ScriptTarget.Latest,
		true,
	);
	const found = [];
	const visit = (node) => {
		if (
			(ts.isFunctionDeclaration(node) || ts.isMethodDeclaration(node)) &&
			node.name?.getText(source) === name
		) {
			found.push(node);
		}
		if (
			ts.isVariableDeclaration(node) &&
			node.name.getText(source) === name &&
			node.initializer &&
			(ts.isArrowFunction(node.initializer) || ts.isFunctionExpression(node.initializer))
		) {
			found.push(node.initializer);
		}
		ts.forEachChild(node, visit);
	};
	visit(source);
	return { source, found };
}

/**
 * The function `name` of `file` hands the decision on: it passes every one of its parameters, as they are, to
 * another function of the package and returns that call's result or drops it (its own code decides nothing
 * with it). Returns the name of the function it hands them to, or undefined.
 */
export function forwardedTo(file, name, packageNames = packageFunctionNames()) {
	const { source, found } = declarationsOf(file, name);
	for (const fn of found) {
		const params = fn.parameters.map((p) => p.name.getText(source));
		if (params.length === 0 || !fn.body) continue;
		let target;
		const visit = (node) => {
			if (target) return;
			if (ts.isCallExpression(node)) {
				const callee = ts.isPropertyAccessExpression(node.expression)
					? node.expression.name.getText(source)
					: node.expression.getText(source);
				const bare = new Set(
					node.arguments.filter((a) => ts.isIdentifier(a)).map((a) => a.getText(source)),
				);
				let parent = node.parent;
				while (ts.isAwaitExpression(parent) || ts.isParenthesizedExpression(parent)) {
					parent = parent.parent;
				}
				const resultUnused = ts.isExpressionStatement(parent) || ts.isReturnStatement(parent);
				if (
					callee !== name &&
					packageNames.has(callee) &&
					params.every((p) => bare.has(p)) &&
					resultUnused
				) {
					target = callee;
				}
			}
			ts.forEachChild(node, visit);
		};
		visit(fn.body);
		if (target && !returnsItsOwn(fn, source, target)) return target;
	}
	return undefined;
}

/**
 * Whether the function returns a value of its own making: a `return` (outside nested functions) of
 * something other than a call of `target` — it dropped that call's result and decided what to answer.
 */
function returnsItsOwn(fn, source, target) {
	let own = false;
	const visit = (node) => {
		if (own || (node !== fn.body && ts.isFunctionLike(node))) return;
		if (ts.isReturnStatement(node) && node.expression) {
			let value = node.expression;
			while (ts.isAwaitExpression(value) || ts.isParenthesizedExpression(value)) {
				value = value.expression;
			}
			const callee = ts.isCallExpression(value) ? value.expression.getText(source) : undefined;
			if (!callee || !(callee === target || callee.endsWith(`.${target}`))) own = true;
		}
		ts.forEachChild(node, visit);
	};
	visit(fn.body);
	return own;
}

/** The rows whose function only hands the decision on: `file: name → target`. */
export function forwardingDecisions(rows) {
	const packageNames = packageFunctionNames();
	return rows.flatMap(([names, file]) =>
		names
			.map((name) => [name, forwardedTo(file, name, packageNames)])
			.filter(([, target]) => target)
			.map(([name, target]) => `${file}: ${name} → ${target}`),
	);
}

/** The mermaid blocks of `text`, each as its boxes (id → the paths of its label's first line) and arrows. */
export function diagramsOf(text) {
	return [...text.matchAll(/```mermaid\n([\s\S]*?)```/g)].map(([, body]) => {
		const boxes = new Map();
		for (const [, id, label] of body.matchAll(/(\w+)\["([^"]*)"\]/g)) {
			const first = label.split('<br/>')[0];
			const paths = first.split(', ').filter((p) => /^(nodes|credentials)\//.test(p));
			if (paths.length > 0) boxes.set(id, paths);
		}
		const arrows = new Set();
		for (const [, from, to] of body.matchAll(/^\s*(\w+)(?:\[[^\]]*\])?\s*-->\s*(\w+)/gm)) {
			if (boxes.has(from) && boxes.has(to)) arrows.add(`${from} --> ${to}`);
		}
		return { boxes, arrows };
	});
}

/** Files every part uses, which the diagrams leave out (the page says so). */
const EVERYWHERE = [
	'nodes/shared/constants.ts',
	'nodes/shared/processState.ts',
	'nodes/shared/jobs/job.ts',
	'nodes/shared/service/clock.ts',
];
/** Left out of the second diagram too: every file inside the two rooms uses them (the page says so). */
const IN_EVERY_ROOM = ['nodes/shared/service/service.ts', 'nodes/shared/service/errors.ts'];

/** The arrows a diagram's boxes call for: box A → box B when a file of A imports a file of B. */
export function importArrows(boxes, graph, leftOut) {
	const matches = (file, pattern) => {
		if (pattern.endsWith('/')) {
			const [prefix, rest] = pattern.split('*');
			return rest === undefined
				? file.startsWith(pattern)
				: file.startsWith(prefix) && file.includes(rest);
		}
		return file === pattern;
	};
	const boxOf = (file) =>
		leftOut.includes(file)
			? undefined
			: [...boxes].find(([, patterns]) => patterns.some((p) => matches(file, p)))?.[0];
	const arrows = new Set();
	for (const [file, imports] of graph) {
		const from = boxOf(file);
		if (!from) continue;
		for (const imported of imports) {
			const to = boxOf(imported);
			if (to && to !== from) arrows.add(`${from} --> ${to}`);
		}
	}
	return arrows;
}

describe('docs/architecture.md holds to its word', () => {
	const text = fs.readFileSync(path.join(REPO, DOC), 'utf8');

	for (const heading of ['## A Create, from the node to HTTP', '### With Wait for Completion']) {
		it(`"${heading}": each file of the walk imports the next`, () => {
			const walk = walkOf(text, heading);
			assert.ok(walk.length >= 5, 'a walk of several files');
			assert.deepEqual(brokenLinks(walk), []);
		});
	}

	it('a walk with two steps swapped is seen (the check can fail)', () => {
		const walk = walkOf(text, '## A Create, from the node to HTTP');
		const swapped = [...walk];
		[swapped[3], swapped[4]] = [swapped[4], swapped[3]];
		assert.notDeepEqual(brokenLinks(swapped), []);
	});

	it('each function "Who decides what" names is defined in the file it names', () => {
		const rows = decisionsOf(text, '## Who decides what');
		assert.ok(rows.length >= 20, 'the table has its rows');
		assert.ok(
			rows.every(([names, file]) => names.length > 0 && file),
			'each row names both',
		);
		assert.deepEqual(undefinedDecisions(rows), []);
	});

	it('no function "Who decides what" names only hands the decision to another', () => {
		assert.deepEqual(forwardingDecisions(decisionsOf(text, '## Who decides what')), []);
	});

	it('a row that names a function which only forwards the decision is seen (the check can fail)', () => {
		// KeyPacer.settle passes its ticket and headers to RateWindow.observe, which decides
		assert.deepEqual(
			forwardingDecisions([
				[['settle'], 'nodes/shared/service/pacing.ts'],
				[['observe'], 'nodes/shared/service/rateWindow.ts'],
			]),
			['nodes/shared/service/pacing.ts: settle → observe'],
		);
	});

	it('a function that passes its parameters on but returns what it decided itself is not a forwarder', () => {
		// noteAsk hands its key to keepRecent (a store's bound) and returns the pages it worked out
		assert.deepEqual(forwardingDecisions([[['noteAsk'], 'nodes/shared/jobs/watch.ts']]), []);
	});

	it('a function named in the wrong file is seen (the check can fail)', () => {
		assert.deepEqual(
			undefinedDecisions([
				[['sendRequest'], 'nodes/shared/service/pacing.ts'],
				[['acquire'], 'nodes/shared/service/pacing.ts'],
			]),
			['nodes/shared/service/pacing.ts: sendRequest'],
		);
	});

	it('the two diagrams draw exactly the imports between their boxes', () => {
		const graph = packageImports();
		const [layers, rooms] = diagramsOf(text);
		assert.ok(layers.boxes.size >= 5 && rooms.boxes.size >= 8, 'both diagrams and their boxes');
		assert.deepEqual(
			[...layers.arrows].sort(),
			[...importArrows(layers.boxes, graph, EVERYWHERE)].sort(),
		);
		assert.deepEqual(
			[...rooms.arrows].sort(),
			[...importArrows(rooms.boxes, graph, [...EVERYWHERE, ...IN_EVERY_ROOM])].sort(),
		);
	});

	it('an arrow missing from a diagram, or one too many, is seen (the check can fail)', () => {
		const graph = packageImports();
		const [, rooms] = diagramsOf(text);
		const drawn = [...rooms.arrows];
		const called = importArrows(rooms.boxes, graph, [...EVERYWHERE, ...IN_EVERY_ROOM]);
		assert.ok(called.has(drawn[0]));
		const missing = new Set(drawn.slice(1));
		assert.notDeepEqual([...missing].sort(), [...called].sort());
		const extra = new Set([...drawn, 'known --> create']);
		assert.notDeepEqual([...extra].sort(), [...called].sort());
	});
});
