// A long-running npm script stops when only one of its processes is signalled, as an IDE's stop button or a
// process manager does (`kill -INT <pid of npm>`), not only on a terminal's Ctrl-C (SIGINT to the whole
// process group). npm forwards SIGINT and SIGTERM to the shell that runs the script, and a shell that waits for
// a command keeps SIGINT to itself and dies of SIGTERM without passing it on; so the scripts that run until
// stopped (`npm start`, `npm run emulator`) `exec` their node process in place of that shell, and npm's
// forwarding reaches it. Checked here on `npm run emulator` (no n8n needed); test/e2e/start.test.mjs does the
// same to `npm start` with real n8n. Linux only (the processes are found in /proc).
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, describe, it } from 'node:test';

import { pidAlive } from '../../tools/lib/locks.mjs';
import { freePort, listening } from '../../tools/lib/net.mjs';
import { processStats } from '../../tools/lib/process.mjs';
import { REPO } from '../../tools/lib/repo.mjs';
import { waitUntil } from '../../tools/lib/wait.mjs';

const started = [];
after(() => {
	for (const pid of started) if (pidAlive(pid)) process.kill(-pid, 'SIGKILL');
});

/** Live processes of the process group `pgid` (npm's own: it was started detached). */
const groupOf = (pgid) =>
	[...processStats()]
		.filter(({ pid, fields }) => Number(fields[2]) === pgid && fields[0] !== 'Z' && pid !== pgid)
		.map(({ pid }) => pid);

/** `npm run emulator -- --port P` in a process group of its own, once it listens: { npm, node, port, ended }. */
async function emulatorByNpm() {
	const port = await freePort();
	const child = spawn('npm', ['run', 'emulator', '--', '--port', String(port)], {
		cwd: REPO,
		detached: true,
		stdio: ['ignore', 'pipe', 'pipe'],
	});
	started.push(child.pid);
	let out = '';
	child.stdout.on('data', (d) => (out += d));
	child.stderr.on('data', (d) => (out += d));
	const ended = {};
	child.once('exit', (code, signal) => Object.assign(ended, { code, signal }));
	await waitUntil(
		'the emulator listening',
		() => out.includes('Try: curl') || child.exitCode !== null,
		{
			timeoutMs: 60_000,
			everyMs: 100,
		},
	);
	assert.equal(child.exitCode, null, out);
	assert.equal(await listening(port), true, out);
	const node = groupOf(child.pid).find((pid) => {
		const argv = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
		return path.basename(argv[0]) === 'node' && argv.includes('emulator/cli.mjs');
	});
	assert.ok(node, `no node process in npm's group: ${groupOf(child.pid)}`);
	return { npm: child.pid, node, port, ended, output: () => out };
}

/** After a signal: npm ends, the port is free and no process of its group is left. */
async function allStopped(run) {
	await waitUntil('npm to exit', () => 'code' in run.ended, {
		timeoutMs: 20_000,
		everyMs: 100,
	});
	await waitUntil('nothing left of npm run emulator', () => groupOf(run.npm).length === 0, {
		timeoutMs: 20_000,
		everyMs: 100,
	}).catch((error) => {
		throw new Error(`${error.message}: left ${groupOf(run.npm).join(', ')}`);
	});
	assert.equal(await listening(run.port), false, `something still listens on ${run.port}`);
	assert.match(run.output(), /emulator stopped \(/);
}

describe(
	'a signal to one process of an npm script stops it all',
	{ skip: process.platform !== 'linux' && 'reads /proc' },
	() => {
		it('SIGINT to the npm process alone (an IDE stop button)', async () => {
			const run = await emulatorByNpm();
			process.kill(run.npm, 'SIGINT');
			await allStopped(run);
		});

		it('SIGTERM to the npm process alone (a process manager)', async () => {
			const run = await emulatorByNpm();
			process.kill(run.npm, 'SIGTERM');
			await allStopped(run);
		});

		it('SIGINT to the node process alone', async () => {
			const run = await emulatorByNpm();
			process.kill(run.node, 'SIGINT');
			await allStopped(run);
		});

		it('the scripts that run until stopped exec their node process (npm forwards signals to it)', () => {
			const { scripts } = JSON.parse(fs.readFileSync(`${REPO}/package.json`, 'utf8'));
			for (const name of ['start', 'emulator']) assert.match(scripts[name], /^exec node /, name);
		});
	},
);
