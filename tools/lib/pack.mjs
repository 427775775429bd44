// The package as users get it, packed once per state of its sources (`npm run build` then `npm pack`), and a
// tiny second community package built on the fly for the install tests.
//
// The packed tarballs are kept in the clone, in .cache/pack/<hash of the sources>/ (git ignores .cache), so the
// suites (separate processes) share one build and nothing is left in the system's temp folder.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { trackDir } from './exit.mjs';
import { withLock } from './locks.mjs';
import { cleanEnv, run } from './process.mjs';
import { REPO } from './repo.mjs';
import { manualTrigger, node, workflow } from './workflow.mjs';

const log = (msg) => process.stderr.write(`[e2e] ${msg}\n`);

// Files that end up in the tarball come from these sources; their content keys the pack cache.
const PACK_INPUTS = [
	'package.json',
	'tsconfig.json',
	'README.md',
	'LICENSE.md',
	'nodes',
	'credentials',
	'icons',
	'examples',
];

/**
 * sha256 (16 hex digits) of the files under `inputs` (paths relative to `root`; folders walked by name), each
 * file by its path, size and bytes.
 */
export function hashFiles(inputs, root = REPO) {
	const h = createHash('sha256');
	const walk = (rel) => {
		const abs = path.join(root, rel);
		const st = fs.statSync(abs, { throwIfNoEntry: false });
		if (!st) return;
		if (st.isDirectory()) {
			for (const e of fs.readdirSync(abs).sort()) walk(path.join(rel, e));
		} else {
			h.update(`${rel}\0${st.size}\0`);
			h.update(fs.readFileSync(abs));
		}
	};
	for (const p of inputs) walk(p);
	return h.digest('hex').slice(0, 16);
}

const hashInputs = () => hashFiles(PACK_INPUTS);

let packPromise;

/**
 * `npm run build` then `npm pack` of the repo, once per source state: the tarball is kept in
 * .cache/pack/<hash of the sources>/ so several test files (separate processes) share one build.
 * Returns the tarball path.
 */
export function packOnce() {
	if (process.env.GS_E2E_TARBALL) return Promise.resolve(path.resolve(process.env.GS_E2E_TARBALL));
	packPromise ??= (async () => {
		const key = hashInputs();
		const root = path.join(REPO, '.cache', 'pack');
		const dir = path.join(root, key);
		fs.mkdirSync(root, { recursive: true });
		const find = () =>
			fs.existsSync(path.join(dir, '.done'))
				? path.join(dir, fs.readFileSync(path.join(dir, '.done'), 'utf8'))
				: undefined;
		const ready = find();
		if (ready) return ready;
		return withLock(path.join(root, `${key}.lock`), log, async () => {
			const again = find();
			if (again) return again;
			fs.rmSync(dir, { recursive: true, force: true });
			fs.mkdirSync(dir, { recursive: true });
			const t0 = Date.now();
			const env = cleanEnv();
			const b = await run('npm', ['run', 'build'], { cwd: REPO, env });
			if (b.code !== 0)
				throw new Error(`npm run build failed:\n${(b.stdout + b.stderr).slice(-4000)}`);
			const p = await run(
				'npm',
				['pack', '--json', '--ignore-scripts', '--pack-destination', dir],
				{ cwd: REPO, env },
			);
			if (p.code !== 0) throw new Error(`npm pack failed:\n${(p.stdout + p.stderr).slice(-4000)}`);
			const filename = path.basename(JSON.parse(p.stdout.slice(p.stdout.indexOf('[')))[0].filename);
			fs.writeFileSync(path.join(dir, '.done'), filename);
			log(`built and packed ${filename} in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
			return path.join(dir, filename);
		});
	})();
	return packPromise;
}

/** A new instance on `version` (installing the host first if needed). Close it with `close()`. */
// ---------------------------------------------------------------------------------------------------------
// A tiny community package built on the fly (never committed): proves installPackage() and that the
// `n8n-workflow` peer resolves from n8n itself, independently of this repo's own nodes.

export const FIXTURE_PACKAGE = 'n8n-nodes-gs-e2e-fixture';
export const FIXTURE_NODE_TYPE = `${FIXTURE_PACKAGE}.gsE2eEcho`;

const FIXTURE_NODE = `'use strict';
const { NodeOperationError, deepCopy } = require('n8n-workflow');
class GsE2eEcho {
	constructor() {
		this.description = {
			displayName: 'GS E2E Echo',
			name: 'gsE2eEcho',
			group: ['transform'],
			version: 1,
			description: 'Test fixture',
			defaults: { name: 'GS E2E Echo' },
			inputs: ['main'],
			outputs: ['main'],
			properties: [{ displayName: 'Text', name: 'text', type: 'string', default: '' }],
		};
	}
	async execute() {
		const items = this.getInputData();
		return [items.map((item, i) => {
			const text = this.getNodeParameter('text', i);
			if (text === 'fail') throw new NodeOperationError(this.getNode(), 'asked to fail', { itemIndex: i });
			return { json: { ...deepCopy(item.json), echo: text, peerResolved: typeof NodeOperationError === 'function' }, pairedItem: { item: i } };
		})];
	}
}
module.exports = { GsE2eEcho };
`;

let fixturePromise;

/** `npm pack` of the fixture package (with a devDependency that must not get installed). Returns the tarball. */
export function packFixturePackage() {
	fixturePromise ??= (async () => {
		const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gs-e2e-fixture-'));
		trackDir(dir); // removed when this process ends
		fs.mkdirSync(path.join(dir, 'pkg', 'dist', 'nodes'), { recursive: true });
		fs.writeFileSync(
			path.join(dir, 'pkg', 'package.json'),
			JSON.stringify({
				name: FIXTURE_PACKAGE,
				version: '0.0.1',
				license: 'MIT',
				files: ['dist'],
				n8n: { n8nNodesApiVersion: 1, nodes: ['dist/nodes/GsE2eEcho.node.js'], credentials: [] },
				peerDependencies: { 'n8n-workflow': '*' },
				devDependencies: { 'n8n-workflow': '*', typescript: '*' },
			}),
		);
		fs.writeFileSync(path.join(dir, 'pkg', 'dist', 'nodes', 'GsE2eEcho.node.js'), FIXTURE_NODE);
		const p = await run('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', dir], {
			cwd: path.join(dir, 'pkg'),
			env: cleanEnv(),
		});
		if (p.code !== 0) throw new Error(`npm pack (fixture) failed:\n${p.stdout}${p.stderr}`);
		return path.join(
			dir,
			path.basename(JSON.parse(p.stdout.slice(p.stdout.indexOf('[')))[0].filename),
		);
	})();
	return fixturePromise;
}

/** Manual Trigger -> the fixture node. */
export const fixtureWorkflow = (id = 'gsE2eFixture', text = 'hi') =>
	workflow({
		id,
		name: `Fixture ${id}`,
		ids: 'a0b1c2d3',
		nodes: [manualTrigger(), node('Echo', FIXTURE_NODE_TYPE, 1, { text })],
	});
