// examples/many-long-jobs.json as shipped, in real n8n 2.x: a webhook call creates a job, answers at once
// with its id and Create's estimatedReadyAt, parks the execution in n8n's Wait node until that time, then
// Wait for Job streams the MP4 to disk. The estimate comes from the jobs of the same mode and duration this
// n8n process saw finish: a first run of the same kind teaches it, so the Wait node here resumes after a few
// seconds (in-process). Waits of 65 s and more park in n8n's database and free the worker slot: the bench's
// queue-mode part measures that with long jobs (docs/benchmarks.md).
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';

import { trackDir } from '../../tools/lib/exit.mjs';
import { preparedExample } from '../../tools/lib/repo.mjs';
import { callWebhook, jsonBody } from '../../tools/lib/rest.mjs';
import { startServer } from '../../tools/lib/server.mjs';
import { createJob, manualTrigger, workflow } from '../../tools/lib/workflow.mjs';
import {
	INSTALL_TIMEOUT_MS,
	e2eHosts,
	ensureHost,
	openInstance,
	packOnce,
	startEmulator,
} from './harness.mjs';

const log = (msg) => process.stderr.write(`[parking] ${msg}\n`);
const CREDENTIAL = { id: 'gsEmulatorCred', name: 'Generation Service (local emulator)' };

/** Manual Trigger → Create text to video (5 s) with Wait for Completion: a job of the example's kind. */
const warmUpWorkflow = (prompt) =>
	workflow({
		id: 'gsParkingWarmUp',
		name: 'Parking warm-up',
		ids: 'c1d2e3f4',
		nodes: [
			manualTrigger(),
			createJob(
				'Create and Wait',
				{
					mode: 'text_to_video',
					prompt,
					durationSeconds: 5,
					options: { waitForCompletion: true, downloadOutput: false },
				},
				{ credential: CREDENTIAL, typeVersion: 1.1 },
			),
		],
	});

describe(
	'parking long jobs: examples/many-long-jobs.json in real n8n 2.x',
	{
		skip: !e2eHosts().includes('2') && 'runs on n8n 2.x',
		timeout: INSTALL_TIMEOUT_MS + 10 * 60_000,
	},
	() => {
		let emu;
		let inst;
		let server;
		let outputDir;

		before(
			async () => {
				await ensureHost({ version: '2' });
				outputDir = fs.mkdtempSync(path.join(os.tmpdir(), 'gs-e2e-parking-'));
				trackDir(outputDir);
				emu = await startEmulator({ jobTiming: { queuedMs: 500, runningMs: 3000 } });
				inst = await openInstance({ version: '2', fileAccessDir: outputDir });
				await inst.installPackage(await packOnce());
				await inst.importCredentials([
					{
						...CREDENTIAL,
						type: 'generationServiceApi',
						data: { apiKey: emu.keys.full, baseUrl: emu.baseUrl },
					},
				]);
				const example = preparedExample('many-long-jobs.json', { outputDir });
				await inst.importWorkflow([example, warmUpWorkflow('warm-up: a lantern in the fog')]);
				const published = await inst.n8n(['publish:workflow', `--id=${example.id}`]);
				assert.equal(published.code, 0, published.stdout + published.stderr);
				server = await startServer(inst, { log });
				await server.rest.waitForWebhook('gs-long-jobs', 'POST');
			},
			{ timeout: INSTALL_TIMEOUT_MS },
		);

		after(async () => {
			await server?.stop();
			await inst?.close();
			await emu?.close(); // the referee: fails unless it saw no client mistake
		});

		it('answers with the job and its estimate, parks, resumes near it and writes the MP4', async (t) => {
			// the n8n process learns how long a 5 s text-to-video job takes on this account
			const warm = await server.rest.runFromTrigger('gsParkingWarmUp', 'Manual');
			assert.equal(warm.status, 'success', JSON.stringify(warm.data?.resultData?.error ?? {}));

			const call = await callWebhook(
				server.base,
				'gs-long-jobs',
				jsonBody({ prompt: 'a kite over the dunes (parking example)', durationSeconds: 5 }),
			);
			assert.equal(call.status, 200, call.body.toString());
			const answer = JSON.parse(call.body.toString());
			assert.match(answer.jobId, /^job_[0-9a-f]{32}$/);
			const job = () => emu.control.jobs().find((j) => j.id === answer.jobId);
			const estimateMs = Date.parse(answer.estimatedReadyAt) - job().createdAt;
			t.diagnostic(
				`estimate ${estimateMs} ms after the job's creation (the default would be 120 s)`,
			);
			assert.ok(estimateMs > 0 && estimateMs < 60_000, `estimate ${estimateMs} ms`);

			// the execution resumes after the Wait node and writes the MP4
			const file = path.join(outputDir, `${answer.jobId}.mp4`);
			const done = await server.rest.waitForExecutions(
				'gsManyLongJobs',
				(list) => list.find((e) => ['success', 'error', 'crashed'].includes(e.status)),
				{ timeoutMs: 120_000 },
			);
			assert.equal(done.status, 'success', JSON.stringify(done));
			const execution = await server.rest.execution(done.id);
			const ran = Object.keys(execution.data.resultData.runData);
			for (const node of [
				'Create',
				'Answer With the Job',
				'Park Until the Estimate',
				'Wait for Job',
				'Write MP4',
			])
				assert.ok(ran.includes(node), `${node} did not run: ${ran.join(', ')}`);
			const bytes = fs.readFileSync(file);
			assert.equal(createHash('sha256').update(bytes).digest('hex'), job().output.sha256);
			assert.equal(
				emu.control
					.jobs()
					.filter((j) => j.input.prompt === 'a kite over the dunes (parking example)').length,
				1,
			);
			assert.ok(emu.control.ledger().invariantHolds);
		});
	},
);
