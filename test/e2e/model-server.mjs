// A scripted OpenAI-compatible chat model for the agent suite: n8n's OpenAI credential points its Base URL
// here. It answers each request with the next turn of a script and records every request body it got.
//
//   const model = await startModelServer([
//     { tool: 'Create_Video', arguments: { prompt: 'a boat' } },       // a tool call
//     (req) => ({ tool: 'Get_Job', arguments: { jobId: JSON.parse(req.toolResults.at(-1).output)[0].id } }),
//     { text: 'Done.' },                                                // a final answer
//   ]);
//   model.baseUrl            http://127.0.0.1:<port>/v1 (the credential's Base URL)
//   model.requests           [{ endpoint: 'chat' | 'responses', body, toolResults, tools }] in arrival order
//   await model.close()
//
// Endpoints (what n8n's OpenAI Chat Model node calls, by version): POST /v1/chat/completions (versions up
// to 1.2, and 1.3 with "Use Responses API" off) and POST /v1/responses (1.3's default). Both answer in JSON,
// or as server-sent events when the request asks for `stream: true`. A turn is an object or a function of
// the normalised request returning one: `{ tool, arguments }` or `{ text }`. A request past the end of the
// script is answered 500 (and recorded), so a test sees a model that was asked more than scripted.
//
// Normalised request: `toolResults` = every tool result the request carries, [{ callId, output }] (chat:
// messages with role "tool"; responses: input items of type "function_call_output"), and `tools` = the
// tools offered, [{ name, description, parameters }] (the JSON Schema n8n built from the tool's $fromAI).
import http from 'node:http';

function normalise(endpoint, body) {
	if (endpoint === 'chat') {
		return {
			toolResults: (body.messages ?? [])
				.filter((m) => m.role === 'tool')
				.map((m) => ({
					callId: m.tool_call_id,
					output: typeof m.content === 'string' ? m.content : JSON.stringify(m.content),
				})),
			tools: (body.tools ?? []).map((t) => ({
				name: t.function?.name,
				description: t.function?.description,
				parameters: t.function?.parameters,
			})),
		};
	}
	const input = Array.isArray(body.input) ? body.input : [];
	return {
		toolResults: input
			.filter((m) => m.type === 'function_call_output')
			.map((m) => ({
				callId: m.call_id,
				output: typeof m.output === 'string' ? m.output : JSON.stringify(m.output),
			})),
		tools: (body.tools ?? [])
			.filter((t) => t.type === 'function')
			.map((t) => ({ name: t.name, description: t.description, parameters: t.parameters })),
	};
}

const usage = { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 };

function chatAnswer(turn, n, model) {
	const message = turn.tool
		? {
				role: 'assistant',
				content: null,
				tool_calls: [
					{
						id: `call_${n}`,
						type: 'function',
						function: { name: turn.tool, arguments: JSON.stringify(turn.arguments ?? {}) },
					},
				],
			}
		: { role: 'assistant', content: turn.text };
	return {
		id: `chatcmpl-${n}`,
		object: 'chat.completion',
		created: Math.floor(Date.now() / 1000),
		model,
		choices: [{ index: 0, message, finish_reason: turn.tool ? 'tool_calls' : 'stop' }],
		usage,
	};
}

function chatChunks(turn, n, model) {
	const base = { id: `chatcmpl-${n}`, object: 'chat.completion.chunk', created: 0, model };
	const delta = turn.tool
		? {
				role: 'assistant',
				content: null,
				tool_calls: [
					{
						index: 0,
						id: `call_${n}`,
						type: 'function',
						function: { name: turn.tool, arguments: JSON.stringify(turn.arguments ?? {}) },
					},
				],
			}
		: { role: 'assistant', content: turn.text };
	return [
		{ ...base, choices: [{ index: 0, delta, finish_reason: null }] },
		{
			...base,
			choices: [{ index: 0, delta: {}, finish_reason: turn.tool ? 'tool_calls' : 'stop' }],
		},
		{ ...base, choices: [], usage },
	];
}

function responsesItem(turn, n) {
	return turn.tool
		? {
				type: 'function_call',
				id: `fc_${n}`,
				call_id: `call_${n}`,
				name: turn.tool,
				arguments: JSON.stringify(turn.arguments ?? {}),
				status: 'completed',
			}
		: {
				type: 'message',
				id: `msg_${n}`,
				role: 'assistant',
				status: 'completed',
				content: [{ type: 'output_text', text: turn.text, annotations: [] }],
			};
}

function responsesAnswer(turn, n, model) {
	return {
		id: `resp_${n}`,
		object: 'response',
		created_at: Math.floor(Date.now() / 1000),
		status: 'completed',
		model,
		output: [responsesItem(turn, n)],
		usage: { input_tokens: 10, output_tokens: 5, total_tokens: 15 },
	};
}

function responsesEvents(turn, n, model) {
	const done = responsesAnswer(turn, n, model);
	const item = responsesItem(turn, n);
	const events = [
		{ type: 'response.created', response: { ...done, status: 'in_progress', output: [] } },
		{ type: 'response.output_item.added', output_index: 0, item },
	];
	if (!turn.tool) {
		events.push({
			type: 'response.output_text.delta',
			item_id: item.id,
			output_index: 0,
			content_index: 0,
			delta: turn.text,
		});
	}
	events.push(
		{ type: 'response.output_item.done', output_index: 0, item },
		{ type: 'response.completed', response: done },
	);
	return events.map((e, i) => ({ ...e, sequence_number: i }));
}

/** Starts the model on a free loopback port with `script` (an array of turns). */
export async function startModelServer(script) {
	const requests = [];
	let next = 0;
	const server = http.createServer((req, res) => {
		const chunks = [];
		req.on('data', (c) => chunks.push(c));
		req.on('end', async () => {
			const endpoint = req.url.endsWith('/chat/completions')
				? 'chat'
				: req.url.endsWith('/responses')
					? 'responses'
					: undefined;
			if (req.method !== 'POST' || !endpoint) {
				res.writeHead(404, { 'Content-Type': 'application/json' });
				res.end(JSON.stringify({ error: { message: `no route ${req.method} ${req.url}` } }));
				return;
			}
			let body;
			try {
				body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
			} catch {
				res.writeHead(400, { 'Content-Type': 'application/json' });
				res.end(JSON.stringify({ error: { message: 'body is not JSON' } }));
				return;
			}
			const request = { at: Date.now(), endpoint, body, ...normalise(endpoint, body) };
			requests.push(request);
			const n = next++;
			const step = script[n];
			if (step === undefined) {
				res.writeHead(500, { 'Content-Type': 'application/json' });
				res.end(JSON.stringify({ error: { message: `the script has no turn ${n + 1}` } }));
				return;
			}
			let turn;
			try {
				turn = typeof step === 'function' ? await step(request) : step;
			} catch (error) {
				request.scriptError = String(error?.stack ?? error);
				res.writeHead(500, { 'Content-Type': 'application/json' });
				res.end(JSON.stringify({ error: { message: `script turn ${n + 1}: ${error}` } }));
				return;
			}
			request.turn = turn;
			const model = body.model ?? 'scripted';
			if (body.stream) {
				res.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache' });
				if (endpoint === 'chat') {
					for (const chunk of chatChunks(turn, n, model))
						res.write(`data: ${JSON.stringify(chunk)}\n\n`);
					res.end('data: [DONE]\n\n');
				} else {
					for (const event of responsesEvents(turn, n, model))
						res.write(`event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`);
					res.end();
				}
				return;
			}
			res.writeHead(200, { 'Content-Type': 'application/json' });
			res.end(
				JSON.stringify(
					endpoint === 'chat' ? chatAnswer(turn, n, model) : responsesAnswer(turn, n, model),
				),
			);
		});
	});
	await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
	const { port } = server.address();
	return {
		baseUrl: `http://127.0.0.1:${port}/v1`,
		requests,
		/** Starts over with another script (the record is kept; `requests.length` marks where). */
		setScript(turns) {
			script = turns;
			next = 0;
		},
		close: () =>
			new Promise((resolve) => {
				server.closeAllConnections?.();
				server.close(() => resolve());
			}),
	};
}
