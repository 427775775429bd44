// npm test leaves the work tree clean: the editor suite's screenshots go to a temp folder unless asked for
// (`npm run screenshots`, GS_EDITOR_SHOTS=update), never into the tracked docs/images/ by default.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { it } from 'node:test';

import { REPO, PACKAGE } from '../../tools/lib/repo.mjs';
import { DOCS_IMAGES, screenshotFolder } from '../../tools/lib/screenshots.mjs';

it('by default the screenshots go to a new folder outside the repo', () => {
	for (const env of [{}, { GS_EDITOR_SHOTS: '0' }, { GS_EDITOR_SHOTS: '1' }]) {
		const dir = screenshotFolder(env);
		try {
			assert.ok(dir.startsWith(os.tmpdir() + path.sep), dir);
			assert.ok(!path.relative(REPO, dir).match(/^[^.]/), `${dir} is inside the repo`);
			assert.deepEqual(fs.readdirSync(dir), []);
		} finally {
			// only what this test made (a broken screenshotFolder must not remove docs/images)
			if (dir.startsWith(os.tmpdir() + path.sep)) fs.rmSync(dir, { recursive: true, force: true });
		}
	}
});

it('`npm run screenshots` writes them into docs/images', () => {
	assert.equal(screenshotFolder({ GS_EDITOR_SHOTS: 'update' }), path.join(REPO, 'docs', 'images'));
	assert.equal(DOCS_IMAGES, path.join(REPO, 'docs', 'images'));
	assert.match(
		PACKAGE.scripts.screenshots,
		/GS_EDITOR_SHOTS=update .*test\/e2e\/editor\.test\.mjs/,
	);
	assert.doesNotMatch(PACKAGE.scripts['test:e2e'], /GS_EDITOR_SHOTS/);
});
