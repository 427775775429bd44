// `npm run test:stress`: the jest suite N times in a row on a busy machine — a busy loop on every core beside
// it the whole time (or a second jest run, with --load jest) — and its failures by test name. A test whose
// verdict depends on how busy the machine is shows up as a name that fails in some runs and passes in others.
// The children run in their own process groups through process.mjs (killed with this process, exit.mjs).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { integer, oneOf, parseCommandLine } from './cli.mjs';
import { run, spawnLogged } from './process.mjs';
import { REPO } from './repo.mjs';

const JEST = path.join(REPO, 'node_modules', 'jest', 'bin', 'jest.js');
const JEST_ENV = () => ({ ...process.env, N8N_USER_FOLDER: '' });

/** The command line of `npm run test:stress` (tools/lib/cli.mjs). */
export const STRESS_COMMAND = {
	command: 'npm run test:stress',
	summary:
		'The jest suite N times in a row on a busy machine (a busy loop on every core beside it, or a second\n' +
		'jest run), then its failures by test name: a test that fails in some runs and passes in others depends\n' +
		'on how busy the machine is. Exit 1 when any run failed.',
	args: [{ name: 'jest paths', help: 'test paths handed to jest (default: the whole jest suite)' }],
	extraArgs: true,
	rest: 'JEST ARGS',
	options: {
		runs: {
			type: 'string',
			value: 'N',
			default: 3,
			parse: integer({ min: 1 }),
			help: 'how many jest runs',
		},
		load: {
			type: 'string',
			value: 'spin|jest|none',
			default: 'spin',
			parse: oneOf(['spin', 'jest', 'none']),
			help: 'what runs beside it',
		},
		spinners: {
			type: 'string',
			value: 'N',
			parse: integer({ min: 0 }),
			help: 'busy loops with --load spin (default: one per core)',
		},
	},
	notes: ['e.g. npm run test:stress -- --runs 10 test/unit -- -t "pacer"'],
};

/** `--runs N [--load spin|jest|none] [--spinners N] [jest paths] [-- <jest args>]`. */
export function parseStressArgs(argv, cores = os.availableParallelism()) {
	const { options, positionals, rest } = parseCommandLine(STRESS_COMMAND, argv);
	return {
		runs: options.runs,
		load: options.load,
		spinners: options.spinners ?? cores,
		jestArgs: [...positionals, ...rest],
	};
}

/**
 * The failures in a jest `--json` report: [{ name, message }] — each failed test (`<file> › <full name>`),
 * and a file that failed outside its tests (`<file> (the file)`), messages cut to 12 lines.
 */
export function jestFailures(report, root = REPO) {
	const head = (text) => text.split('\n').slice(0, 12).join('\n');
	const failed = [];
	for (const file of report.testResults) {
		const rel = path.relative(root, file.name);
		if (file.status === 'failed' && file.assertionResults.every((a) => a.status !== 'failed'))
			failed.push({ name: `${rel} (the file)`, message: head(file.message) });
		for (const a of file.assertionResults)
			if (a.status === 'failed')
				failed.push({ name: `${rel} › ${a.fullName}`, message: head(a.failureMessages[0] ?? '') });
	}
	return failed;
}

/** Failures by name across runs (results[k] is run k + 1): name → { runs: [run numbers], message }. */
export function failuresByName(results) {
	const failures = new Map();
	results.forEach((r, k) => {
		for (const f of r.failed) {
			const seen = failures.get(f.name) ?? { runs: [], message: f.message };
			seen.runs.push(k + 1);
			failures.set(f.name, seen);
		}
	});
	return failures;
}

/** The load beside the suite (a busy loop per core, or jest again and again); resolves a stop(). */
function startLoad(opts) {
	const procs = new Set();
	let stopping = false;
	const start = (args, env, label) => {
		const proc = spawnLogged(process.execPath, args, {
			cwd: REPO,
			env,
			logFile: '/dev/null',
			label,
		});
		procs.add(proc);
		proc.done.then(() => procs.delete(proc));
		return proc;
	};
	if (opts.load === 'spin')
		for (let i = 0; i < opts.spinners; i++)
			start(['-e', 'for (;;) { Math.sqrt(Math.random()); }'], process.env, 'busy loop');
	if (opts.load === 'jest') {
		const loop = () => {
			if (!stopping) start([JEST, '--silent'], JEST_ENV(), 'jest (load)').done.then(loop);
		};
		loop();
	}
	return async () => {
		stopping = true;
		await Promise.all([...procs].map((p) => p.stop('SIGKILL', 5000)));
	};
}

/** One jest run with a JSON report: { code, seconds, passed, failed, broken (when jest wrote no report) }. */
async function runJest(run_, opts) {
	const out = path.join(os.tmpdir(), `gs-stress-${process.pid}-${run_}.json`);
	const r = await run(process.execPath, [JEST, '--json', `--outputFile=${out}`, ...opts.jestArgs], {
		cwd: REPO,
		env: JEST_ENV(),
	});
	const code = r.code ?? 1;
	const seconds = r.ms / 1000;
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
			broken: r.stderr.split('\n').slice(-30).join('\n'),
		};
	}
	return { code, seconds, passed: report.numPassedTests, failed: jestFailures(report) };
}

/** The runs, a line each, then the failures by name; resolves the exit code (1 when any run failed). */
export async function runStress(opts, print = console.log) {
	print(
		`test:stress: ${opts.runs} full jest runs on ${os.availableParallelism()} cores, load: ${
			opts.load === 'spin' ? `${opts.spinners} busy loops` : opts.load
		}${opts.jestArgs.length ? `, jest ${opts.jestArgs.join(' ')}` : ''}`,
	);
	const stopLoad = startLoad(opts);
	const results = [];
	try {
		for (let k = 1; k <= opts.runs; k++) {
			const r = await runJest(k, opts);
			results.push(r);
			print(
				`run ${k}/${opts.runs}: ${r.passed} passed, ${r.failed.length} failed, exit ${r.code}, ${r.seconds.toFixed(0)} s` +
					(r.broken ? `\n  jest wrote no report:\n${r.broken}` : ''),
			);
		}
	} finally {
		await stopLoad();
	}
	const bad = results.filter((r) => r.code !== 0).length;
	const seconds = results.map((r) => r.seconds);
	print(
		`\n${opts.runs - bad} of ${opts.runs} runs passed; time per run ${Math.min(...seconds).toFixed(0)}–${Math.max(...seconds).toFixed(0)} s`,
	);
	for (const [name, f] of failuresByName(results))
		print(`\nFAILED in run ${f.runs.join(', ')}: ${name}\n${f.message.replace(/^/gm, '    ')}`);
	return bad === 0 ? 0 : 1;
}
