import nock from 'nock';

import { GenerationServiceAccount } from '../../nodes/GenerationServiceAccount/GenerationServiceAccount.node';
import { useNock } from '../helpers/nock';
import { TEST_KEY, runNode } from '../helpers/n8n';

const BASE = 'https://api.gen.test/v1';
const node = new GenerationServiceAccount();
const run = (parameters: Record<string, unknown>, continueOnFail = false) =>
	runNode({
		node,
		parameters: { resource: 'account', ...parameters } as never,
		credentials: { apiKey: TEST_KEY, baseUrl: BASE },
		continueOnFail,
		items: [{ json: {} }, { json: {} }],
	});

useNock();

describe('Account node: exact requests and output items', () => {
	it.each([
		['getIdentity', '/me', { userId: 'u1', authKind: 'api_key', keyId: 'key_1', scopes: [] }],
		[
			'getBalance',
			'/balance',
			{
				available: 10,
				reserved: 0,
				spent: 0,
				granted: 10,
				revoked: 0,
				debt: 0,
				frozen: false,
				unit: 'credits',
			},
		],
		[
			'getCapabilities',
			'/capabilities',
			{ generation: { available: true, modes: [] }, api: { version: 'v1' } },
		],
		['getPlans', '/billing/plans', { checkoutAvailable: false, offers: [] }],
	])('%s → GET %s with the bearer key, one item per input item', async (operation, path, data) => {
		const scope = nock(BASE)
			.get(path)
			.times(2)
			.matchHeader('authorization', `Bearer ${TEST_KEY}`)
			.matchHeader('accept', /application\/json/)
			.reply(200, { data });
		const [out] = await run({ operation });
		expect(out).toEqual([
			{ json: data, pairedItem: { item: 0 } },
			{ json: data, pairedItem: { item: 1 } },
		]);
		expect(scope.isDone()).toBe(true);
	});

	it('getUsage with a limit asks GET /usage?limit=N and outputs one item per ledger entry', async () => {
		const entry = (id: string) => ({
			id,
			kind: 'grant',
			amount: 5,
			jobId: null,
			apiKeyId: null,
			createdAt: 1,
		});
		nock(BASE)
			.get('/usage')
			.query({ limit: '2' })
			.times(2)
			.reply(200, { data: { items: [entry('a'), entry('b')], nextCursor: 'next' } });
		const [out] = await run({ operation: 'getUsage', returnAll: false, limit: 2 });
		expect(out.map((i) => [i.json.id, i.pairedItem])).toEqual([
			['a', { item: 0 }],
			['b', { item: 0 }],
			['a', { item: 1 }],
			['b', { item: 1 }],
		]);
	});

	it('Continue On Fail turns a 403 into an error item per item, sending the refused request once', async () => {
		const scope = nock(BASE)
			.get('/balance')
			.once()
			.reply(403, {
				error: { code: 'insufficient_scope', message: 'sem permissão' },
				requestId: 'req_9',
			});
		const [out] = await run({ operation: 'getBalance' }, true);
		expect(scope.isDone()).toBe(true);
		expect(out).toHaveLength(2);
		out.forEach((item, i) => {
			expect(item.pairedItem).toEqual({ item: i });
			expect(item.json).toMatchObject({
				code: 'insufficient_scope',
				requestId: 'req_9',
				httpCode: '403',
			});
			expect(item.json.error).toContain('lacks the permission "balance:read"');
		});
		// the second item was not sent: the same request had just been refused
		expect(out[1].json.error).toContain('Not sent again');
	});
});
