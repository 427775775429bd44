#!/usr/bin/env node
// `npm run release:rehearse`: the release path, offline (tools/lib/release.mjs), as `npm test` rehearses it in
// the Community Nodes suite, without n8n: a local registry (verdaccio, in the cache), then in temporary clones
// of HEAD `npm run release -- patch --ci` (release-it: bump, CHANGELOG, README's pinned version, commit, tag,
// push to a bare origin), a plain `npm publish` of the tag (the prerelease guard must refuse it), and
// publish.yml's `npm run release:ci` with GITHUB_ACTIONS=true (publishes to the local registry; no provenance
// here). Prints what each step gave; exits 1 when one did not do what a release needs. It releases HEAD:
// commit first. Nothing of it is left behind (the clones and the registry are temporary).
//
//   npm run release:rehearse
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { runCommand } from '../tools/lib/cli.mjs';
import { rehearseRelease, releaseChecks } from '../tools/lib/release.mjs';
import { startRegistry } from '../tools/lib/registry.mjs';
import { PACKAGE, REPO } from '../tools/lib/repo.mjs';

const log = (msg) => process.stderr.write(`[release] ${msg}\n`);

export const REHEARSAL_COMMAND = {
	command: 'npm run release:rehearse',
	summary:
		'The release path offline, without n8n: a local registry (verdaccio, in the cache), then in temporary clones\n' +
		'of HEAD `npm run release -- patch --ci`, a plain `npm publish` of the tag (the prerelease guard must refuse\n' +
		"it) and publish.yml's `npm run release:ci` with GITHUB_ACTIONS=true. One line per step that a release\n" +
		'needs, and the seconds each took; exit 1 when one fell short. It releases HEAD: commit first.',
	options: {},
};

async function main() {
	const dirty = execFileSync('git', ['status', '--porcelain'], {
		cwd: REPO,
		encoding: 'utf8',
	}).trim();
	if (dirty) log(`the work tree has uncommitted changes: the rehearsal releases HEAD without them`);
	const registry = await startRegistry({ log });
	try {
		const released = await rehearseRelease({ repo: REPO, registry, log });
		const checks = releaseChecks(released, await registry.view(PACKAGE.name));
		for (const [what, ok, detail] of checks)
			console.log(`${ok ? 'ok  ' : 'FAIL'} ${what}: ${detail}`);
		console.log(
			`steps: ${Object.entries(released.steps)
				.map(([step, s]) => `${step} ${s.toFixed(1)} s`)
				.join(', ')}`,
		);
		const failed = checks.filter(([, ok]) => !ok);
		if (failed.length && released.published.code !== 0)
			console.log(released.published.out.slice(-3000));
		return failed.length ? 1 : 0;
	} finally {
		await registry.stop();
	}
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
	runCommand(REHEARSAL_COMMAND, main);
}
