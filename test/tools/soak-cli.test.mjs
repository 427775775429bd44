// `npm run soak -- --help` prints the usage (every option, --mode among them) and exits 0; a wrong argument
// prints what was wrong and the usage, exits 2, and shows no stack trace. The command is run, not imported.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { it } from 'node:test';

import { REPO } from '../../tools/lib/repo.mjs';

const soak = (...args) =>
	spawnSync(process.execPath, ['--import', 'tsx', path.join('scripts', 'soak.mjs'), ...args], {
		cwd: REPO,
		encoding: 'utf8',
		timeout: 60_000,
	});
const STACK = /^\s+at .+:\d+:\d+\)?$/m;

it('--help prints every option and exits 0', () => {
	const r = soak('--help');
	assert.equal(r.status, 0, r.stderr);
	for (const option of [
		'--minutes',
		'--seed',
		'--mode queue|regular',
		'--process-faults',
		'--json',
		'--doc',
	])
		assert.ok(r.stdout.includes(option), `usage lacks ${option}:\n${r.stdout}`);
	assert.doesNotMatch(r.stdout + r.stderr, STACK);
});

it('a wrong argument gives its reason and the usage, exit 2, no stack trace', () => {
	for (const [args, reason] of [
		[['--bogus'], /unknown argument --bogus/],
		[['--mode', 'cluster'], /--mode must be queue or regular/],
		[['--mode', 'regular', '--doc'], /not with --mode regular/],
	]) {
		const r = soak(...args);
		assert.equal(r.status, 2, `${args.join(' ')}: ${r.stderr}`);
		assert.match(r.stderr, reason);
		assert.match(r.stderr, /--process-faults all\|kills\|none/);
		assert.doesNotMatch(r.stderr, STACK, r.stderr);
	}
});
