// An AI agent that really calls our tools, in real n8n 2.x: examples/ai-agent-job-tools.json run end to end
// with a scripted OpenAI-compatible model (test/e2e/model-server.mjs) behind n8n's OpenAI credential, our
// nodes against the emulator. Once per endpoint of n8n's OpenAI Chat Model: version 1.3 (the current one)
// calls the Responses API (/responses), version 1.2 calls /chat/completions. One n8n user folder, one
// emulator and one model server serve both runs.
//
// The script: Create Video with a 10 s duration (refused: 16 credits, above the example's Max Credits 8) →
// Create Video with 5 s (a job) → Get Job with the id the model read in Create's answer → Get Balance →
// a final answer. Asserted from the model server's own record, i.e. what the model received: the tool
// schemas (every $fromAI parameter), the refusal as a message that stands alone (numbers, what to do), the
// job id and state in compact JSON, no base64, no binary and no API key anywhere in what the model got.
// n8n 1.x has no Agent 3.1: the suite runs on hosts 2.x only.
import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';

import {
	INSTALL_TIMEOUT_MS,
	e2eHosts,
	ensureHost,
	loadExample,
	openInstance,
	outputOf,
	packOnce,
	startEmulator,
} from './harness.mjs';
import { startModelServer } from './model-server.mjs';

const EXAMPLE = 'ai-agent-job-tools.json';
const PROMPT = 'a paper boat sailing down a rainy street';
const ENDPOINTS = [
	{ endpoint: 'responses', chatModelVersion: 1.3, id: 'gsAgentResponses' },
	{ endpoint: 'chat', chatModelVersion: 1.2, id: 'gsAgentChat' },
];

/** The parsed tool result the model received last (n8n sends a tool's output items as a JSON array). */
const lastResult = (req) => JSON.parse(req.toolResults.at(-1).output);

/** The model's script for one run (see the top of the file). */
function script() {
	return [
		{ tool: 'Create_Video', arguments: { prompt: PROMPT, durationSeconds: 10 } },
		{ tool: 'Create_Video', arguments: { prompt: PROMPT, durationSeconds: 5 } },
		(req) => ({ tool: 'Get_Job', arguments: { jobId: lastResult(req)[0].id } }),
		{ tool: 'Get_Balance', arguments: {} },
		(req) => {
			const [job] = JSON.parse(req.toolResults.at(-2).output);
			const [balance] = lastResult(req);
			return {
				text: `Job ${job.id} is ${job.state}; ${balance.available} credits left.`,
			};
		},
	];
}

/** The example with the chat model at `version` (the credential already points at the model server). */
function agentWorkflow(id, chatModelVersion) {
	const wf = loadExample(EXAMPLE, id);
	const model = wf.nodes.find((n) => n.type === '@n8n/n8n-nodes-langchain.lmChatOpenAi');
	model.typeVersion = chatModelVersion;
	return wf;
}

/** The JSON Schema of a tool's parameters as the model was given it. */
function toolSchema(req, name) {
	const tool = req.tools.find((t) => t.name === name);
	assert.ok(tool, `the model was not offered ${name}; offered: ${req.tools.map((t) => t.name)}`);
	return tool.parameters;
}

function assertParameters(req, name, expected) {
	const schema = toolSchema(req, name);
	for (const [param, type] of Object.entries(expected)) {
		assert.equal(
			schema.properties?.[param]?.type,
			type,
			`${name}: parameter ${param} (${type}) missing from the schema the model got: ${JSON.stringify(schema)}`,
		);
		assert.ok(schema.required?.includes(param), `${name}: ${param} not required`);
	}
}

for (const version of e2eHosts().filter((v) => v !== '1')) {
	describe(
		`an AI agent calls our tools, real n8n host ${version}`,
		{ timeout: INSTALL_TIMEOUT_MS + 10 * 60_000 },
		() => {
			let inst;
			let emu;
			let model;
			before(
				async () => {
					await ensureHost({ version });
					inst = await openInstance({ version });
					await inst.installPackage(await packOnce());
					emu = await startEmulator({ jobTiming: { queuedMs: 60_000, runningMs: 60_000 } });
					model = await startModelServer([]);
					await inst.importCredentials([
						{
							id: 'gsEmulatorCred',
							name: 'Generation Service (local emulator)',
							type: 'generationServiceApi',
							data: { apiKey: emu.keys.full, baseUrl: emu.baseUrl },
						},
						{
							id: 'gsOpenAiCred',
							name: 'OpenAI account (add your own)',
							type: 'openAiApi',
							data: { apiKey: 'sk-scripted-model', url: model.baseUrl },
						},
					]);
					// both runs' workflows in one import (each n8n CLI command starts n8n: seconds)
					await inst.importWorkflow(
						ENDPOINTS.map(({ id, chatModelVersion }) => agentWorkflow(id, chatModelVersion)),
					);
				},
				{ timeout: INSTALL_TIMEOUT_MS },
			);
			afterEach(() => emu?.assertNoViolations());
			after(async () => {
				await model?.close();
				await emu?.close();
				await inst?.close();
			});

			for (const { endpoint, chatModelVersion, id } of ENDPOINTS) {
				it(`chat model ${chatModelVersion} (/${endpoint === 'chat' ? 'chat/completions' : 'responses'})`, async (t) => {
					const first = model.requests.length;
					const jobsBefore = emu.control.jobs().length;
					model.setScript(script());
					const res = await inst.execute(id, { timeoutMs: 240_000 });
					const requests = model.requests.slice(first);
					t.diagnostic(
						`execute ${(res.ms / 1000).toFixed(1)} s, ${requests.length} model requests, peak RSS ${Math.round((res.peakRssBytes ?? 0) / 2 ** 20)} MB`,
					);

					// The run did not crash: the refused call came back to the model, which went on to the end.
					assert.ok(
						res.result?.data?.resultData,
						`no run data:\n${res.stdout.slice(-2000)}\n${res.stderr.slice(-2000)}`,
					);
					assert.equal(
						res.result.data.resultData.error,
						undefined,
						`the run failed: ${JSON.stringify(res.result.data.resultData.error)?.slice(0, 2000)}`,
					);
					assert.equal(res.result.status, 'success');
					assert.deepEqual(
						requests.map((r) => r.scriptError ?? r.endpoint),
						Array(5).fill(endpoint),
						'five model turns, all on the endpoint of this chat model version',
					);
					const [answer] = outputOf(res, 'AI Agent');
					assert.equal(answer.output, requests[4].turn.text, "the final answer is the model's");

					// The tools the model was given: every $fromAI parameter of the example is in their schema.
					assertParameters(requests[0], 'Create_Video', {
						prompt: 'string',
						durationSeconds: 'number',
					});
					assertParameters(requests[0], 'Quote_Video', {
						prompt: 'string',
						durationSeconds: 'number',
					});
					assertParameters(requests[0], 'Get_Job', { jobId: 'string' });
					assert.deepEqual(toolSchema(requests[0], 'Get_Balance').properties, {});

					// The refusal, as the model got it: a message that stands alone (numbers, what to do).
					const [refusal] = lastResult(requests[1]);
					assert.deepEqual(Object.keys(refusal), ['error'], JSON.stringify(refusal));
					assert.match(refusal.error, /16 credits, above Max Credits \(8\)/);
					assert.match(refusal.error, /nothing was created/);
					assert.match(refusal.error, /8 credits per started 5 s/);
					assert.match(refusal.error, /shorter duration/);

					// Create answered at once with the job; Get Job read it; Get Balance the account.
					const [created] = lastResult(requests[2]);
					assert.match(created.id, /^job_[0-9a-f]{32}$/);
					assert.equal(created.state, 'queued');
					assert.equal(created.reservedCredits, 8);
					const [read] = lastResult(requests[3]);
					assert.equal(read.id, created.id);
					assert.ok(['queued', 'running'].includes(read.state), read.state);
					const [balance] = lastResult(requests[4]);
					assert.equal(typeof balance.available, 'number');
					assert.equal(
						emu.control.jobs().length - jobsBefore,
						1,
						'one job: the refused call created nothing',
					);
					assert.ok(emu.control.jobs().some((j) => j.id === created.id));

					// Everything the model received: compact JSON, no file, no base64, no API key.
					for (const result of requests[4].toolResults) {
						assert.equal(result.output, JSON.stringify(JSON.parse(result.output)), 'compact JSON');
						assert.ok(
							result.output.length < 2000,
							`a tool answer of ${result.output.length} characters`,
						);
						assert.doesNotMatch(result.output, /"binary"|binaryOmitted/);
						assert.doesNotMatch(result.output, /[A-Za-z0-9+/]{120,}={0,2}/, 'base64');
					}
					const received = JSON.stringify(requests.map((r) => r.body));
					for (const [name, key] of Object.entries(emu.keys)) {
						assert.ok(!received.includes(key), `the API key "${name}" reached the model`);
					}
					assert.doesNotMatch(received, /svc_sk_/);
				});
			}
		},
	);
}
