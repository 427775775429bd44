// The package as users get it: `npm pack` contents against an allow-list, n8n's own scanner over the source and
// the tarball, and the polling trigger run through a manual execution in real n8n. (The AI-agent example runs
// end to end in agent.test.mjs.)
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, afterEach, before, describe, it } from 'node:test';

import { startServer } from '../../tools/lib/server.mjs';
import {
	outsideAllowList,
	tarballFiles,
	unpackTarball,
} from '../../tools/lib/package-contents.mjs';
import { SCANNER_PACKAGE, scanLeg, scannerVersion } from '../../tools/lib/scanner.mjs';
import { jobFinished, workflow } from '../../tools/lib/workflow.mjs';
import {
	INSTALL_TIMEOUT_MS,
	PACKAGE,
	REPO,
	e2eHosts,
	ensureHost,
	openInstance,
	packOnce,
	startEmulator,
} from './harness.mjs';

const work = fs.mkdtempSync(path.join(os.tmpdir(), 'gs-package-'));
after(() => fs.rmSync(work, { recursive: true, force: true }));

describe('npm pack contents', () => {
	it('ships only what n8n loads, README, LICENSE and package.json: an allow-list, and no key', async (t) => {
		const tarball = await packOnce();
		const list = tarballFiles(tarball);
		assert.deepEqual(outsideAllowList(list), [], 'files outside the allow-list');
		for (const needed of [
			'package.json',
			'README.md',
			'LICENSE.md',
			'dist/icons/generationService.svg',
			'dist/icons/generationService.dark.svg',
			...PACKAGE.n8n.credentials,
			...PACKAGE.n8n.nodes,
			...PACKAGE.n8n.nodes.map((f) => f.replace(/\.js$/, '.json')),
		]) {
			assert.ok(list.includes(needed), `missing ${needed}`);
		}
		const dir = unpackTarball(tarball, work);
		for (const file of list) {
			assert.doesNotMatch(
				fs.readFileSync(path.join(dir, file), 'utf8'),
				/svc_sk_key_[0-9a-f]{32}\.[0-9a-f]{64}/,
				file,
			);
		}
		assert.deepEqual(PACKAGE.dependencies ?? {}, {});
		const kB = (fs.statSync(tarball).size / 1000).toFixed(1);
		t.diagnostic(`${path.basename(tarball)}: ${list.length} files, ${kB} kB packed`);
		t.diagnostic(list.join(' '));
	});
});

describe(`n8n's scanner (${SCANNER_PACKAGE} ${scannerVersion()}), offline legs`, () => {
	// What the scanner's CLI does after its provenance and download steps (tools/lib/scanner.mjs): lint the
	// attested source and the published tarball with n8n's community rules. Provenance itself needs GitHub's
	// OIDC and the public registry: checked only when publish.yml runs.
	let tarballDir;
	before(async () => {
		tarballDir = unpackTarball(await packOnce(), work);
	});

	it('the source passes (its package.json, nodes/ and credentials/)', async (t) => {
		const result = await scanLeg(REPO, 'source');
		assert.equal(result.passed, true, `${result.message}\n${result.details}`);
		t.diagnostic(`source leg ${JSON.stringify(result.patterns)}: passed`);
	});

	it('the packed tarball passes', async (t) => {
		const result = await scanLeg(tarballDir, 'tarball');
		assert.equal(result.passed, true, `${result.message}\n${result.details}`);
		t.diagnostic(`tarball leg ${JSON.stringify(result.patterns)}: passed`);
	});

	it('fails a copy with a forbidden import planted, in either leg', async () => {
		const source = fs.mkdtempSync(path.join(work, 'planted-source-'));
		for (const entry of ['package.json', 'nodes', 'credentials', 'icons'])
			fs.cpSync(path.join(REPO, entry), path.join(source, entry), { recursive: true });
		fs.appendFileSync(
			path.join(source, 'nodes', 'shared', 'constants.ts'),
			"\nimport { readFileSync } from 'fs';\nexport const planted = readFileSync;\n",
		);
		const bad = await scanLeg(source, 'source');
		assert.equal(bad.passed, false, 'the source leg passed a planted fs import');
		assert.match(bad.details, /constants\.ts[\s\S]*Import of 'fs' is not allowed/);

		const tarball = fs.mkdtempSync(path.join(work, 'planted-tarball-'));
		fs.cpSync(tarballDir, tarball, { recursive: true });
		fs.appendFileSync(
			path.join(tarball, 'dist', 'nodes', 'shared', 'constants.js'),
			"\nconst planted = require('child_process');\nexports.planted = planted;\n",
		);
		const badTarball = await scanLeg(tarball, 'tarball');
		assert.equal(badTarball.passed, false, 'the tarball leg passed a planted child_process');
		assert.match(badTarball.details, /constants\.js[\s\S]*child_process/);
	});
});

for (const version of e2eHosts()) {
	describe(
		`package in real n8n, host ${version}`,
		{ timeout: INSTALL_TIMEOUT_MS + 10 * 60_000 },
		() => {
			let inst;
			let emu;
			before(
				async () => {
					await ensureHost({ version });
					inst = await openInstance({ version });
					await inst.installPackage(await packOnce());
					emu = await startEmulator({ jobTiming: { queuedMs: 0, runningMs: 0 } });
					await inst.importCredentials([
						{
							id: 'gsEmulatorCred',
							name: 'Generation Service (local emulator)',
							type: 'generationServiceApi',
							data: { apiKey: emu.keys.full, baseUrl: emu.baseUrl },
						},
					]);
				},
				{ timeout: INSTALL_TIMEOUT_MS },
			);
			afterEach(() => emu?.assertNoViolations());
			after(async () => {
				await emu?.close();
				await inst?.close();
			});

			it('the Job Finished trigger returns the latest finished job in a manual execution', async (t) => {
				const create = await fetch(`${emu.baseUrl}/jobs`, {
					method: 'POST',
					headers: {
						Authorization: `Bearer ${emu.keys.full}`,
						'Content-Type': 'application/json',
						'Idempotency-Key': `e2e-trigger-${version}-000000000000`,
					},
					body: JSON.stringify({
						mode: 'text_to_video',
						prompt: 'a trigger sample',
						durationSeconds: 5,
					}),
				});
				const job = (await create.json()).data;
				const wf = workflow({
					id: `gsTrigger${version}`,
					name: 'Job Finished (manual)',
					nodes: [
						jobFinished(
							'Job Finished',
							{ jobState: 'both', jobOptions: { downloadOutput: true } },
							{
								id: 'trigger',
								credential: { id: 'gsEmulatorCred', name: 'Generation Service (local emulator)' },
							},
						),
					],
				});
				await inst.importWorkflow(wf);
				// `n8n execute` starts only from a manual trigger: run it as the editor's "Fetch test event"
				// does (a manual execution from the trigger, through n8n's REST API on a started n8n).
				const server = await startServer(inst);
				try {
					const execution = await server.rest.runFromTrigger(wf.id, 'Job Finished');
					assert.equal(
						execution.status,
						'success',
						JSON.stringify(execution.data?.resultData?.error ?? {}),
					);
					assert.ok(
						execution.data?.resultData,
						`no run data: ${JSON.stringify(execution).slice(0, 1500)}`,
					);
					const [item] = execution.data.resultData.runData['Job Finished'][0].data.main[0];
					assert.equal(item.json.id, job.id);
					assert.equal(item.json.state, 'succeeded');
					assert.equal(item.binary?.data?.mimeType, 'video/mp4');
				} finally {
					await server.stop();
				}
				t.diagnostic('trigger run manually through POST /rest/workflows/:id/run');
			});
		},
	);
}
