#!/usr/bin/env node
// `npm run screenshots`: the editor suite (test/e2e/editor.test.mjs) alone on n8n 2.x, writing the screenshots
// README and docs/nodes.md show into docs/images/ (tools/lib/screenshots.mjs); commit them when a form or the
// canvas changed.
import { runCommand } from '../tools/lib/cli.mjs';
import { DOCS_IMAGES, updateScreenshots } from '../tools/lib/screenshots.mjs';

export const SCREENSHOTS_COMMAND = {
	command: 'npm run screenshots',
	summary:
		'Runs the editor suite (test/e2e/editor.test.mjs: n8n 2.41.1 in headless Chromium) and writes the\n' +
		`screenshots README and docs/nodes.md show into ${DOCS_IMAGES}. npm test takes them into a temp folder.`,
	options: {},
};

runCommand(SCREENSHOTS_COMMAND, updateScreenshots);
