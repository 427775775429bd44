// npm test leaves the work tree clean: the editor suite's screenshots go to a temp folder unless asked for
// (`npm run screenshots`, GS_EDITOR_SHOTS=update), never into the tracked docs/images/ by default.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { it } from 'node:test';

import { REPO, PACKAGE } from '../../tools/lib/repo.mjs';
import { DOCS_IMAGES, SCREENSHOTS_RUN, screenshotFolder } from '../../tools/lib/screenshots.mjs';
import { TEST_STEPS } from '../../tools/lib/test-run.mjs';

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
	assert.equal(PACKAGE.scripts.screenshots, 'node scripts/screenshots.mjs');
	assert.equal(SCREENSHOTS_RUN.env.GS_EDITOR_SHOTS, 'update');
	assert.equal(SCREENSHOTS_RUN.args.at(-1), path.join('test', 'e2e', 'editor.test.mjs'));
	// npm test's real-n8n step leaves them in a temp folder
	assert.equal(PACKAGE.scripts['test:e2e'], 'node scripts/test.mjs e2e');
	assert.equal(TEST_STEPS.e2e.env().GS_EDITOR_SHOTS, undefined);
});
