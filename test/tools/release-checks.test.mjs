// `npm run release:rehearse` judges a rehearsal with releaseChecks (tools/lib/release.mjs): a release that did
// everything passes; each way a step can fall short fails its own row.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';

import { releaseChecks } from '../../tools/lib/release.mjs';
import { PACKAGE, REPO } from '../../tools/lib/repo.mjs';

const good = () => ({
	previousVersion: '0.3.0',
	version: '0.3.1',
	tag: '0.3.1',
	changelog: '## [Unreleased]\n\n## [0.3.1] - 2026-11-26\n',
	readme: `npm install ${PACKAGE.name}@0.3.1\n`,
	refusal: { code: 1, out: '', registryVersions: [] },
	published: { code: 0, out: '' },
});
const registryDoc = { versions: { '0.3.1': {} } };
const failing = (released, doc = registryDoc) =>
	releaseChecks(released, doc)
		.filter(([, ok]) => !ok)
		.map(([what]) => what);

describe('the release rehearsal command', () => {
	it('npm run release:rehearse runs scripts/release-rehearsal.mjs', () => {
		assert.match(PACKAGE.scripts['release:rehearse'], /scripts\/release-rehearsal\.mjs$/);
		assert.ok(fs.existsSync(path.join(REPO, 'scripts', 'release-rehearsal.mjs')));
	});

	it('passes a release that did every step', () => {
		assert.deepEqual(failing(good()), []);
	});

	it('fails each step that fell short, on its own row', () => {
		const cases = [
			[{ previousVersion: '0.2.0' }, 'npm run release: the next patch version'],
			[{ tag: '' }, 'npm run release: the tag'],
			[{ changelog: '## [Unreleased]\n' }, 'npm run release: CHANGELOG dated'],
			[
				{ readme: `npm install ${PACKAGE.name}@0.3.0\n` },
				'npm run release: README pins the new version',
			],
			[
				{ refusal: { code: 0, out: '', registryVersions: [] } },
				'plain npm publish: refused, the registry without it',
			],
			[
				{ refusal: { code: 1, out: '', registryVersions: ['0.3.1'] } },
				'plain npm publish: refused, the registry without it',
			],
			[{ published: { code: 1, out: '' } }, 'npm run release:ci (GitHub mode): published'],
		];
		for (const [change, row] of cases) assert.deepEqual(failing({ ...good(), ...change }), [row]);
		assert.deepEqual(failing(good(), { versions: {} }), [
			'npm run release:ci (GitHub mode): published',
		]);
	});
});
