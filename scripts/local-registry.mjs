#!/usr/bin/env node
// The local npm registry of the Community Nodes suite and the release rehearsal (tools/lib/registry.mjs):
//
//   node scripts/local-registry.mjs install    install verdaccio into the cache (CI does it in the background)
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { runCommand } from '../tools/lib/cli.mjs';
import { VERDACCIO_VERSION, ensureRegistryTools } from '../tools/lib/registry.mjs';

export const LOCAL_REGISTRY_COMMAND = {
	command: 'node scripts/local-registry.mjs',
	summary:
		'The local npm registry (verdaccio) of the Community Nodes suite and the release rehearsal, in the cache.',
	args: [
		{
			name: 'command',
			required: true,
			choices: { install: `install verdaccio ${VERDACCIO_VERSION} into the cache` },
		},
	],
	options: {},
};

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
	runCommand(LOCAL_REGISTRY_COMMAND, async () => {
		const t = await ensureRegistryTools();
		console.log(`verdaccio ${VERDACCIO_VERSION} in ${t.dir}`);
		return 0;
	});
}
