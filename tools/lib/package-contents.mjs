// What the published tarball may hold, and reading a tarball: shared by the tarball test
// (test/e2e/package.test.mjs) and the release rehearsal (what the registry got).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

/**
 * What n8n loads (the compiled nodes and credential, the nodes' codex JSON, the icons), README, LICENSE and
 * package.json. No `.d.ts` (n8n loads none, and nothing imports this package's types), no source maps, no
 * `dist/package.json`, tests, emulator, examples or docs.
 */
export const TARBALL_ALLOWED = [
	/^package\.json$/,
	/^README\.md$/,
	/^LICENSE\.md$/,
	/^dist\/credentials\/[A-Za-z]+\.credentials\.js$/,
	/^dist\/icons\/[A-Za-z.]+\.svg$/,
	/^dist\/nodes\/[A-Za-z]+\/[A-Za-z]+\.node\.json$/,
	/^dist\/nodes\/([A-Za-z]+\/)+[A-Za-z.]+\.js$/,
];

/** Files of `list` outside the allow-list. */
export function outsideAllowList(list) {
	return list.filter((file) => !TARBALL_ALLOWED.some((re) => re.test(file)));
}

/** Unpacks a tarball (npm pack's `package/` prefix stripped) into a new folder under `parent`. */
export function unpackTarball(tarball, parent) {
	const dir = fs.mkdtempSync(path.join(parent, 'tarball-'));
	tar(['-xzf', tarball, '-C', dir, '--strip-components=1']);
	return dir;
}

/** The files of a tarball, without npm's `package/` prefix, sorted. */
export function tarballFiles(tarball) {
	return tar(['-tzf', tarball])
		.trim()
		.split('\n')
		.map((f) => f.replace(/^package\//, ''))
		.filter((f) => f && !f.endsWith('/'))
		.sort();
}

function tar(args) {
	const r = spawnSync('tar', args, { encoding: 'utf8' });
	if (r.status !== 0) throw new Error(`tar ${args.join(' ')}: ${r.stderr}`);
	return r.stdout;
}
