#!/usr/bin/env node
// Sets the version the docs pin (`n8n-nodes-generation-service@X.Y.Z`) to the one given: release-it's
// after:bump hook runs it with the new version (.release-it.json), so the release commit carries it.
//
//   node scripts/pin-version.mjs 0.3.1
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { UsageError, runCommand } from '../tools/lib/cli.mjs';
import { repinFiles } from '../tools/lib/pinned-version.mjs';

export const PIN_VERSION_COMMAND = {
	command: 'node scripts/pin-version.mjs',
	summary:
		'Sets the version the docs pin (n8n-nodes-generation-service@X.Y.Z) to <version>: release-it runs it\n' +
		'after the bump, so the release commit carries it.',
	args: [{ name: 'version', required: true, help: 'the new version, e.g. 0.3.1' }],
	options: {},
};

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
	runCommand(PIN_VERSION_COMMAND, ({ args: { version } }) => {
		let changed;
		try {
			changed = repinFiles(version);
		} catch (error) {
			throw new UsageError(error.message);
		}
		console.log(
			changed.length
				? `pinned ${version} in ${changed.join(', ')}`
				: `no pin to change (${version})`,
		);
		return 0;
	});
}
