// n8n's REST API as its owner, the one client every suite, the soak, the bench and npm start use: the owner
// account set up on a fresh instance or logged in, JSON calls, executions (paged, run data parsed), manual
// runs from a trigger, and published workflows' production webhooks.
import { parseFlatted } from './run-data.mjs';
import { pause, waitUntil } from './wait.mjs';

/** The owner account of every instance the tooling starts (npm start prints it). */
export const OWNER = { email: 'owner@example.com', password: 'E2e-owner-2026' };

const cookieOf = (res) =>
	(res.headers.getSetCookie?.() ?? [res.headers.get('set-cookie')])
		.filter(Boolean)
		.map((c) => c.split(';')[0])
		.join('; ');

/** POST `route` until it is not 404: n8n 1.x answers /healthz/readiness before its REST routes exist. */
async function postWhileNotFound(base, route, body) {
	let res;
	for (let i = 0; i < 120; i++) {
		res = await fetch(`${base}/rest${route}`, {
			method: 'POST',
			headers: { 'Content-Type': 'application/json' },
			body: JSON.stringify(body),
		});
		if (res.status !== 404) break;
		await pause(500);
	}
	return res;
}

/** The owner account of a fresh instance, set up through the REST API; returns the session cookie. */
export async function ownerSession(base) {
	const res = await postWhileNotFound(base, '/owner/setup', {
		email: OWNER.email,
		firstName: 'Test',
		lastName: 'Owner',
		password: OWNER.password,
	});
	if (!res.ok) throw new Error(`owner setup failed: HTTP ${res.status} ${await res.text()}`);
	const cookie = cookieOf(res);
	if (!cookie) throw new Error('owner setup gave no session cookie');
	return cookie;
}

/** A session for the owner that ownerSession() set up (an instance started again); the cookie. */
export async function loginSession(base) {
	const res = await postWhileNotFound(base, '/login', {
		emailOrLdapLoginId: OWNER.email,
		password: OWNER.password,
	});
	if (!res.ok) throw new Error(`login failed: HTTP ${res.status} ${await res.text()}`);
	const cookie = cookieOf(res);
	if (!cookie) throw new Error('login gave no session cookie');
	return cookie;
}

/**
 * A REST client of the n8n at `base` (its host in `hostDir`, for the flatted run data). The owner's session is
 * opened on first use: a login, or the owner's setup on a fresh instance. With `login` ({ email, password }) it
 * only logs in with those (an instance someone else set up, e.g. npm start's printed login).
 */
export function n8nRest(base, hostDir, { login } = {}) {
	let cookie;
	const client = {
		base,
		/** The owner's session cookie (kept; opened again when n8n refuses it, e.g. after a restart). */
		async session() {
			if (cookie) {
				const res = await fetch(`${base}/rest/login`, { headers: { Cookie: cookie } });
				if (res.ok) return cookie;
			}
			const existing = await postWhileNotFound(base, '/login', {
				emailOrLdapLoginId: (login ?? OWNER).email,
				password: (login ?? OWNER).password,
			});
			if (login && !existing.ok)
				throw new Error(
					`login as ${login.email} failed: HTTP ${existing.status} ${await existing.text()}`,
				);
			cookie = existing.ok ? cookieOf(existing) : await ownerSession(base);
			return cookie;
		},
		/** A call as the owner: { status, body } (body parsed when JSON), whatever the status. */
		async raw(method, route, body, { timeoutMs = 120_000, signal } = {}) {
			const res = await fetch(`${base}/rest${route}`, {
				method,
				headers: { 'Content-Type': 'application/json', Cookie: await client.session() },
				body: body === undefined ? undefined : JSON.stringify(body),
				signal: signal ?? AbortSignal.timeout(timeoutMs),
			});
			const text = await res.text();
			try {
				return { status: res.status, body: JSON.parse(text) };
			} catch {
				return { status: res.status, body: text };
			}
		},
		/** A JSON call as the owner: the answer's `data` (throws on an HTTP error, with status and body). */
		async request(method, route, body, options) {
			const { status, body: parsed } = await client.raw(method, route, body, options);
			if (status >= 400) {
				const text = typeof parsed === 'string' ? parsed : JSON.stringify(parsed);
				const error = new Error(`${method} /rest${route}: HTTP ${status} ${text.slice(0, 500)}`);
				error.status = status;
				error.body = parsed;
				throw error;
			}
			return parsed?.data ?? parsed;
		},
		/**
		 * A credential's test as the editor's Test button runs it: its form data (secrets redacted) sent back to
		 * POST /rest/credentials/test. n8n's answer: { status: 'OK' | 'Error', message }.
		 */
		async testCredential(id) {
			const credential = await client.request('GET', `/credentials/${id}?includeData=true`);
			const { name, type, data } = credential;
			return client.request('POST', '/credentials/test', { credentials: { id, name, type, data } });
		},
		/** Executions (summaries, newest first, the first 100) of a workflow, or of all. */
		async executions(workflowId) {
			const filter = workflowId
				? `&filter=${encodeURIComponent(JSON.stringify({ workflowId }))}`
				: '';
			const data = await client.request('GET', `/executions?limit=100${filter}`);
			return data.results ?? data;
		},
		/**
		 * Every execution (summaries), paging through the list: n8n 2.x pages with the `nextCursor` it answers
		 * (it refuses `lastId`), n8n 1.x with `lastId`.
		 */
		async allExecutions(pageSize = 20) {
			const out = [];
			let next = '';
			for (let pages = 0; ; pages++) {
				if (pages > 10_000) throw new Error('the execution list never ends');
				const data = await client.request('GET', `/executions?limit=${pageSize}${next}`);
				const page = data.results ?? data;
				out.push(...page);
				if (data.nextCursor !== undefined) {
					if (data.nextCursor === null || page.length === 0) return out;
					next = `&cursor=${encodeURIComponent(data.nextCursor)}`;
				} else {
					if (page.length < pageSize) return out;
					next = `&lastId=${page[page.length - 1].id}`;
				}
			}
		},
		/** One execution with its run data parsed (n8n stores it flatted). */
		async execution(id) {
			const e = await client.request('GET', `/executions/${id}`);
			return { ...e, data: typeof e.data === 'string' ? parseFlatted(hostDir, e.data) : e.data };
		},
		/** Polls a workflow's executions (or all) until `check(list)` is truthy; returns its value. */
		async waitForExecutions(workflowId, check, { timeoutMs = 120_000, everyMs = 1000 } = {}) {
			let list = [];
			try {
				return await waitUntil(
					`executions of ${workflowId ?? 'all workflows'}`,
					async () => check((list = await client.executions(workflowId))),
					{ timeoutMs, everyMs },
				);
			} catch (error) {
				error.message += `: ${JSON.stringify(list.map((e) => ({ id: e.id, status: e.status, mode: e.mode })))}`;
				throw error;
			}
		},
		/**
		 * A manual execution started from a trigger node, as the editor's "Execute workflow" and "Fetch test
		 * event" do (POST /rest/workflows/:id/run); returns its execution id at once.
		 */
		async startFromTrigger(workflowId, triggerName) {
			// n8n 1.x also wants the workflow in the body; 2.x ignores it.
			const workflowData = await client.request('GET', `/workflows/${workflowId}`);
			const started = await client.request('POST', `/workflows/${workflowId}/run`, {
				workflowData,
				triggerToStartFrom: { name: triggerName },
			});
			const executionId = started?.executionId;
			if (!executionId) throw new Error(`manual run did not start: ${JSON.stringify(started)}`);
			return executionId;
		},
		/** startFromTrigger, then the execution with its run data once finished. */
		async runFromTrigger(workflowId, triggerName, timeoutMs = 120_000) {
			const executionId = await client.startFromTrigger(workflowId, triggerName);
			return await waitUntil(
				`execution ${executionId} to finish`,
				async () => {
					const execution = await client.execution(executionId);
					const done =
						execution?.finished || ['success', 'error', 'crashed'].includes(execution?.status);
					// n8n 1.x on SQLite writes an execution's status and its run data separately: a read can fall
					// in between and see a finished execution without run data. Wait for the data too.
					return done && execution.data?.resultData ? execution : undefined;
				},
				{ timeoutMs, everyMs: 500 },
			);
		},
		/**
		 * Publishes (activates) a workflow on the running n8n, then waits until its production webhooks answer
		 * (n8n 2.x registers them asynchronously). Returns the webhooks: [{ path, method }].
		 */
		async activate(workflowId) {
			const wf = await client.request('GET', `/workflows/${workflowId}`);
			await client.request('POST', `/workflows/${workflowId}/activate`, {
				versionId: wf.versionId,
			});
			const hooks = (wf.nodes ?? [])
				.filter((n) => n.type === 'n8n-nodes-base.webhook' && !n.disabled)
				.map((n) => ({ path: n.parameters.path, method: n.parameters.httpMethod ?? 'GET' }));
			for (const h of hooks) await client.waitForWebhook(h.path, h.method);
			return hooks;
		},
		deactivate: (workflowId) => client.request('POST', `/workflows/${workflowId}/deactivate`, {}),
		/**
		 * Waits until the production webhook `path` is registered for `method`, probing it with another
		 * method (which never starts an execution): n8n then answers "…Did you mean to make a POST request?".
		 */
		async waitForWebhook(webhookPath, method = 'POST', timeoutMs = 60_000) {
			const probe = method === 'GET' ? 'DELETE' : 'GET';
			await waitUntil(
				`webhook ${method} /webhook/${webhookPath}`,
				async () => {
					const res = await fetch(`${base}/webhook/${webhookPath}`, {
						method: probe,
						signal: AbortSignal.timeout(5000),
					});
					const text = await res.text();
					return (
						res.status !== 404 ||
						new RegExp(`Did you mean to make a[^"]*\\b${method}\\b`).test(text)
					);
				},
				{ timeoutMs, everyMs: 250, tolerateErrors: true },
			);
		},
	};
	return client;
}

/** POSTs `body` to the production webhook `route`: { status, headers, body (a Buffer), ms }. */
export async function callWebhook(base, route, { body, headers = {}, timeoutMs = 240_000 } = {}) {
	const t0 = Date.now();
	const res = await fetch(`${base}/webhook/${route}`, {
		method: 'POST',
		headers,
		body,
		signal: AbortSignal.timeout(timeoutMs),
	});
	return {
		status: res.status,
		headers: Object.fromEntries(res.headers),
		body: Buffer.from(await res.arrayBuffer()),
		ms: Date.now() - t0,
	};
}

/** A JSON body for callWebhook. */
export const jsonBody = (value) => ({
	body: JSON.stringify(value),
	headers: { 'Content-Type': 'application/json' },
});
