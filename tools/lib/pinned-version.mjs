// The package's version where the docs pin it (`npm install n8n-nodes-generation-service@0.3.0` in README's
// Docker install): the same as package.json's. `npm run release` keeps them equal: release-it's after:bump
// hook (.release-it.json) runs scripts/pin-version.mjs with the new version, and the release commit takes the
// rewritten files; test/tools/pinned-version.test.mjs checks them on every test run.
import fs from 'node:fs';
import path from 'node:path';

import { PACKAGE, REPO } from './repo.mjs';

const PIN = new RegExp(
	`\\b${PACKAGE.name.replace(/[-.]/g, '\\$&')}@(\\d+\\.\\d+\\.\\d+(?:-[0-9A-Za-z.-]+)?)`,
	'g',
);

/** The files that may pin the version: README, CONTRIBUTING, docs/*.md and docker/* when present. */
export function pinningFiles(repo = REPO) {
	const under = (dir, keep) =>
		fs.existsSync(path.join(repo, dir))
			? fs
					.readdirSync(path.join(repo, dir), { withFileTypes: true })
					.filter((e) => e.isFile() && keep(e.name))
					.map((e) => `${dir}/${e.name}`)
			: [];
	return [
		'README.md',
		'CONTRIBUTING.md',
		...under('docs', (n) => n.endsWith('.md')),
		...under('docker', () => true),
	].filter((f) => fs.existsSync(path.join(repo, f)));
}

/** The versions a text pins: [{ line, version }]. */
export function pinsOf(text) {
	return text
		.split('\n')
		.flatMap((l, i) => [...l.matchAll(PIN)].map((m) => ({ line: i + 1, version: m[1] })));
}

/** The text with every pin set to `version`. */
export function repin(text, version) {
	return text.replace(PIN, `${PACKAGE.name}@${version}`);
}

/** Rewrites the pins of every pinning file to `version`; returns the files it changed. */
export function repinFiles(version, repo = REPO) {
	if (!/^\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?$/.test(version))
		throw new Error(`not a version: ${version}`);
	return pinningFiles(repo).filter((f) => {
		const file = path.join(repo, f);
		const text = fs.readFileSync(file, 'utf8');
		const next = repin(text, version);
		if (next === text) return false;
		fs.writeFileSync(file, next);
		return true;
	});
}
