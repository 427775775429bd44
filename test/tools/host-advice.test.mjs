// CONTRIBUTING.md's "What npm test needs" says what `node scripts/queue-host.mjs check` says: the same lines.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { it } from 'node:test';
import { fileURLToPath } from 'node:url';

import { HOST_ADVICE } from '../../tools/lib/host-advice.mjs';

const CONTRIBUTING = fs.readFileSync(
	path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'CONTRIBUTING.md'),
	'utf8',
);

it('CONTRIBUTING.md lists every line of the host advice, as `queue-host.mjs check` prints it', () => {
	const flat = CONTRIBUTING.replace(/\n  /g, ' ');
	for (const [kind, line] of Object.entries(HOST_ADVICE))
		assert.ok(flat.includes(`- ${line}`), `CONTRIBUTING.md lacks the ${kind} line: ${line}`);
});
