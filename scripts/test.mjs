#!/usr/bin/env node
// `npm test` (every step), `npm run test:tools` and `npm run test:e2e` (one step each): the steps of
// tools/lib/test-run.mjs in order, stopping at the first that fails. Before the real-n8n suites it prints what
// they install on this machine (n8n into ~/.cache, redis-server and chromium with apt-get as root) and what of it
// is here already.
//
//   npm test                       lint, build, typecheck, unit, tools, e2e
//   npm run test:e2e               e2e only (node scripts/test.mjs e2e)
//   npm test -- --help             the steps
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { UsageError, runCommand } from '../tools/lib/cli.mjs';
import { TEST_STEPS, runTestSteps } from '../tools/lib/test-run.mjs';

export const TEST_COMMAND = {
	command: 'npm test',
	summary:
		'Lint, build and every suite, real n8n end to end included: the steps below in order, stopping at the\n' +
		'first that fails. `npm run test:tools` and `npm run test:e2e` run one step. Before the real-n8n suites\n' +
		'it prints what they install on this machine: n8n 2.41.1 (with Node 24) and 1.123.81 into\n' +
		'~/.cache/n8n-nodes-generation-service (about 4.6 GB), verdaccio there too, and as root on\n' +
		'Debian/Ubuntu redis-server and chromium with apt-get.',
	args: [
		{
			name: 'steps',
			help: `some of ${Object.keys(TEST_STEPS).join(', ')} (default all, in this order)`,
		},
	],
	extraArgs: true,
	options: {},
	notes: [
		...Object.entries(TEST_STEPS).map(([name, step]) => `  ${name.padEnd(10)} ${step.help}`),
		'',
		'environment: GS_E2E_HOSTS=2 runs the real-n8n suites on n8n 2.41.1 only',
	],
};

async function main({ positionals }) {
	const unknown = positionals.filter((s) => !TEST_STEPS[s]);
	if (unknown.length)
		throw new UsageError(
			`unknown step ${unknown.join(', ')} (the steps: ${Object.keys(TEST_STEPS).join(', ')})`,
		);
	const steps = positionals.length
		? Object.keys(TEST_STEPS).filter((s) => positionals.includes(s))
		: Object.keys(TEST_STEPS);
	return runTestSteps(steps);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
	runCommand(TEST_COMMAND, main);
}
