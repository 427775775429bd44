#!/usr/bin/env node
// Sets the version the docs pin (`n8n-nodes-generation-service@X.Y.Z`) to the one given: release-it's
// after:bump hook runs it with the new version (.release-it.json), so the release commit carries it.
//
//   node scripts/pin-version.mjs 0.3.1
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { repinFiles } from '../tools/lib/pinned-version.mjs';

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
	const [version] = process.argv.slice(2);
	try {
		const changed = repinFiles(version ?? '');
		console.log(
			changed.length
				? `pinned ${version} in ${changed.join(', ')}`
				: `no pin to change (${version})`,
		);
	} catch (error) {
		console.error(`${error.message}\nusage: node scripts/pin-version.mjs <version>`);
		process.exit(2);
	}
}
