// The package as users get it: `npm pack` contents, and the polling trigger run through a manual execution
// in real n8n. (The AI-agent example runs end to end in agent.test.mjs.)
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, afterEach, before, describe, it } from 'node:test';

import { ownerSession, runManuallyFromTrigger, startServer } from '../../scripts/n8n-host.mjs';
import {
	INSTALL_TIMEOUT_MS,
	PACKAGE,
	e2eHosts,
	ensureHost,
	openInstance,
	packOnce,
	startEmulator,
} from './harness.mjs';

describe('npm pack contents', () => {
	it('ships only dist, README, LICENSE and package.json: no tests, emulator, examples, maps or keys', async () => {
		const tarball = await packOnce();
		const list = execFileSync('tar', ['-tzf', tarball], { encoding: 'utf8' })
			.trim()
			.split('\n')
			.map((f) => f.replace(/^package\//, ''));
		for (const file of list) {
			assert.ok(
				/^(dist\/|README\.md$|LICENSE\.md$|package\.json$)/.test(file),
				`unexpected file in the package: ${file}`,
			);
			assert.doesNotMatch(file, /\.map$|\.tsbuildinfo$|test|emulator|examples|fixtures/);
		}
		for (const needed of [
			'dist/credentials/GenerationServiceApi.credentials.js',
			'dist/icons/generationService.svg',
			'dist/icons/generationService.dark.svg',
			...PACKAGE.n8n.nodes,
		]) {
			assert.ok(list.includes(needed), `missing ${needed}`);
		}
		const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gs-pack-'));
		execFileSync('tar', ['-xzf', tarball, '-C', dir]);
		const walk = (d) =>
			fs
				.readdirSync(d, { withFileTypes: true })
				.flatMap((e) => (e.isDirectory() ? walk(path.join(d, e.name)) : [path.join(d, e.name)]));
		for (const file of walk(dir)) {
			assert.doesNotMatch(
				fs.readFileSync(file, 'utf8'),
				/svc_sk_key_[0-9a-f]{32}\.[0-9a-f]{64}/,
				file,
			);
		}
		fs.rmSync(dir, { recursive: true, force: true });
		assert.deepEqual(PACKAGE.dependencies ?? {}, {});
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
				const wf = {
					id: `gsTrigger${version}`,
					name: 'Job Finished (manual)',
					active: false,
					nodes: [
						{
							id: 'trigger',
							name: 'Job Finished',
							type: `${PACKAGE.name}.generationServiceTrigger`,
							typeVersion: 1,
							position: [0, 0],
							parameters: {
								event: 'jobFinished',
								jobState: 'both',
								options: { downloadOutput: true },
							},
							credentials: {
								generationServiceApi: {
									id: 'gsEmulatorCred',
									name: 'Generation Service (local emulator)',
								},
							},
						},
					],
					connections: {},
					settings: { executionOrder: 'v1' },
					pinData: {},
				};
				await inst.importWorkflow(wf);
				// `n8n execute` starts only from a manual trigger: run it as the editor's "Fetch test event"
				// does (a manual execution from the trigger, through n8n's REST API on a started n8n).
				const server = await startServer(inst);
				try {
					const cookie = await ownerSession(server.base);
					const execution = await runManuallyFromTrigger(
						inst,
						server.base,
						cookie,
						wf.id,
						'Job Finished',
					);
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
