// Proves the real-n8n harness end to end, on each host of GS_E2E_HOSTS (default "2"):
// - a workflow of n8n's own nodes (Manual Trigger -> Set with an expression -> Code) imported and executed
//   headless, with a credential imported first;
// - a community package installed from an `npm pack` tarball the way users get it (a fixture built on the
//   fly, so this does not depend on this repo's nodes), its node type `<package>.<node>` running in n8n;
// - this repo's own tarball (npm run build + npm pack) installed next to it without breaking n8n.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';

import { builtinSmokeWorkflow, checkSmokeOutput } from '../../tools/lib/smoke.mjs';
import {
	FIXTURE_PACKAGE,
	INSTALL_TIMEOUT_MS,
	PACKAGE,
	assertRunOk,
	e2eHosts,
	ensureHost,
	fixtureWorkflow,
	openInstance,
	outputOf,
	packFixturePackage,
	packOnce,
	runWorkflow,
} from './harness.mjs';

for (const version of e2eHosts()) {
	describe(`real n8n, host ${version}`, { timeout: INSTALL_TIMEOUT_MS + 5 * 60_000 }, () => {
		let inst;
		before(
			async () => {
				await ensureHost({ version }); // first run on a machine installs it (progress on stderr)
				inst = await openInstance({ version });
			},
			{ timeout: INSTALL_TIMEOUT_MS },
		);
		after(() => inst?.close());

		it('runs Manual Trigger -> Set (expression) -> Code headless', async (t) => {
			const res = await runWorkflow(inst, builtinSmokeWorkflow('gsE2eSmoke'), {
				credentials: [
					{
						id: 'gsE2eCred',
						name: 'e2e header auth',
						type: 'httpHeaderAuth',
						data: { name: 'X-E2e', value: 's3cret' },
					},
				],
			});
			assertRunOk(t, res);
			checkSmokeOutput(outputOf(res, 'Code'));
			assert.equal(res.result.data.resultData.lastNodeExecuted, 'Code');
		});

		it('runs a community package node installed from a tarball (peer n8n-workflow from n8n)', async (t) => {
			const info = await inst.installPackage(await packFixturePackage());
			assert.equal(info.name, FIXTURE_PACKAGE);
			assert.ok(
				!fs.existsSync(path.join(info.dir, 'node_modules')),
				'no devDependencies nor peer installed',
			);
			const res = await runWorkflow(inst, fixtureWorkflow('gsE2eFixture', 'hi'));
			assertRunOk(t, res);
			assert.deepEqual(outputOf(res, 'Echo'), [{ echo: 'hi', peerResolved: true }]);
		});

		it("installs this repo's packed tarball without breaking n8n", async (t) => {
			const info = await inst.installPackage(await packOnce());
			assert.equal(info.name, PACKAGE.name);
			assert.equal(info.dir, path.join(inst.nodesDir, 'node_modules', PACKAGE.name));
			assert.ok(fs.existsSync(path.join(info.dir, 'dist')), 'dist/ shipped');
			assert.ok(
				!fs.existsSync(path.join(info.dir, 'node_modules')),
				'no node_modules inside the package',
			);
			const res = await inst.execute('gsE2eSmoke');
			assertRunOk(t, res);
			checkSmokeOutput(outputOf(res, 'Code'));
			assert.doesNotMatch(
				res.stdout + res.stderr,
				new RegExp(`Failed to load package "${PACKAGE.name}"`),
			);
		});
	});
}
