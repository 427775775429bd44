#!/usr/bin/env node
// The jest suite N times in a row on a busy machine: a busy loop on every core runs beside it the whole
// time (or a second jest run, with --load jest), and failures are printed by test name at the end.
//
//   npm run test:stress -- --runs 10 [--load spin|jest|none] [--spinners N] [-- <jest args>]
//
// A test whose verdict depends on how busy the machine is shows up here as a name that fails in some runs
// and passes in others. Exit code 1 when any run failed.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

function parseArgs(argv) {
	const opts = { runs: 3, load: 'spin', spinners: os.availableParallelism(), jestArgs: [] };
	for (let i = 0; i < argv.length; i++) {
		const a = argv[i];
		if (a === '--') {
			opts.jestArgs = argv.slice(i + 1);
			break;
		}
		if (a === '--runs') opts.runs = Number(argv[++i]);
		else if (a === '--load') opts.load = argv[++i];
		else if (a === '--spinners') opts.spinners = Number(argv[++i]);
		else opts.jestArgs.push(a);
	}
	if (!Number.isInteger(opts.runs) || opts.runs < 1)
		throw new Error('--runs takes a whole number ≥ 1');
	if (!['spin', 'jest', 'none'].includes(opts.load))
		throw new Error('--load is spin, jest or none');
	return opts;
}

const jestBin = path.join(ROOT, 'node_modules', 'jest', 'bin', 'jest.js');
const children = new Set();

function start(cmd, args, options = {}) {
	const child = spawn(cmd, args, { cwd: ROOT, detached: true, ...options });
	children.add(child);
	child.on('exit', () => children.delete(child));
	return child;
}

function stopAll() {
	for (const child of children) {
		try {
			process.kill(-child.pid, 'SIGKILL');
		} catch {
			/* already gone */
		}
	}
}
for (const sig of ['SIGINT', 'SIGTERM']) {
	process.on(sig, () => {
		stopAll();
		process.exit(130);
	});
}

/** The load beside the suite: a busy loop per core, or jest itself run again and again. */
function startLoad(opts) {
	if (opts.load === 'none') return;
	if (opts.load === 'spin') {
		for (let i = 0; i < opts.spinners; i++) {
			start(process.execPath, ['-e', 'for (;;) { Math.sqrt(Math.random()); }'], {
				stdio: 'ignore',
			});
		}
		return;
	}
	const loop = () => {
		if (stopping) return;
		const child = start(process.execPath, [jestBin, '--silent'], {
			stdio: 'ignore',
			env: { ...process.env, N8N_USER_FOLDER: '' },
		});
		child.on('exit', loop);
	};
	loop();
}

let stopping = false;

async function runJest(run, opts) {
	const out = path.join(os.tmpdir(), `gs-stress-${process.pid}-${run}.json`);
	const started = Date.now();
	const child = start(
		process.execPath,
		[jestBin, '--json', `--outputFile=${out}`, ...opts.jestArgs],
		{
			stdio: ['ignore', 'ignore', 'pipe'],
			env: { ...process.env, N8N_USER_FOLDER: '' },
		},
	);
	let stderr = '';
	child.stderr.on('data', (d) => {
		stderr = (stderr + d).slice(-20_000);
	});
	const code = await new Promise((resolve) => child.on('exit', (c) => resolve(c ?? 1)));
	const seconds = (Date.now() - started) / 1000;
	let report;
	try {
		report = JSON.parse(fs.readFileSync(out, 'utf8'));
		fs.rmSync(out, { force: true });
	} catch {
		return {
			code,
			seconds,
			passed: 0,
			failed: [],
			broken: stderr.split('\n').slice(-30).join('\n'),
		};
	}
	const failed = [];
	for (const file of report.testResults) {
		const rel = path.relative(ROOT, file.name);
		if (file.status === 'failed' && file.assertionResults.every((a) => a.status !== 'failed')) {
			failed.push({
				name: `${rel} (the file)`,
				message: file.message.split('\n').slice(0, 12).join('\n'),
			});
		}
		for (const a of file.assertionResults) {
			if (a.status === 'failed') {
				failed.push({
					name: `${rel} › ${a.fullName}`,
					message: (a.failureMessages[0] ?? '').split('\n').slice(0, 12).join('\n'),
				});
			}
		}
	}
	return { code, seconds, passed: report.numPassedTests, failed };
}

async function main() {
	const opts = parseArgs(process.argv.slice(2));
	console.log(
		`test:stress: ${opts.runs} full jest runs on ${os.availableParallelism()} cores, load: ${
			opts.load === 'spin' ? `${opts.spinners} busy loops` : opts.load
		}${opts.jestArgs.length ? `, jest ${opts.jestArgs.join(' ')}` : ''}`,
	);
	startLoad(opts);
	const failures = new Map();
	const results = [];
	for (let run = 1; run <= opts.runs; run++) {
		const r = await runJest(run, opts);
		results.push(r);
		for (const f of r.failed) {
			const seen = failures.get(f.name) ?? { runs: [], message: f.message };
			seen.runs.push(run);
			failures.set(f.name, seen);
		}
		console.log(
			`run ${run}/${opts.runs}: ${r.passed} passed, ${r.failed.length} failed, exit ${r.code}, ${r.seconds.toFixed(0)} s` +
				(r.broken ? `\n  jest wrote no report:\n${r.broken}` : ''),
		);
	}
	stopping = true;
	stopAll();
	const bad = results.filter((r) => r.code !== 0).length;
	const seconds = results.map((r) => r.seconds);
	console.log(
		`\n${opts.runs - bad} of ${opts.runs} runs passed; time per run ${Math.min(...seconds).toFixed(0)}–${Math.max(...seconds).toFixed(0)} s`,
	);
	for (const [name, f] of failures) {
		console.log(
			`\nFAILED in run ${f.runs.join(', ')}: ${name}\n${f.message.replace(/^/gm, '    ')}`,
		);
	}
	process.exit(bad === 0 ? 0 : 1);
}

main().catch((error) => {
	stopping = true;
	stopAll();
	console.error(error);
	process.exit(1);
});
