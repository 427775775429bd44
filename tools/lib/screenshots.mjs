// Where the editor suite writes the screenshots README and docs/nodes.md show. `npm test` must leave the work
// tree clean (release-it, which `npm run release` runs, wants a clean tree), so by default they go to a new
// temporary folder; `npm run screenshots` (GS_EDITOR_SHOTS=update) writes them into docs/images/ to commit.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { runAttached } from './process.mjs';
import { REPO } from './repo.mjs';

/** The tracked folder of the docs' images. */
export const DOCS_IMAGES = path.join(REPO, 'docs', 'images');

/** The folder to write screenshots into: docs/images with GS_EDITOR_SHOTS=update, else a new temp folder. */
export function screenshotFolder(env = process.env) {
	if (env.GS_EDITOR_SHOTS === 'update') return DOCS_IMAGES;
	return fs.mkdtempSync(path.join(os.tmpdir(), 'gs-e2e-shots-'));
}

/** What `npm run screenshots` runs: the editor suite alone on n8n 2.x, writing into docs/images. */
export const SCREENSHOTS_RUN = {
	args: ['--import', 'tsx', '--test', path.join('test', 'e2e', 'editor.test.mjs')],
	env: { GS_EDITOR_SHOTS: 'update', GS_E2E_HOSTS: '2' },
};

/** `npm run screenshots`: SCREENSHOTS_RUN in this process group; its exit code. */
export const updateScreenshots = () =>
	runAttached(process.execPath, SCREENSHOTS_RUN.args, {
		cwd: REPO,
		env: { ...process.env, ...SCREENSHOTS_RUN.env },
	});
