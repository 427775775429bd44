// package.json's `engines` says the Node the tooling needs (20.19 or newer) and .nvmrc picks one; the range
// ships in the published package.json, where n8n's npm reads it, so it must let every Node n8n runs on
// install the package: n8n 2.x on Node 24 (the host the suites run), n8n 1.x on Node 20.19+.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { it } from 'node:test';

import { NODE24 } from '../../tools/lib/hosts.mjs';
import { PACKAGE, REPO } from '../../tools/lib/repo.mjs';

const parts = (v) => v.replace(/^v/, '').split('.').map(Number);
/** Whether version `v` is at least `min` (both "major.minor[.patch]"). */
const atLeast = (v, min) => {
	const [a, b] = [parts(v), parts(min)];
	for (let i = 0; i < 3; i++) if ((a[i] ?? 0) !== (b[i] ?? 0)) return (a[i] ?? 0) > (b[i] ?? 0);
	return true;
};

it('engines: Node 20.19 or newer, which admits n8n 2.x on Node 24 and this Node', () => {
	const range = PACKAGE.engines?.node;
	assert.equal(range, '>=20.19');
	const min = range.slice(2);
	for (const v of ['20.19.0', '20.20.0', '22.12.0', NODE24.version, process.versions.node])
		assert.ok(atLeast(v, min), `${v} is below engines ${range}`);
	for (const v of ['18.20.0', '20.18.1'])
		assert.ok(!atLeast(v, min), `${v} should be below engines ${range}`);
});

it(".nvmrc names the engines' Node line (nvm takes its newest release, 20.19 or later)", () => {
	const nvmrc = fs.readFileSync(path.join(REPO, '.nvmrc'), 'utf8').trim();
	assert.match(nvmrc, /^\d+$/);
	assert.equal(nvmrc, String(parts(PACKAGE.engines.node.slice(2))[0]));
});
