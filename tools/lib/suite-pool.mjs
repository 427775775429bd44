// Test files run side by side: each file its own `node --test` process, at most `concurrency` at once, started
// in the order given as far as their groups allow (node:test's own --test-concurrency sorts the files by name,
// so it cannot start the long ones first, nor keep a slot from a file that would only wait for a queue stack).
// A file's output is printed whole when it ends, so the log reads one suite at a time; then a table of every
// file's time and counts. Each file runs in its own process group; a signal to this process (a terminal's
// Ctrl-C, or one sent to npm alone) is passed to the files still running, once, so each stops what it started
// as when it runs alone, and this process ends when they have.
import { spawn } from 'node:child_process';
import path from 'node:path';

import { secs } from './format.mjs';

/** `env` without node:test's mark of its own child processes (a pool run from a test would run no file). */
const withoutTestContext = ({ NODE_TEST_CONTEXT: _, ...env } = process.env) => env;

/** The counts node:test prints at the end of a file's TAP output: { tests, pass, fail, skipped }. */
export function tapCounts(text) {
	const count = (name) => {
		const m = text.match(new RegExp(`^# ${name} (\\d+)$`, 'm'));
		return m ? Number(m[1]) : undefined;
	};
	return {
		tests: count('tests'),
		pass: count('pass'),
		fail: count('fail'),
		skipped: count('skipped'),
	};
}

/** The table printed after the files: one row a file (in the order they ended), then the totals. */
export function poolTable(results, wallMs) {
	const rows = results.map((r) => [
		path.basename(r.file),
		secs(r.ms),
		...['tests', 'pass', 'fail', 'skipped'].map((k) => String(r.counts[k] ?? '?')),
		r.code === 0 ? 'ok' : `exit ${r.code}`,
	]);
	const sum = (k) => results.reduce((a, r) => a + (r.counts[k] ?? 0), 0);
	rows.push([
		`${results.length} files`,
		`${secs(results.reduce((a, r) => a + r.ms, 0))} summed, ${secs(wallMs)} wall`,
		...['tests', 'pass', 'fail', 'skipped'].map((k) => String(sum(k))),
		results.every((r) => r.code === 0) ? 'ok' : 'FAILED',
	]);
	const head = ['file', 'time', 'tests', 'pass', 'fail', 'skipped', 'result'];
	const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
	const line = (cells) => cells.map((c, i) => c.padEnd(widths[i])).join('  ');
	return [line(head), ...rows.map(line)].join('\n');
}

/**
 * Runs `files` (paths relative to `cwd`), `concurrency` at a time, each as
 * `node [nodeArgs] --test --test-reporter=tap <file>`. A free slot takes the first file in this order that
 * `groups` allow: a group ({ match(file), max }) runs at most `max` of its files at once (a file that would
 * wait inside for a shared resource, such as the machine's queue stacks, would hold a slot doing nothing).
 * Resolves to { code, results, wallMs }: code 0 when every file exited 0 and reported no failure.
 */
export async function runSuitePool(
	files,
	{
		concurrency,
		groups = [],
		cwd,
		env,
		nodeArgs = ['--import', 'tsx'],
		print = (text) => process.stdout.write(text),
		spawnFile = (file) =>
			spawn(process.execPath, [...nodeArgs, '--test', '--test-reporter=tap', file], {
				cwd,
				env: withoutTestContext(env),
				stdio: ['ignore', 'pipe', 'pipe'],
				detached: true, // a terminal's Ctrl-C reaches it once, passed on by this process
			}),
	},
) {
	const t0 = Date.now();
	const queue = [...files];
	const running = new Map(); // file → child
	const results = [];
	const forward = (sig) => {
		for (const child of running.values()) {
			try {
				process.kill(-child.pid, sig); // its group: the runner and the file's own process
			} catch {
				/* gone */
			}
		}
	};
	const signals = ['SIGINT', 'SIGTERM', 'SIGHUP'];
	for (const sig of signals) process.on(sig, forward);
	const runOne = (file) =>
		new Promise((resolve) => {
			const started = Date.now();
			const child = spawnFile(file);
			running.set(file, child);
			print(`── started ${file} (${running.size} running, ${queue.length} waiting)\n`);
			const chunks = [];
			child.stdout.on('data', (c) => chunks.push(c));
			child.stderr.on('data', (c) => chunks.push(c));
			let finished = false;
			const finish = (code) => {
				if (finished) return;
				finished = true;
				running.delete(file);
				const output = Buffer.concat(chunks).toString('utf8');
				const counts = tapCounts(output);
				const failed = code !== 0 || (counts.fail ?? 0) > 0;
				const result = {
					file,
					ms: Date.now() - started,
					code: failed && code === 0 ? 1 : code,
					counts,
				};
				print(`── ${file}: ${failed ? 'FAILED' : 'ok'} in ${secs(result.ms)}\n${output}`);
				print(`── end of ${file}\n`);
				results.push(result);
				resolve();
			};
			child.once('error', (error) => {
				chunks.push(Buffer.from(`${error.stack ?? error}\n`));
				finish(1);
			});
			child.once('close', (code, signal) => finish(code ?? (signal ? 1 : 0)));
		});
	const allowed = (file) =>
		groups.every(
			(g) => !g.match(file) || [...running.keys()].filter((f) => g.match(f)).length < g.max,
		);
	const ran = [];
	const fill = () => {
		while (running.size < Math.max(1, concurrency) && queue.length) {
			let i = queue.findIndex(allowed);
			if (i === -1 && running.size > 0) return; // a slot is free, but every file left waits for a group
			if (i === -1) i = 0; // nothing runs: a group of max 0 must not stop the run
			const [file] = queue.splice(i, 1);
			ran.push(runOne(file).then(fill));
		}
	};
	try {
		fill();
		while (results.length < files.length) await Promise.all([...ran]);
	} finally {
		for (const sig of signals) process.off(sig, forward);
	}
	const wallMs = Date.now() - t0;
	print(`\n${poolTable(results, wallMs)}\n`);
	return { code: results.every((r) => r.code === 0) ? 0 : 1, results, wallMs };
}
