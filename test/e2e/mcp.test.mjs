// The package's tools as MCP clients reach them: examples/mcp-video-server.json as shipped (an MCP Server
// Trigger with Quote, Create, Get and Balance tools, and a delivery webhook that streams a job's MP4 through
// Download Output and Respond to Webhook), published in real n8n 2.x and called with the official MCP SDK
// client (@modelcontextprotocol/sdk) over Streamable HTTP and SSE, as Claude Desktop, Cursor or an agent
// would. Checked: the tool list and its input schemas; every tool; a refusal as an `isError` answer a model can
// act on; two identical calls at once make two videos; a long job answers before the client's default request
// timeout (60 s) with the job's state and the next step; the link gives the MP4 with its sha256; the referee saw
// no client mistake, no job was charged twice, the ledger invariant holds.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { DEFAULT_REQUEST_TIMEOUT_MSEC } from '@modelcontextprotocol/sdk/shared/protocol.js';

import { freePort } from '../../tools/lib/net.mjs';
import { codeBlocks } from '../../tools/lib/doc-links.mjs';
import { run } from '../../tools/lib/process.mjs';
import { EXAMPLE_N8N_URL, REPO, preparedExample } from '../../tools/lib/repo.mjs';
import { startServer } from '../../tools/lib/server.mjs';
import {
	INSTALL_TIMEOUT_MS,
	e2eHosts,
	ensureHost,
	openInstance,
	packOnce,
	startEmulator,
} from './harness.mjs';

const log = (msg) => process.stderr.write(`[mcp] ${msg}\n`);
const MCP_TOKEN = 'gs-mcp-example-token-0123456789';
const LINKS = { user: 'videos', password: 'gs-links-2026' };
const TOOLS = ['Create_Video', 'Get_Balance', 'Get_Job', 'Quote_Video'];

/** The JSON a tool answered (n8n sends the tool's output as one text content). */
function answerOf(result) {
	const text = result.content?.find((c) => c.type === 'text')?.text;
	assert.ok(text !== undefined, `no text content: ${JSON.stringify(result)}`);
	try {
		const parsed = JSON.parse(text);
		return Array.isArray(parsed) && parsed.length === 1 ? parsed[0] : parsed;
	} catch {
		return text;
	}
}

describe(
	"MCP clients through n8n's MCP Server Trigger (examples/mcp-video-server.json, n8n 2.41.1)",
	{
		skip: !e2eHosts().includes('2') && 'the MCP Server Trigger 2.1 is n8n 2.x',
		timeout: INSTALL_TIMEOUT_MS + 15 * 60_000,
	},
	() => {
		let emu;
		let inst;
		let server;
		let mcpUrl;
		const clients = [];

		before(
			async () => {
				await ensureHost({ version: '2' });
				const tarball = await packOnce();
				emu = await startEmulator({ jobTiming: { queuedMs: 500, runningMs: 3000 } });
				inst = await openInstance({ version: '2' });
				await inst.installPackage(tarball);
				await inst.importCredentials([
					{
						id: 'gsEmulatorCred',
						name: 'Generation Service (local emulator)',
						type: 'generationServiceApi',
						data: { apiKey: emu.keys.full, baseUrl: emu.baseUrl },
					},
					{
						id: 'gsMcpBearer',
						name: 'MCP clients (add your own token)',
						type: 'httpBearerAuth',
						data: { token: MCP_TOKEN },
					},
					{
						id: 'gsVideoLinks',
						name: 'Video links (add your own user name and password)',
						type: 'httpBasicAuth',
						data: LINKS,
					},
				]);
				// the example as shipped, with the link in its instructions pointing at this n8n
				const port = await freePort();
				const base = `http://127.0.0.1:${port}`;
				const wf = preparedExample('mcp-video-server.json', { baseUrl: base });
				await inst.importWorkflow(wf);
				const published = await inst.n8n(['publish:workflow', `--id=${wf.id}`]);
				assert.equal(published.code, 0, published.stdout + published.stderr);
				server = await startServer(inst, { port, log });
				await server.rest.waitForWebhook('gs-video', 'GET');
				mcpUrl = new URL(`${base}/mcp/generation-service`);
			},
			{ timeout: INSTALL_TIMEOUT_MS },
		);

		after(async () => {
			for (const c of clients) await c.close().catch(() => undefined);
			await server?.stop();
			await inst?.close();
			if (emu) {
				const ledger = emu.control.ledger();
				const reserves = new Map();
				for (const e of ledger.entries.filter((x) => x.kind === 'reserve'))
					reserves.set(e.jobId, (reserves.get(e.jobId) ?? 0) + 1);
				await emu.close(); // the referee: fails unless it saw no client mistake
				assert.ok(ledger.invariantHolds, 'the ledger invariant');
				assert.deepEqual(
					[...reserves].filter(([, n]) => n > 1),
					[],
					'a job reserved (charged) twice',
				);
			}
		});

		it("docs/agents-and-mcp.md's client snippet runs as written: Create_Video answers with the job", async (t) => {
			// the snippet as the doc shows it; only the placeholders it tells the reader to replace are replaced
			const doc = fs.readFileSync(path.join(REPO, 'docs', 'agents-and-mcp.md'), 'utf8');
			const [snippet, ...more] = codeBlocks(doc).filter(
				(b) => b.lang === 'js' && b.intro.includes('official SDK'),
			);
			assert.ok(snippet && more.length === 0, 'one client snippet in docs/agents-and-mcp.md');
			assert.ok(snippet.code.includes(EXAMPLE_N8N_URL) && snippet.code.includes('<your token>'));
			const code = snippet.code
				.replaceAll(EXAMPLE_N8N_URL, mcpUrl.origin)
				.replaceAll('<your token>', MCP_TOKEN);
			// beside node_modules, as "a folder where you ran npm install @modelcontextprotocol/sdk"
			const dir = fs.mkdtempSync(path.join(REPO, 'node_modules', '.gs-mcp-snippet-'));
			try {
				fs.writeFileSync(path.join(dir, 'client.mjs'), code);
				const t0 = Date.now();
				const r = await run(process.execPath, [path.join(dir, 'client.mjs')], {
					cwd: dir,
					timeoutMs: DEFAULT_REQUEST_TIMEOUT_MSEC + 30_000,
				});
				t.diagnostic(
					`node client.mjs: exit ${r.code} in ${((Date.now() - t0) / 1000).toFixed(1)} s`,
				);
				assert.equal(r.code, 0, r.stderr);
				const [job] = JSON.parse(r.stdout);
				assert.match(job.id, /^job_/);
				assert.ok(['queued', 'running', 'succeeded'].includes(job.state), r.stdout);
				assert.deepEqual(
					jobsWithPrompt('a lighthouse at dusk').map((j) => j.id),
					[job.id],
					'the snippet made one video',
				);
			} finally {
				fs.rmSync(dir, { recursive: true, force: true });
			}
		});

		/** A connected client over `kind` ('http': Streamable HTTP, 'sse'). */
		async function connect(kind = 'http') {
			const headers = { Authorization: `Bearer ${MCP_TOKEN}` };
			const transport =
				kind === 'http'
					? new StreamableHTTPClientTransport(mcpUrl, { requestInit: { headers } })
					: new SSEClientTransport(mcpUrl, {
							requestInit: { headers },
							eventSourceInit: {
								fetch: (url, init) =>
									fetch(url, { ...init, headers: { ...init?.headers, ...headers } }),
							},
						});
			const client = new Client({ name: 'gs-mcp-suite', version: '1.0.0' });
			await client.connect(transport);
			clients.push(client);
			return client;
		}

		const jobsWithPrompt = (prompt) => emu.control.jobs().filter((j) => j.input?.prompt === prompt);

		it('lists the four tools with their descriptions, input schemas and the server instructions', async (t) => {
			const client = await connect('http');
			const { tools } = await client.listTools();
			assert.deepEqual(tools.map((x) => x.name).sort(), TOOLS);
			const byName = Object.fromEntries(tools.map((x) => [x.name, x]));
			for (const name of ['Quote_Video', 'Create_Video']) {
				const props = byName[name].inputSchema.properties;
				assert.equal(props.prompt?.type, 'string', `${name}: ${JSON.stringify(props)}`);
				assert.equal(props.durationSeconds?.type, 'number', `${name}: ${JSON.stringify(props)}`);
			}
			assert.equal(byName.Get_Job.inputSchema.properties.jobId?.type, 'string');
			assert.match(byName.Create_Video.description, /SPENDS CREDITS/);
			assert.match(client.getInstructions() ?? '', /webhook\/gs-video\?job=<job id>/);
			t.diagnostic(
				tools
					.map((x) => `${x.name}(${Object.keys(x.inputSchema.properties ?? {}).join(', ')})`)
					.join('; '),
			);
		});

		it('lists the same tools over SSE', async () => {
			const client = await connect('sse');
			const { tools } = await client.listTools();
			assert.deepEqual(tools.map((x) => x.name).sort(), TOOLS);
		});

		let finished; // a succeeded job, for the link
		it('calls every tool: balance, quote, create (finished within the wait), get', async () => {
			const client = await connect('http');
			const balance = answerOf(await client.callTool({ name: 'Get_Balance', arguments: {} }));
			assert.equal(typeof balance.available, 'number', JSON.stringify(balance));
			const prompt = 'a lighthouse at dusk, waves breaking (MCP suite)';
			const quote = answerOf(
				await client.callTool({ name: 'Quote_Video', arguments: { prompt, durationSeconds: 5 } }),
			);
			assert.equal(quote.reservedCredits, 8, JSON.stringify(quote));
			const created = await client.callTool({
				name: 'Create_Video',
				arguments: { prompt, durationSeconds: 5 },
			});
			assert.notEqual(created.isError, true, JSON.stringify(created));
			finished = answerOf(created);
			assert.equal(finished.state, 'succeeded', JSON.stringify(finished));
			assert.match(finished.id, /^job_[0-9a-f]{32}$/);
			// lean: no Idempotency-Key, no input echo
			assert.equal(finished.idempotencyKey, undefined, JSON.stringify(finished));
			assert.equal(finished.input, undefined, JSON.stringify(finished));
			const got = answerOf(
				await client.callTool({ name: 'Get_Job', arguments: { jobId: finished.id } }),
			);
			assert.equal(got.id, finished.id);
			assert.equal(got.state, 'succeeded');
			assert.equal(jobsWithPrompt(prompt).length, 1);
			emu.assertNoViolations();
		});

		it('a refusal comes back as isError with a message a model can act on, and creates nothing', async () => {
			const client = await connect('http');
			const prompt = 'a very long storm at sea (MCP suite refusal)';
			const refused = await client.callTool({
				name: 'Create_Video',
				arguments: { prompt, durationSeconds: 30 },
			});
			assert.equal(refused.isError, true, JSON.stringify(refused));
			const text = refused.content.map((c) => c.text).join(' ');
			assert.match(text, /Max Credits \(16\)/);
			assert.match(text, /nothing was created/);
			assert.equal(jobsWithPrompt(prompt).length, 0);
		});

		it('two identical calls at once make two videos', async (t) => {
			const [a, b] = [await connect('http'), await connect('http')];
			const prompt = 'a paper boat on a rainy street (MCP suite, asked twice)';
			const call = (c) =>
				c.callTool({ name: 'Create_Video', arguments: { prompt, durationSeconds: 5 } });
			const answers = (await Promise.all([call(a), call(b)])).map(answerOf);
			const ids = new Set(answers.map((x) => x.id));
			assert.equal(ids.size, 2, JSON.stringify(answers));
			assert.equal(jobsWithPrompt(prompt).length, 2);
			t.diagnostic(`jobs of the repeated prompt: ${jobsWithPrompt(prompt).length}`);
			emu.assertNoViolations();
		});

		it(`a long job answers before the client's default timeout (${DEFAULT_REQUEST_TIMEOUT_MSEC / 1000} s) with its state and the next step`, async (t) => {
			const client = await connect('http');
			emu.control.scriptJobs([{ queuedMs: 1000, runningMs: 150_000 }]);
			const prompt = 'a slow sunrise over the mountains (MCP suite, long job)';
			const t0 = Date.now();
			// the SDK's own default request timeout: no option given, as clients call
			const answer = answerOf(
				await client.callTool({ name: 'Create_Video', arguments: { prompt, durationSeconds: 5 } }),
			);
			const ms = Date.now() - t0;
			t.diagnostic(
				`the long job's call answered in ${(ms / 1000).toFixed(1)} s: ${JSON.stringify(answer)}`,
			);
			assert.ok(ms < DEFAULT_REQUEST_TIMEOUT_MSEC, `answered after ${ms} ms`);
			assert.ok(['queued', 'running'].includes(answer.state), JSON.stringify(answer));
			assert.match(answer.id, /^job_/);
			assert.match(JSON.stringify(answer), /Get Job/);
			const again = answerOf(
				await client.callTool({ name: 'Get_Job', arguments: { jobId: answer.id } }),
			);
			assert.ok(['queued', 'running'].includes(again.state), JSON.stringify(again));
			assert.match(JSON.stringify(again), /Get Job/);
			assert.equal(jobsWithPrompt(prompt).length, 1);
			emu.assertNoViolations();
		});

		it('the link in the instructions gives the MP4 with its sha256; without the login it is refused', async () => {
			assert.ok(finished, 'the create step failed');
			const url = `${server.base}/webhook/gs-video?job=${finished.id}`;
			const auth = `Basic ${Buffer.from(`${LINKS.user}:${LINKS.password}`).toString('base64')}`;
			const res = await fetch(url, { headers: { Authorization: auth } });
			assert.equal(res.status, 200, await res.clone().text());
			assert.match(res.headers.get('content-type') ?? '', /video\/mp4/);
			const bytes = Buffer.from(await res.arrayBuffer());
			const job = emu.control.jobs().find((j) => j.id === finished.id);
			assert.equal(createHash('sha256').update(bytes).digest('hex'), job.output.sha256);
			const anonymous = await fetch(url);
			assert.ok([401, 403].includes(anonymous.status), `without the login: ${anonymous.status}`);
			emu.assertNoViolations();
		});
	},
);
