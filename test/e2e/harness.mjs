// What the end-to-end suites (node:test) share beyond the tooling library (tools/lib): which hosts to test,
// instances that honour GS_E2E_KEEP, and assertions on run results.
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

import { startEmulator } from '../../tools/lib/emulator.mjs';
import { hostList } from '../../tools/lib/hosts.mjs';
import { createInstance } from '../../tools/lib/instance.mjs';
import { nodeOutput } from '../../tools/lib/run-data.mjs';

export { startEmulator } from '../../tools/lib/emulator.mjs';
export { ensureHost } from '../../tools/lib/hosts.mjs';
export {
	FIXTURE_NODE_TYPE,
	FIXTURE_PACKAGE,
	fixtureWorkflow,
	packFixturePackage,
	packOnce,
} from '../../tools/lib/pack.mjs';
export { PACKAGE, REPO, loadExample, packageNodeType } from '../../tools/lib/repo.mjs';

/** Time allowed for a first (cold) host install inside a test hook. */
export const INSTALL_TIMEOUT_MS = 30 * 60_000;

const log = (msg) => process.stderr.write(`[e2e] ${msg}\n`);

/** Host versions to run the suites on (env GS_E2E_HOSTS, default "2"). */
export function e2eHosts() {
	return hostList(process.env.GS_E2E_HOSTS);
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

/** Run `fn(emulator)` with a started emulator and always close it (which checks the referee). */
export async function withEmulator(options, fn) {
	const emu = await startEmulator(options);
	try {
		return await fn(emu);
	} finally {
		await emu.close();
	}
}
