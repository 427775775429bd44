// Helpers for the end-to-end suites (node:test) that run workflows in a real n8n.
//
//   node --import tsx --test test/e2e/*.test.mjs
//
// Environment:
//   GS_E2E_HOSTS     n8n hosts to test, comma separated: "2" (n8n 2.41.1 on Node 24, default), "1" (n8n 1.123.x on
//                    the machine's Node 20), "2,1" for both.
//   GS_E2E_TARBALL   use this `npm pack` tarball instead of building and packing the repo.
//   GS_N8N_CACHE     where the n8n hosts are installed (default ~/.cache/n8n-nodes-generation-service).
//   GS_E2E_KEEP=1    keep the n8n user folders (printed) for debugging.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import {
	HOSTS,
	cleanEnv,
	createInstance,
	ensureHost,
	extractResult,
	nodeOutput,
	run,
	runError,
	withLock,
} from '../../scripts/n8n-host.mjs';

export { createInstance, ensureHost, extractResult, nodeOutput, runError };

export const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
export const PACKAGE = JSON.parse(fs.readFileSync(path.join(REPO, 'package.json'), 'utf8'));

/** Time allowed for a first (cold) host install inside a test hook. */
export const INSTALL_TIMEOUT_MS = 30 * 60_000;

const log = (msg) => process.stderr.write(`[e2e] ${msg}\n`);

/**
 * Host versions to run the suites on (env GS_E2E_HOSTS, default "2"). A list that names no known host is
 * an error, not an empty run: the suites would otherwise pass with 0 tests.
 */
export function e2eHosts() {
	const hosts = (process.env.GS_E2E_HOSTS || '2')
		.split(',')
		.map((s) => s.trim())
		.filter(Boolean);
	const unknown = hosts.filter((h) => !Object.hasOwn(HOSTS, h));
	if (hosts.length === 0 || unknown.length > 0) {
		throw new Error(
			`GS_E2E_HOSTS=${JSON.stringify(process.env.GS_E2E_HOSTS)} names no n8n host to test${
				unknown.length ? ` (unknown: ${unknown.join(', ')})` : ''
			}: use ${Object.keys(HOSTS).sort().reverse().join(', ')} or a comma-separated list of them`,
		);
	}
	return hosts;
}

/** Node type of one of this package's nodes as n8n names it once installed: `<package>.<description.name>`. */
export function packageNodeType(nodeName) {
	return `${PACKAGE.name}.${nodeName}`;
}

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

function hashInputs() {
	const h = createHash('sha256');
	const walk = (rel) => {
		const abs = path.join(REPO, rel);
		const st = fs.statSync(abs, { throwIfNoEntry: false });
		if (!st) return;
		if (st.isDirectory()) {
			for (const e of fs.readdirSync(abs).sort()) walk(path.join(rel, e));
		} else {
			h.update(`${rel}\0${st.size}\0`);
			h.update(fs.readFileSync(abs));
		}
	};
	for (const p of PACK_INPUTS) walk(p);
	return h.digest('hex').slice(0, 16);
}

let packPromise;

/**
 * `npm run build` then `npm pack` of the repo, once per source state: the tarball is kept in
 * <tmp>/gs-e2e-pack/<hash of the sources>/ so several test files (separate processes) share one build.
 * Returns the tarball path.
 */
export function packOnce() {
	if (process.env.GS_E2E_TARBALL) return Promise.resolve(path.resolve(process.env.GS_E2E_TARBALL));
	packPromise ??= (async () => {
		const key = hashInputs();
		const root = path.join(os.tmpdir(), 'gs-e2e-pack');
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
export function openInstance({ version = e2eHosts()[0], ...opts } = {}) {
	return createInstance({ version, keep: process.env.GS_E2E_KEEP === '1', log, ...opts });
}

/** Run `fn(instance)` on a fresh instance and always clean it up. */
export async function withInstance(opts, fn) {
	const inst = await openInstance(opts);
	try {
		return await fn(inst);
	} finally {
		await inst.close();
	}
}

/** Import (credentials if given, then the workflow) and execute it. Returns the execute() result. */
export async function runWorkflow(inst, workflow, { credentials, timeoutMs } = {}) {
	if (credentials?.length) await inst.importCredentials(credentials);
	await inst.importWorkflow(workflow);
	return inst.execute(workflow.id, { timeoutMs });
}

/**
 * Assert that an execute() result succeeded, judging by the printed run data: n8n 2.41.1 sometimes crashes
 * (SIGSEGV) while exiting after printing a complete result; that is reported as a diagnostic, not a failure.
 */
export function assertRunOk(t, res) {
	if (!res.ok) {
		const detail = res.error
			? JSON.stringify(res.error, null, 2).slice(0, 3000)
			: `no run data printed (exit ${res.exitCode}${res.signal ? `, ${res.signal}` : ''}${res.timedOut ? ', timed out' : ''})\n` +
				`stdout:\n${res.stdout.slice(-3000)}\nstderr:\n${res.stderr.slice(-3000)}`;
		assert.fail(`workflow run failed: ${detail}`);
	}
	if (res.crashedAfterResult) {
		t?.diagnostic?.(
			`n8n exited with ${res.signal ?? `code ${res.exitCode}`} after printing a complete, successful result (known n8n 2.41.1 exit crash); judged by the result`,
		);
	}
	if (res.peakRssBytes)
		t?.diagnostic?.(
			`execute: ${(res.ms / 1000).toFixed(1)} s, peak RSS ${Math.round(res.peakRssBytes / 2 ** 20)} MB`,
		);
	return res.result;
}

/** Items a node output (json only), asserting the node ran. */
export function outputOf(res, nodeName, outputIndex = 0) {
	const items = nodeOutput(res.result, nodeName, outputIndex);
	assert.ok(
		items,
		`node "${nodeName}" did not run; ran: ${Object.keys(res.result?.data?.resultData?.runData ?? {}).join(', ')}`,
	);
	return items;
}

/** Read an example workflow from examples/<file> and give it an importable id (1-21 characters). */
export function loadExample(file, id) {
	const wf = JSON.parse(fs.readFileSync(path.join(REPO, 'examples', file), 'utf8'));
	wf.id =
		id ??
		wf.id ??
		path
			.basename(file, '.json')
			.replace(/[^A-Za-z0-9]/g, '')
			.slice(0, 21);
	if (wf.id.length > 21) throw new Error(`workflow id too long: ${wf.id}`);
	wf.active = false;
	return wf;
}

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
export function fixtureWorkflow(id = 'gsE2eFixture', text = 'hi') {
	return {
		id,
		name: `Fixture ${id}`,
		active: false,
		nodes: [
			{
				id: 'a0b1c2d3-0000-4000-8000-000000000001',
				name: 'Manual',
				type: 'n8n-nodes-base.manualTrigger',
				typeVersion: 1,
				position: [0, 0],
				parameters: {},
			},
			{
				id: 'a0b1c2d3-0000-4000-8000-000000000002',
				name: 'Echo',
				type: FIXTURE_NODE_TYPE,
				typeVersion: 1,
				position: [220, 0],
				parameters: { text },
			},
		],
		connections: { Manual: { main: [[{ node: 'Echo', type: 'main', index: 0 }]] } },
		settings: { executionOrder: 'v1' },
		pinData: {},
	};
}

// ---------------------------------------------------------------------------------------------------------
// The local emulator, started in the test process (TypeScript: run the suites with `node --import tsx`).

/**
 * Start the emulator (emulator/src, see emulator/README.md) on a free port: { baseUrl, keys, control,
 * close, expectViolations, assertNoViolations }. The emulator is the referee of the client contract:
 * `close()` fails unless it saw exactly the violations declared with `expectViolations` (none by
 * default), so no suite can skip the check; suites that share one emulator across tests also call
 * `assertNoViolations()` after each test.
 */
export async function startEmulator(options = {}) {
	const { startEmulator: start } = await import('../../emulator/src/index.ts');
	const emu = await start({ port: 0, ...options });
	const close = emu.close;
	let expected = {};
	const unexpected = () => {
		const seen = Object.fromEntries(
			Object.entries(emu.control.violationCounts()).filter(([, n]) => n > 0),
		);
		const wanted = Object.fromEntries(Object.entries(expected).filter(([, n]) => n > 0));
		if (
			JSON.stringify(Object.entries(seen).sort()) === JSON.stringify(Object.entries(wanted).sort())
		)
			return undefined;
		const list = emu.control
			.violations()
			.slice(0, 20)
			.map((v) => `  ${v.kind} ${v.method} ${v.path} ${v.detail ?? ''}`)
			.join('\n');
		return `the emulator (referee) saw ${JSON.stringify(seen)}, expected ${JSON.stringify(wanted)}:\n${list}`;
	};
	emu.expectViolations = (counts) => {
		expected = { ...counts };
	};
	emu.assertNoViolations = () => {
		const problem = unexpected();
		emu.control.clearViolations();
		expected = {};
		if (problem) assert.fail(problem);
	};
	emu.close = async () => {
		const problem = unexpected();
		await close();
		if (problem) assert.fail(problem);
	};
	return emu;
}

/** Run `fn(emulator)` with a started emulator and always close it (which checks the referee). */
export async function withEmulator(options, fn) {
	const emu = await startEmulator(options);
	try {
		return await fn(emu);
	} finally {
		await emu.close();
	}
}
