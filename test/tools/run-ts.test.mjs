// scripts/run-ts.mjs, the launcher of the npm scripts that run TypeScript (start, demo, emulator, bench, soak,
// release:rehearse): in a clone where `npm ci` has not run, `npm start -- --help` says in one line to run
// `npm ci --ignore-scripts` and exits 1, never Node's ERR_MODULE_NOT_FOUND with a stack trace; once installed,
// the script runs as `node --import tsx <script>` would run it (its --help: commands.test.mjs).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';

import { REPO } from '../../tools/lib/repo.mjs';

const STACK = /^\s+at .+:\d+:\d+\)?$/m;
const LAUNCHER_FILES = ['scripts/run-ts.mjs', 'tools/lib/dev-deps.mjs'];
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'gs-run-ts-'));
after(() => fs.rmSync(work, { recursive: true, force: true }));

/** A clone-like folder with the launcher and a script of the repository, without node_modules. */
function freshClone(name) {
	const dir = path.join(work, name);
	for (const file of [...LAUNCHER_FILES, 'scripts/start.mjs']) {
		fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
		fs.copyFileSync(path.join(REPO, file), path.join(dir, file));
	}
	return dir;
}

const run = (cwd, args, env = {}) =>
	spawnSync(process.execPath, ['scripts/run-ts.mjs', ...args], {
		cwd,
		encoding: 'utf8',
		// as npm runs `npm start`: it names the script in npm_lifecycle_event
		env: { ...process.env, npm_lifecycle_event: 'start', ...env },
		timeout: 30_000,
	});

describe('scripts/run-ts.mjs', () => {
	it('before npm ci: one line saying to run npm ci --ignore-scripts, exit 1, no stack trace', () => {
		const dir = freshClone('no-node-modules');
		const r = run(dir, ['scripts/start.mjs', '--help']);
		assert.equal(r.status, 1, r.stdout + r.stderr);
		assert.equal(r.stdout, '');
		assert.equal(
			r.stderr,
			"npm start: the project's devDependencies are not installed (tsx missing from node_modules): run npm ci --ignore-scripts first\n",
		);
		assert.doesNotMatch(r.stderr, STACK);
		assert.doesNotMatch(r.stderr, /ERR_MODULE_NOT_FOUND/);
	});

	it('names the npm script it runs for (npm run demo)', () => {
		const dir = freshClone('demo');
		const r = run(dir, ['scripts/start.mjs'], { npm_lifecycle_event: 'demo' });
		assert.equal(r.status, 1);
		assert.match(r.stderr, /^npm run demo: .* run npm ci --ignore-scripts first\n$/);
	});

	it('a package missing from a partial node_modules: the same one line, naming it', () => {
		const dir = freshClone('partial');
		fs.mkdirSync(path.join(dir, 'node_modules'));
		fs.symlinkSync(path.join(REPO, 'node_modules', 'tsx'), path.join(dir, 'node_modules', 'tsx'));
		fs.writeFileSync(
			path.join(dir, 'scripts', 'needs.mjs'),
			// built from parts, so that this file's text holds no import the import checks would follow
			[['import', "'gs-no-such-package';"].join(' '), "console.log('ran');", ''].join('\n'),
		);
		const r = run(dir, ['scripts/needs.mjs']);
		assert.equal(r.status, 1, r.stdout + r.stderr);
		assert.equal(
			r.stderr,
			"npm start: the project's devDependencies are not installed (gs-no-such-package missing from node_modules): run npm ci --ignore-scripts first\n",
		);
	});

	it('installed: runs the script as node --import tsx would, with its own argv', () => {
		const dir = path.join(work, 'installed');
		fs.mkdirSync(path.join(dir, 'scripts'), { recursive: true });
		for (const file of LAUNCHER_FILES) {
			fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
			fs.copyFileSync(path.join(REPO, file), path.join(dir, file));
		}
		fs.symlinkSync(path.join(REPO, 'node_modules'), path.join(dir, 'node_modules'));
		// TypeScript imported from the script: tsx is loaded
		fs.writeFileSync(path.join(dir, 'scripts', 'typed.ts'), 'export const n: number = 41 + 1;\n');
		fs.writeFileSync(
			path.join(dir, 'scripts', 'show.mjs'),
			[
				"import path from 'node:path';",
				"import { fileURLToPath } from 'node:url';",
				['import { n } from', "'./typed.ts';"].join(' '),
				'const self = path.resolve(process.argv[1]) === fileURLToPath(import.meta.url);',
				'console.log(JSON.stringify({ self, args: process.argv.slice(2), n }));',
			].join('\n'),
		);
		const r = run(dir, ['scripts/show.mjs', '--port', '5679']);
		assert.equal(r.status, 0, r.stderr);
		assert.deepEqual(JSON.parse(r.stdout), { self: true, args: ['--port', '5679'], n: 42 });
	});

	it('every npm script that runs TypeScript starts through it', () => {
		const { scripts } = JSON.parse(fs.readFileSync(path.join(REPO, 'package.json'), 'utf8'));
		assert.deepEqual(
			Object.entries(scripts).filter(([, cmd]) => cmd.includes('--import tsx')),
			[],
			'an npm script still runs node --import tsx (a stack trace before npm ci)',
		);
		for (const name of ['start', 'demo', 'emulator', 'bench', 'soak', 'release:rehearse'])
			assert.match(scripts[name], /\bnode scripts\/run-ts\.mjs /, name);
	});
});
