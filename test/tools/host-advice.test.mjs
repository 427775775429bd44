// CONTRIBUTING.md's "What npm test needs" says what `node scripts/queue-host.mjs check` says: the same lines;
// npm test says what it installs before it starts, and README says it beside the command.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { it } from 'node:test';
import { fileURLToPath } from 'node:url';

import { APT_PACKAGES, HOST_ADVICE } from '../../tools/lib/host-advice.mjs';
import { installNotice, machineInstalls } from '../../tools/lib/test-run.mjs';

const CONTRIBUTING = fs.readFileSync(
	path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'CONTRIBUTING.md'),
	'utf8',
);

it('CONTRIBUTING.md lists every line of the host advice, as `queue-host.mjs check` prints it', () => {
	const flat = CONTRIBUTING.replace(/\n  /g, ' ');
	for (const [kind, line] of Object.entries(HOST_ADVICE))
		assert.ok(flat.includes(`- ${line}`), `CONTRIBUTING.md lacks the ${kind} line: ${line}`);
});

it('npm test says first what it installs on the machine, and README says it beside the command', () => {
	const none = installNotice(
		machineInstalls({ hosts: ['2', '1'], redis: false, browser: false, entry: () => false }),
	);
	assert.match(none, /^Before the real-n8n suites, npm test installs what this machine lacks/);
	for (const what of ['n8n 2.41.1', 'n8n 1.123.81', 'verdaccio', ...APT_PACKAGES])
		assert.match(none, new RegExp(`installs +[^\\n]*${what}`), `${what} in:\n${none}`);
	assert.match(none, /apt-get, only when run as root/);
	const all = installNotice(
		machineInstalls({ hosts: ['2'], redis: true, browser: true, entry: () => true }),
	);
	assert.match(all, /^The real-n8n suites need nothing more on this machine/);
	assert.doesNotMatch(all, /^ {2}installs/m);
	// README, near `npm test`, before anyone runs it
	const readme = fs.readFileSync(
		path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'README.md'),
		'utf8',
	);
	const near = readme.slice(readme.indexOf('npm test  '), readme.indexOf('## Installation'));
	for (const what of ['~/.cache/n8n-nodes-generation-service', 'apt-get', ...APT_PACKAGES])
		assert.ok(near.includes(what), `README does not say beside npm test that it installs ${what}`);
});
