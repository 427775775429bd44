import nock from 'nock';
import type { IExecuteFunctions } from 'n8n-workflow';

import { GenerationServiceApi } from '../../credentials/GenerationServiceApi.credentials';
import { apiRequestAllItems } from '../../nodes/shared/operations';
import { apiRequest, sendRequest } from '../../nodes/shared/service/client';
import { checkBaseUrl } from '../../nodes/shared/service/service';
import { useNock } from '../helpers/nock';
import { TEST_KEY, runNode } from '../helpers/n8n';
import { probeNode } from '../helpers/probe-node';

const BASE = 'https://api.gen.test/v1';
const credentials = { apiKey: TEST_KEY, baseUrl: BASE };
const JOB_KEY = ['n8n', 'job', '0123456789abcdef'].join('.');
const ok = (data: unknown) => ({ data });
const reset = () => Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' });
const errorBody = (code: string) => ({ error: { code, message: 'mensagem' }, requestId: 'req_1' });

async function call(fn: (this: IExecuteFunctions) => Promise<unknown>) {
	const [[item]] = await runNode({ node: probeNode(fn), parameters: {}, credentials });
	return item.json;
}

async function callError(fn: (this: IExecuteFunctions) => Promise<unknown>) {
	try {
		await call(fn);
	} catch (error) {
		return error as Error & {
			description?: string;
			httpCode?: string;
			context: Record<string, unknown>;
		};
	}
	throw new Error('expected the call to fail');
}

const mocked = useNock();

describe('credential', () => {
	const credential = new GenerationServiceApi();

	it('authenticates with a bearer header and tests with GET /me (no scope needed)', async () => {
		expect(credential.name).toBe('generationServiceApi');
		const options = await credential.authenticate(
			{ apiKey: 'svc_sk_key_abc.def', baseUrl: 'http://127.0.0.1:4010/v1' },
			{ url: '/me', headers: { 'Idempotency-Key': 'k1' } },
		);
		expect(options.headers).toEqual({
			'Idempotency-Key': 'k1',
			Authorization: 'Bearer svc_sk_key_abc.def',
		});
		expect(credential.test.request.url).toBe('/me');
		expect(credential.test.request.method).toBe('GET');
		const apiKey = credential.properties.find((p) => p.name === 'apiKey');
		expect(apiKey?.typeOptions?.password).toBe(true);
		expect(apiKey?.required).toBe(true);
		expect(apiKey?.description).toContain('svc_sk_key_');
		expect(apiKey?.description).toContain('server-side use only');
	});

	describe("the credential's Test button says what is wrong", () => {
		type Rule = { type: string; properties: { value?: unknown; key?: string; message: string } };
		const rules = credential.test.rules as unknown as Rule[];

		/**
		 * The credential's test as n8n's credential test runs it: its request (GET /me below the Base URL
		 * without trailing slashes) with n8n's helper; an error status meets the responseCode rules, a success
		 * the responseSuccessBody rules; else n8n's own words.
		 */
		async function testCredential(apiKey: string, baseUrl: string): Promise<string> {
			let outcome = 'Connection successful!';
			await runNode({
				node: probeNode(async function () {
					try {
						const response = (await this.helpers.httpRequestWithAuthentication.call(
							this,
							'generationServiceApi',
							{
								baseURL: baseUrl.replace(/\/+$/, ''),
								url: '/me',
								method: 'GET',
								returnFullResponse: true,
							},
						)) as { body: unknown };
						const body = response.body as Record<string, unknown> | string;
						for (const rule of rules.filter((r) => r.type === 'responseSuccessBody')) {
							const value =
								typeof body === 'object' && body !== null ? body[rule.properties.key!] : undefined;
							if (value === rule.properties.value) outcome = rule.properties.message;
						}
					} catch (error) {
						const status = Number((error as { httpCode?: string }).httpCode);
						const rule = rules.find(
							(r) => r.type === 'responseCode' && r.properties.value === status,
						);
						outcome = rule ? rule.properties.message : `n8n's own words (HTTP ${status})`;
					}
					return {};
				}),
				parameters: {},
				credentials: { apiKey, baseUrl },
			});
			return outcome;
		}

		it('a Base URL without /v1: nothing answers GET /me there', async () => {
			nock('https://api.gen.test').get('/me').reply(404, { message: 'Route GET:/me not found' });
			expect(await testCredential(TEST_KEY, 'https://api.gen.test/')).toBe(
				'Nothing answers GET /me at this Base URL: it must be the service address ending in /v1, e.g. https://api.example.com/v1 (the local emulator: http://127.0.0.1:4010/v1).',
			);
		});

		it('a web page or a proxy instead of the service', async () => {
			nock(BASE).get('/me').reply(200, '<!DOCTYPE html><html><body>n8n</body></html>', {
				'Content-Type': 'text/html',
			});
			expect(await testCredential(TEST_KEY, BASE)).toMatch(
				/^Something answered at this Base URL, but not the Generation Service \(a web page or a proxy\?\)/,
			);
		});

		it('a wrong key', async () => {
			// n8n's helper asks once more after a 401 (for credentials that refresh a token)
			nock(BASE).get('/me').times(2).reply(401, errorBody('invalid_api_key'));
			expect(await testCredential(TEST_KEY, BASE)).toMatch(
				/^The service did not accept this API key/,
			);
		});

		it('the service itself, with a good key', async () => {
			nock(BASE)
				.get('/me')
				.reply(200, ok({ userId: 'u1', authKind: 'api_key' }));
			expect(await testCredential(TEST_KEY, `${BASE}/`)).toBe('Connection successful!');
		});
	});

	it('sends Authorization: Bearer <key> to the base URL', async () => {
		const scope = nock(BASE)
			.get('/me')
			.matchHeader('authorization', `Bearer ${TEST_KEY}`)
			.reply(200, ok({ userId: 'u1', authKind: 'api_key' }));
		const me = await call(async function () {
			return await apiRequest(this, { method: 'GET', path: '/me' });
		});
		expect(me).toEqual({ userId: 'u1', authKind: 'api_key' });
		expect(scope.isDone()).toBe(true);
	});

	it.each([
		['https://api.gen.test/v1', 'https://api.gen.test/v1'],
		['https://api.gen.test/v1/', 'https://api.gen.test/v1'],
		['http://127.0.0.1:4010/v1', 'http://127.0.0.1:4010/v1'],
		['http://localhost:4010/v1/', 'http://localhost:4010/v1'],
		['http://[::1]:4010/v1', 'http://[::1]:4010/v1'],
	])('base URL %s is accepted as %s', (raw, expected) => {
		expect(checkBaseUrl(raw)).toEqual({ baseUrl: expected });
	});

	it.each([
		['http://api.gen.test/v1', 'plain text'],
		['https://api.gen.test', 'must end in /v1'],
		['https://api.gen.test/v2', 'must end in /v1'],
		['', 'has no Base URL'],
		['not a url', 'not a valid URL'],
		['ftp://api.gen.test/v1', 'must start with https://'],
	])('base URL %j is refused (%s)', (raw, words) => {
		const result = checkBaseUrl(raw);
		expect('problem' in result && result.problem).toContain(words);
	});

	it('refuses a remote http:// base URL before sending anything', async () => {
		const plain = 'http://api.gen.test/v1';
		const scope = nock('http://api.gen.test').get(/.*/).reply(200, ok({}));
		const error = await runNode({
			node: probeNode(async function () {
				return await apiRequest(this, { method: 'GET', path: '/me' });
			}),
			parameters: {},
			credentials: { apiKey: TEST_KEY, baseUrl: plain },
		}).then(
			() => undefined,
			(e: Error) => e,
		);
		expect(error?.message).toContain('uses http:// for "api.gen.test"');
		expect(error?.message).toContain('would travel in plain text');
		expect(scope.isDone()).toBe(false);
		expect(nock.pendingMocks()).toHaveLength(1);
	});
});

describe('retries', () => {
	it('retries a 5xx POST carrying an Idempotency-Key with the same key', async () => {
		const keys: string[] = [];
		nock(BASE)
			.post('/jobs')
			.times(2)
			.reply(function () {
				keys.push(String(this.req.headers['idempotency-key']));
				return keys.length === 1 ? [500, errorBody('internal_error')] : [202, ok({ id: 'job_1' })];
			});
		const job = await call(async function () {
			return await apiRequest(this, {
				method: 'POST',
				path: '/jobs',
				body: { mode: 'text_to_video', prompt: 'x' },
				idempotencyKey: JOB_KEY,
			});
		});
		expect(job).toEqual({ id: 'job_1' });
		expect(keys).toEqual([JOB_KEY, JOB_KEY]);
	});

	it('retries a connection reset with the same key, 3 tries in all, with growing backoff', async () => {
		const at: number[] = [];
		const keys: string[] = [];
		nock(BASE)
			.post('/jobs')
			.times(3)
			.replyWithError(reset())
			.on('request', (req: { headers: Record<string, string> }) => {
				at.push(mocked.clock.state.now);
				keys.push(req.headers['idempotency-key']);
			});
		const error = await callError(async function () {
			return await apiRequest(this, {
				method: 'POST',
				path: '/jobs',
				body: {},
				idempotencyKey: JOB_KEY,
			});
		});
		expect(error.message).toContain(
			'Could not reach the Generation Service: the connection was reset for POST /jobs after 3 tries',
		);
		expect(error.message).toContain(`reuses the Idempotency-Key ${JOB_KEY}`);
		expect(keys).toEqual([JOB_KEY, JOB_KEY, JOB_KEY]);
		// backoff 250–500 ms then 500–1000 ms (jitter fixed at 0.5 in tests: 375, 750), never sooner
		expect(at[1] - at[0]).toBeGreaterThanOrEqual(375);
		expect(at[2] - at[1]).toBeGreaterThanOrEqual(750);
	});

	it('never retries a 4xx', async () => {
		const scope = nock(BASE).post('/jobs').once().reply(402, errorBody('insufficient_credits'));
		const error = await callError(async function () {
			return await apiRequest(this, {
				method: 'POST',
				path: '/jobs',
				body: {},
				idempotencyKey: JOB_KEY,
			});
		});
		expect(scope.isDone()).toBe(true);
		expect(error.context.errorCode).toBe('insufficient_credits');
	});

	it('does not retry a 5xx POST without an Idempotency-Key', async () => {
		const scope = nock(BASE).post('/other').once().reply(500, errorBody('internal_error'));
		const error = await callError(async function () {
			return await sendRequest(this, { method: 'POST', path: '/other', body: {} });
		});
		expect(scope.isDone()).toBe(true);
		expect(error.context.errorCode).toBe('internal_error');
	});
});

describe('pagination', () => {
	const page = (from: number, count: number, next: string | null) =>
		ok({ items: Array.from({ length: count }, (_, i) => ({ id: from + i })), nextCursor: next });

	it('Return All follows nextCursor to the end', async () => {
		nock(BASE)
			.get('/jobs')
			.query({ limit: '100' })
			.reply(200, page(0, 100, 'c1'))
			.get('/jobs')
			.query({ limit: '100', cursor: 'c1' })
			.reply(200, page(100, 100, 'c2'))
			.get('/jobs')
			.query({ limit: '100', cursor: 'c2' })
			.reply(200, page(200, 5, null));
		const result = await call(async function () {
			const items = await apiRequestAllItems(
				this,
				{ method: 'GET', path: '/jobs' },
				{ returnAll: true },
			);
			return { count: items.length };
		});
		expect(result).toEqual({ count: 205 });
		expect(nock.isDone()).toBe(true);
	});

	it('Limit stops early and asks no more pages than needed', async () => {
		const scope = nock(BASE)
			.get('/jobs')
			.query({ limit: '30' })
			.reply(200, page(0, 30, 'c1'));
		const result = await call(async function () {
			const items = await apiRequestAllItems(
				this,
				{ method: 'GET', path: '/jobs' },
				{ returnAll: false, limit: 30 },
			);
			return { count: items.length };
		});
		expect(result).toEqual({ count: 30 });
		expect(scope.isDone()).toBe(true);
	});

	it('Limit over one page asks only for the remainder on the next page', async () => {
		nock(BASE)
			.get('/jobs')
			.query({ limit: '100' })
			.reply(200, page(0, 100, 'c1'))
			.get('/jobs')
			.query({ limit: '20', cursor: 'c1' })
			.reply(200, page(100, 20, 'c2'));
		const result = await call(async function () {
			const items = await apiRequestAllItems(
				this,
				{ method: 'GET', path: '/jobs' },
				{ returnAll: false, limit: 120 },
			);
			return { count: items.length };
		});
		expect(result).toEqual({ count: 120 });
		expect(nock.isDone()).toBe(true);
	});
});

describe('responses that are not the envelope', () => {
	it.each([
		[
			'an HTML page from a proxy',
			'<html><body>502 Bad Gateway</body></html>',
			{ 'Content-Type': 'text/html' },
		],
		['an empty body', '', {}],
		['non-JSON text', 'upstream connect error', { 'Content-Type': 'text/plain' }],
	])('a 4xx with %s gives a clear error', async (_name, body, headers) => {
		nock(BASE).get('/balance').reply(404, body, headers);
		const error = await callError(async function () {
			return await apiRequest(this, { method: 'GET', path: '/balance' });
		});
		expect(error.message).toBe(
			'The service answered HTTP 404 with something that is not its JSON error. Check that the Base URL of the credential points at the service (ending in /v1) and not at a proxy or web page.',
		);
	});

	it('a 200 that is not the envelope gives a clear error', async () => {
		nock(BASE).get('/balance').reply(200, '<html>login</html>', { 'Content-Type': 'text/html' });
		const error = await callError(async function () {
			return await apiRequest(this, { method: 'GET', path: '/balance' });
		});
		expect(error.message).toContain('but not with its JSON envelope');
	});
});

describe('the key never leaks', () => {
	it.each([
		[
			'401 invalid_api_key',
			() => nock(BASE).get('/balance').reply(401, errorBody('invalid_api_key')),
		],
		['connection reset', () => nock(BASE).get('/balance').times(3).replyWithError(reset())],
		['HTML body', () => nock(BASE).get('/balance').reply(502, '<html>bad gateway</html>')],
	])('is absent from the error of a %s', async (_name, setup) => {
		setup();
		const error = await callError(async function () {
			return await apiRequest(this, { method: 'GET', path: '/balance' });
		});
		const serialized =
			JSON.stringify(error) +
			String(error.message) +
			String(error.description) +
			String(error.stack);
		expect(serialized).not.toContain(TEST_KEY);
		expect(serialized).not.toContain(TEST_KEY.split('.')[1]);
	});
});
