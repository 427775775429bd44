#!/usr/bin/env node
// The local npm registry of the Community Nodes suite and the release rehearsal (tools/lib/registry.mjs):
//
//   node scripts/local-registry.mjs install    install verdaccio into the cache (CI does it in the background)
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { VERDACCIO_VERSION, ensureRegistryTools } from '../tools/lib/registry.mjs';

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
	const [cmd] = process.argv.slice(2);
	if (cmd === 'install') {
		ensureRegistryTools().then(
			(t) => {
				console.log(`verdaccio ${VERDACCIO_VERSION} in ${t.dir}`);
				process.exit(0);
			},
			(e) => {
				console.error(e?.stack ?? e);
				process.exit(1);
			},
		);
	} else {
		console.log('usage: node scripts/local-registry.mjs install');
		process.exit(cmd ? 2 : 0);
	}
}
