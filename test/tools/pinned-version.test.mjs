// The version README (and CONTRIBUTING, docs/, docker/) pins for an install is package.json's, and a release
// keeps it so: release-it's after:bump hook rewrites the pins with the new version (scripts/pin-version.mjs).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';

import { pinningFiles, pinsOf, repin } from '../../tools/lib/pinned-version.mjs';
import { PACKAGE, REPO } from '../../tools/lib/repo.mjs';

const read = (f) => fs.readFileSync(path.join(REPO, f), 'utf8');

describe('the pinned install version', () => {
	it("README pins package.json's version, and so does every other doc that pins one", () => {
		assert.ok(pinsOf(read('README.md')).length >= 1, 'README pins no version');
		const wrong = pinningFiles().flatMap((f) =>
			pinsOf(read(f))
				.filter((p) => p.version !== PACKAGE.version)
				.map((p) => `${f}:${p.line}: ${p.version}`),
		);
		assert.deepEqual(wrong, [], `package.json is ${PACKAGE.version}`);
	});

	it('a pin typed apart from package.json is found (the check can fail)', () => {
		const planted = `${read('README.md')}\nnpm install ${PACKAGE.name}@0.0.1\n`;
		assert.deepEqual(
			pinsOf(planted)
				.map((p) => p.version)
				.filter((v) => v !== PACKAGE.version),
			['0.0.1'],
		);
	});

	it('a release rewrites the pins: after:bump runs scripts/pin-version.mjs with the new version', () => {
		const config = JSON.parse(read('.release-it.json'));
		assert.equal(config.hooks['after:bump'], 'node scripts/pin-version.mjs ${version}');
		// the script on a copy of the docs
		const copy = fs.mkdtempSync(path.join(os.tmpdir(), 'gs-pin-'));
		try {
			fs.mkdirSync(path.join(copy, 'scripts'));
			fs.cpSync(path.join(REPO, 'tools'), path.join(copy, 'tools'), { recursive: true });
			fs.copyFileSync(
				path.join(REPO, 'scripts', 'pin-version.mjs'),
				path.join(copy, 'scripts', 'pin-version.mjs'),
			);
			fs.copyFileSync(path.join(REPO, 'package.json'), path.join(copy, 'package.json'));
			fs.cpSync(path.join(REPO, 'docs'), path.join(copy, 'docs'), { recursive: true });
			fs.copyFileSync(path.join(REPO, 'README.md'), path.join(copy, 'README.md'));
			const r = spawnSync(process.execPath, ['scripts/pin-version.mjs', '9.8.7'], {
				cwd: copy,
				encoding: 'utf8',
			});
			assert.equal(r.status, 0, r.stderr);
			const readme = fs.readFileSync(path.join(copy, 'README.md'), 'utf8');
			assert.deepEqual([...new Set(pinsOf(readme).map((p) => p.version))], ['9.8.7']);
			assert.equal(readme, repin(read('README.md'), '9.8.7'));
		} finally {
			fs.rmSync(copy, { recursive: true, force: true });
		}
	});
});
