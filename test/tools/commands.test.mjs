// Every command README.md and CONTRIBUTING.md name answers `--help` and a wrong argument as a user types them
// (`npm start -- --help`, `node scripts/queue-host.mjs --help`): the usage with its options and exit 0; one line
// of English, the usage and exit 2 for an unknown option; never a stack trace; quickly; and nothing started —
// the commands run with a preload (fixtures/refuse-starts.mjs) that records and refuses any child process or
// listening server, and with the n8n cache and npm start's folder pointed at paths that must stay absent.
// One parser reads them all (tools/lib/cli.mjs); the third-party tools the docs name (n8n-node, tsc, jest,
// release-it) answer --help themselves.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';

import { codeOf, scriptsNamed } from '../../tools/lib/doc-links.mjs';
import { REPO } from '../../tools/lib/repo.mjs';

const PRELOAD = path.join(REPO, 'test', 'tools', 'fixtures', 'refuse-starts.mjs');
const STACK = /^\s+at .+:\d+:\d+\)?$/m;
/** A bound to tell "answered at once" from "did some work first" (a build alone takes longer), not a goal. */
const QUICK_MS = 15_000;

/** How users type each command, the name its usage gives, and words its --help must show. */
const COMMANDS = [
	{ argv: ['npm', 'start'], name: 'npm start', shows: ['--port PORT', '--emulator-port PORT'] },
	{ argv: ['npm', 'run', 'demo'], name: 'npm run demo', shows: ['GS_DEMO_HOST'] },
	{
		argv: ['npm', 'run', 'emulator'],
		name: 'npm run emulator',
		shows: ['--port PORT', '--state FILE', '--ip-limit N/MS', '--min-poll-interval-ms MS'],
	},
	{
		argv: ['npm', 'run', 'soak'],
		name: 'npm run soak',
		shows: [
			'--minutes M',
			'--seed S',
			'--mode queue|regular',
			'--process-faults',
			'--json',
			'--doc',
		],
	},
	{
		argv: ['npm', 'run', 'bench'],
		name: 'npm run bench',
		shows: ['--only PARTS', '--doc', '--queue-calls N', '--batch-sizes A,B', '--no-write'],
	},
	{ argv: ['npm', 'run', 'n8n:install'], name: 'node scripts/n8n-host.mjs', shows: ['install'] },
	{ argv: ['npm', 'run', 'n8n:smoke'], name: 'node scripts/n8n-host.mjs', shows: ['smoke'] },
	{ argv: ['npm', 'test'], name: 'npm test', shows: ['lint', 'e2e', 'apt-get', '~/.cache'] },
	{ argv: ['npm', 'run', 'test:tools'], name: 'npm test', shows: ['tools'] },
	{ argv: ['npm', 'run', 'test:e2e'], name: 'npm test', shows: ['e2e'] },
	{ argv: ['npm', 'run', 'test:stress'], name: 'npm run test:stress', shows: ['--runs N'] },
	{ argv: ['npm', 'run', 'test:reliability'], name: 'npm run test:reliability', shows: [] },
	{ argv: ['npm', 'run', 'release:rehearse'], name: 'npm run release:rehearse', shows: [] },
	{ argv: ['npm', 'run', 'screenshots'], name: 'npm run screenshots', shows: ['docs/images'] },
	{
		argv: ['node', 'scripts/queue-host.mjs'],
		name: 'node scripts/queue-host.mjs',
		shows: ['check', 'up', 'redis-server'],
	},
	{ argv: ['node', 'scripts/n8n-host.mjs'], name: 'node scripts/n8n-host.mjs', shows: ['path'] },
	{ argv: ['node', 'scripts/pin-version.mjs'], name: 'node scripts/pin-version.mjs', shows: [] },
	{
		argv: ['node', 'scripts/local-registry.mjs'],
		name: 'node scripts/local-registry.mjs',
		shows: ['install'],
	},
];
/** npm scripts that are a third-party tool's own command line (each answers --help itself). */
const THIRD_PARTY = ['build', 'lint', 'typecheck', 'test:unit', 'release', 'release:ci'];

const work = fs.mkdtempSync(path.join(os.tmpdir(), 'gs-commands-'));
after(() => fs.rmSync(work, { recursive: true, force: true }));

/** Runs `argv` + `args` as typed in a shell in the repository: { code, stdout, stderr, ms, starts }. */
function runCommand(argv, args, tag) {
	const startsLog = path.join(work, `${tag}.starts`);
	const absent = { cache: path.join(work, `${tag}-cache`), start: path.join(work, `${tag}-start`) };
	const [file, ...rest] = argv;
	const full = [...rest, ...(file === 'npm' ? ['--'] : []), ...args];
	const t0 = Date.now();
	return new Promise((resolve, reject) => {
		const child = spawn(file === 'node' ? process.execPath : file, full, {
			cwd: REPO,
			env: {
				...process.env,
				NODE_OPTIONS: `--import=${PRELOAD}`,
				GS_STARTS_LOG: startsLog,
				GS_N8N_CACHE: absent.cache,
				GS_START_FOLDER: absent.start,
			},
			stdio: ['ignore', 'pipe', 'pipe'],
		});
		let stdout = '';
		let stderr = '';
		child.stdout.on('data', (d) => (stdout += d));
		child.stderr.on('data', (d) => (stderr += d));
		child.once('error', reject);
		child.once('exit', (code) =>
			resolve({
				code,
				stdout,
				stderr,
				ms: Date.now() - t0,
				starts: fs.existsSync(startsLog) ? fs.readFileSync(startsLog, 'utf8') : '',
				created: Object.values(absent).filter((p) => fs.existsSync(p)),
			}),
		);
	});
}

/** npm prints `> package@version script` and the script's command before it runs it: what follows is ours. */
const ownOutput = (text) => text.replace(/^\n?> .*\n> .*\n\n?/, '');

describe('every command: --help and a wrong argument', { concurrency: 3 }, () => {
	for (const [k, cmd] of COMMANDS.entries()) {
		const typed = `${cmd.argv.join(' ')}${cmd.argv[0] === 'npm' ? ' --' : ''}`;

		it(`${typed} --help: the usage and its options, exit 0, nothing started`, async (t) => {
			const r = await runCommand(cmd.argv, ['--help'], `help-${k}`);
			t.diagnostic(`${typed} --help: ${r.ms} ms`);
			assert.equal(r.starts, '', `it started something:\n${r.starts}`);
			assert.deepEqual(r.created, [], 'it created the n8n cache or the start folder');
			assert.equal(r.code, 0, r.stderr);
			const out = ownOutput(r.stdout);
			assert.ok(out.startsWith(`usage: ${cmd.name}`), out);
			assert.match(out, /^ {2}-h, --help +print this text and exit \(nothing starts\)$/m);
			for (const word of cmd.shows) assert.ok(out.includes(word), `--help lacks ${word}:\n${out}`);
			assert.equal(r.stderr, '');
			assert.ok(r.ms < QUICK_MS, `${r.ms} ms`);
		});

		it(`${typed} --no-such-option: one line of English and the usage, exit 2, no stack trace`, async () => {
			const r = await runCommand(cmd.argv, ['--no-such-option'], `bad-${k}`);
			assert.equal(r.starts, '', `it started something:\n${r.starts}`);
			assert.deepEqual(r.created, []);
			assert.equal(r.code, 2, r.stdout + r.stderr);
			const [first, blank, usage] = r.stderr.split('\n');
			assert.equal(first, `${cmd.name}: unknown option --no-such-option`);
			assert.equal(blank, '');
			assert.ok(usage.startsWith(`usage: ${cmd.name}`), r.stderr);
			assert.doesNotMatch(r.stdout + r.stderr, STACK);
			assert.equal(ownOutput(r.stdout), '', 'nothing on stdout');
			assert.ok(r.ms < QUICK_MS, `${r.ms} ms`);
		});
	}

	for (const [argv, args, reason] of [
		[['npm', 'run', 'soak'], ['--mode', 'cluster'], '--mode takes queue or regular, not "cluster"'],
		[['npm', 'run', 'soak'], ['--mode', 'regular', '--doc'], 'not with --mode regular'],
		[['npm', 'start'], ['--port', 'x'], '--port takes a whole number from 1 to 65535, not "x"'],
		[['npm', 'start'], ['--port'], '--port needs a value: --port PORT'],
		[['npm', 'run', 'bench'], ['--only=nothing'], 'unknown part nothing'],
		[['npm', 'run', 'demo'], ['now'], 'unexpected argument now'],
		[['npm', 'test'], ['everything'], 'unknown step everything'],
		[['node', 'scripts/queue-host.mjs'], ['down'], '<command> is check or up, not "down"'],
		[['node', 'scripts/queue-host.mjs'], ['up'], 'up needs the package tarball'],
		[['node', 'scripts/n8n-host.mjs'], ['install', '3'], '[hosts] is 1, 2, all or a list'],
		[['node', 'scripts/pin-version.mjs'], [], 'missing <version>'],
	]) {
		it(`${argv.join(' ')} ${args.join(' ')}: "${reason}", exit 2, nothing started`, async () => {
			const r = await runCommand(argv, args, `why-${argv.at(-1)}-${args.join('')}`);
			assert.equal(r.starts, '', `it started something:\n${r.starts}`);
			assert.equal(r.code, 2, r.stdout + r.stderr);
			const first = r.stderr.split('\n')[0];
			assert.ok(first.includes(reason), first);
			assert.doesNotMatch(r.stdout + r.stderr, STACK);
		});
	}
});

it('README.md and CONTRIBUTING.md name no command this test leaves out', () => {
	// what the docs show as commands: code blocks and code spans
	const texts = ['README.md', 'CONTRIBUTING.md'].map((f) =>
		fs.readFileSync(path.join(REPO, f), 'utf8'),
	);
	const covered = new Set(COMMANDS.map((c) => c.argv.join(' ')));
	const named = new Set([
		...texts
			.flatMap(scriptsNamed)
			.map(({ script }) =>
				['start', 'test'].includes(script) ? `npm ${script}` : `npm run ${script}`,
			),
		...texts
			.flatMap(codeOf)
			.flatMap(({ code }) => [...code.matchAll(/\bnode (scripts\/[\w-]+\.mjs)/g)])
			.map((m) => `node ${m[1]}`),
	]);
	const left = [...named].filter(
		(c) => !covered.has(c) && !THIRD_PARTY.some((s) => c === `npm run ${s}`),
	);
	assert.deepEqual(left, []);
	// and the list is not stale: every npm script it runs exists
	const scripts = JSON.parse(fs.readFileSync(path.join(REPO, 'package.json'), 'utf8')).scripts;
	for (const c of [...COMMANDS.map((x) => x.argv), ...THIRD_PARTY.map((s) => ['npm', 'run', s])])
		if (c[0] === 'npm')
			assert.ok(
				scripts[c[1] === 'run' ? c[2] : c[1]],
				`package.json has no script for ${c.join(' ')}`,
			);
});
