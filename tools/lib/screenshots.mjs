// Where the editor suite writes the screenshots README and docs/nodes.md show. `npm test` must leave the work
// tree clean (release-it, which `npm run release` runs, wants a clean tree), so by default they go to a new
// temporary folder; `npm run screenshots` (GS_EDITOR_SHOTS=update) writes them into docs/images/ to commit.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { REPO } from './repo.mjs';

/** The tracked folder of the docs' images. */
export const DOCS_IMAGES = path.join(REPO, 'docs', 'images');

/** The folder to write screenshots into: docs/images with GS_EDITOR_SHOTS=update, else a new temp folder. */
export function screenshotFolder(env = process.env) {
	if (env.GS_EDITOR_SHOTS === 'update') return DOCS_IMAGES;
	return fs.mkdtempSync(path.join(os.tmpdir(), 'gs-e2e-shots-'));
}
