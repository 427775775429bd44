// The package as it was at an earlier git commit, built and packed for the benchmark ("previous version"):
// `git archive <commit>` into a temp folder (the work tree and .git stay untouched), the repo's node_modules
// linked in (only when that commit's package.json and lockfile equal the current ones; otherwise `npm ci`),
// `npm run build`, `npm pack`. Kept per commit in <tmp>/gs-bench-prev/<commit>/ so reruns reuse it.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { cleanEnv, run } from '../tools/lib/process.mjs';

const git = (repo, args) => execFileSync('git', ['-C', repo, ...args], { maxBuffer: 64 << 20 });

/** Tarball of the package at `commit` (full or short hash). Returns { tarball, commit (full), built: bool }. */
export async function packCommit(repo, commit, log = () => undefined) {
	const full = git(repo, ['rev-parse', '--verify', `${commit}^{commit}`])
		.toString()
		.trim();
	const dir = path.join(os.tmpdir(), 'gs-bench-prev', full);
	const done = path.join(dir, '.done');
	if (fs.existsSync(done)) {
		return { tarball: path.join(dir, fs.readFileSync(done, 'utf8')), commit: full, built: false };
	}
	fs.rmSync(dir, { recursive: true, force: true });
	const src = path.join(dir, 'src');
	fs.mkdirSync(src, { recursive: true });
	const t0 = Date.now();
	execFileSync('tar', ['-x', '-C', src], { input: git(repo, ['archive', full]) });
	const same = (file) => {
		const then = path.join(src, file);
		const now = path.join(repo, file);
		return (
			fs.existsSync(then) &&
			fs.existsSync(now) &&
			fs.readFileSync(then).equals(fs.readFileSync(now))
		);
	};
	const env = cleanEnv();
	if (same('package.json') && same('package-lock.json')) {
		fs.symlinkSync(path.join(repo, 'node_modules'), path.join(src, 'node_modules'), 'dir');
	} else {
		log(`${full.slice(0, 7)}: dependencies differ from the work tree, npm ci (slow)…`);
		const ci = await run('npm', ['ci', '--no-audit', '--no-fund', '--ignore-scripts'], {
			cwd: src,
			env,
		});
		if (ci.code !== 0)
			throw new Error(`npm ci at ${full}:\n${(ci.stdout + ci.stderr).slice(-3000)}`);
	}
	const b = await run('npm', ['run', 'build'], { cwd: src, env });
	if (b.code !== 0) throw new Error(`build at ${full}:\n${(b.stdout + b.stderr).slice(-3000)}`);
	const p = await run('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', dir], {
		cwd: src,
		env,
	});
	if (p.code !== 0) throw new Error(`npm pack at ${full}:\n${(p.stdout + p.stderr).slice(-3000)}`);
	const filename = path.basename(JSON.parse(p.stdout.slice(p.stdout.indexOf('[')))[0].filename);
	fs.writeFileSync(done, filename);
	log(`built and packed ${full.slice(0, 7)} in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
	return { tarball: path.join(dir, filename), commit: full, built: true };
}
