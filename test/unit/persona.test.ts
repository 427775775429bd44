import nock from 'nock';
import type { INodeProperties } from 'n8n-workflow';

import codex from '../../nodes/GenerationServicePersona/GenerationServicePersona.node.json';
import { GenerationServicePersona } from '../../nodes/GenerationServicePersona/GenerationServicePersona.node';
import { useNock } from '../helpers/nock';
import { TEST_KEY, runListSearch, runNode } from '../helpers/n8n';

const BASE = 'https://api.gen.test/v1';
const credentials = { apiKey: TEST_KEY, baseUrl: BASE };
const node = new GenerationServicePersona();
const ok = (data: unknown) => ({ data });
const errorBody = (code: string) => ({ error: { code, message: 'mensagem' }, requestId: 'req_7' });

const ID = `prs_${'1c'.repeat(16)}`;
const ID2 = `prs_${'2d'.repeat(16)}`;

function persona(overrides: Record<string, unknown> = {}) {
	return {
		id: ID,
		name: 'Luna',
		description: 'Uma gata astronauta',
		referencePreset: null,
		species: 'cat',
		humorStyle: 'dry',
		blueprint: null,
		identityAssetId: `asset_${'3e'.repeat(16)}`,
		styleAssetId: null,
		createdAt: 1_800_000_000_000,
		updatedAt: 1_800_000_000_000,
		...overrides,
	};
}

async function run(parameters: Record<string, unknown>, continueOnFail = false, itemCount = 1) {
	const [out] = await runNode({
		node,
		parameters: { resource: 'persona', ...parameters } as never,
		items: Array.from({ length: itemCount }, () => ({ json: {} })),
		credentials,
		continueOnFail,
	});
	return out;
}

async function runError(parameters: Record<string, unknown>) {
	try {
		await run(parameters);
	} catch (error) {
		return error as Error & { description?: string; context: Record<string, unknown> };
	}
	throw new Error('expected the node to fail');
}

useNock();

describe('description', () => {
	it('is an n8n-native action node usable as a tool', () => {
		const d = node.description;
		expect(d.name).toBe('generationServicePersona');
		expect(d.usableAsTool).toBe(true);
		expect(d.subtitle).toMatch(/^={{.*\$parameter\["operation"\].*}}$/s); // labels: test/unit/subtitles.test.ts
		expect(d.icon).toEqual({
			light: 'file:../../icons/generationService.svg',
			dark: 'file:../../icons/generationService.dark.svg',
		});
		expect(d.credentials).toEqual([{ name: 'generationServiceApi', required: true }]);
		expect(Object.keys(node.methods.listSearch)).toEqual(['searchPersonas']);
		expect(codex.node).toBe('n8n-nodes-generation-service.generationServicePersona');
		const operation = d.properties.find((p) => p.name === 'operation')!;
		const options = operation.options as Array<{ value: string; description: string }>;
		expect(options.map((o) => o.value)).toEqual(['get', 'getAll']);
		for (const o of options) expect(o.description).toMatch(/GET \/personas.*personas:read.*Free/);
		const picker = d.properties.find((p) => p.name === 'personaId') as INodeProperties;
		expect(picker.type).toBe('resourceLocator');
	});
});

describe('Get Many', () => {
	it('sends GET /personas?limit=N, stops at the limit and outputs one item per persona', async () => {
		let headers: Record<string, unknown> = {};
		const scope = nock(BASE)
			.get('/personas')
			.query({ limit: '2' })
			.reply(function () {
				headers = this.req.headers;
				return [
					200,
					ok({ items: [persona(), persona({ id: ID2, name: 'Biscoito' })], nextCursor: 'c1' }),
				];
			});
		const out = await run({ operation: 'getAll', returnAll: false, limit: 2 });
		expect(scope.isDone()).toBe(true);
		expect(headers.authorization).toBe(`Bearer ${TEST_KEY}`);
		expect(headers.accept).toBe('application/json');
		expect(out).toEqual([
			{ json: persona(), pairedItem: { item: 0 } },
			{ json: persona({ id: ID2, name: 'Biscoito' }), pairedItem: { item: 0 } },
		]);
	});

	it('Return All follows nextCursor to the end', async () => {
		nock(BASE)
			.get('/personas')
			.query({ limit: '100' })
			.reply(200, ok({ items: [persona()], nextCursor: 'c1' }))
			.get('/personas')
			.query({ limit: '100', cursor: 'c1' })
			.reply(200, ok({ items: [persona({ id: ID2 })], nextCursor: null }));
		const out = await run({ operation: 'getAll', returnAll: true });
		expect(nock.isDone()).toBe(true);
		expect(out.map((o) => o.json.id)).toEqual([ID, ID2]);
	});

	it('pairs each input item with its own list', async () => {
		nock(BASE)
			.get('/personas')
			.query({ limit: '1' })
			.times(2)
			.reply(200, ok({ items: [persona()], nextCursor: 'c1' }));
		const out = await run({ operation: 'getAll', returnAll: false, limit: 1 }, false, 2);
		expect(out.map((o) => o.pairedItem)).toEqual([{ item: 0 }, { item: 1 }]);
	});

	it('names the missing scope', async () => {
		nock(BASE).get('/personas').query(true).reply(403, errorBody('insufficient_scope'));
		const error = await runError({ operation: 'getAll', returnAll: false, limit: 5 });
		expect(error.message).toContain('"personas:read"');
	});
});

describe('Get', () => {
	it.each([
		['ID', { __rl: true, mode: 'id', value: ID }],
		['list', { __rl: true, mode: 'list', value: ID }],
	])('sends GET /personas/{id} (%s mode) and outputs the persona', async (_mode, personaId) => {
		const scope = nock(BASE).get(`/personas/${ID}`).reply(200, ok(persona()));
		const out = await run({ operation: 'get', personaId });
		expect(scope.isDone()).toBe(true);
		expect(out).toEqual([{ json: persona(), pairedItem: { item: 0 } }]);
	});

	it('refuses a malformed id locally', async () => {
		const scope = nock(BASE).get(/.*/).reply(200, ok(persona()));
		const error = await runError({
			operation: 'get',
			personaId: { __rl: true, mode: 'id', value: 'persona_1' },
		});
		expect(error.message).toBe(
			'Persona "persona_1" is not a valid persona ID (prs_ followed by 32 lowercase hex characters).',
		);
		expect(scope.isDone()).toBe(false);
	});

	it('with Continue On Fail, a 404 becomes { error, code, requestId } paired with the item', async () => {
		nock(BASE).get(`/personas/${ID}`).reply(404, errorBody('not_found'));
		const out = await run(
			{ operation: 'get', personaId: { __rl: true, mode: 'id', value: ID } },
			true,
		);
		expect(out).toHaveLength(1);
		expect(out[0].pairedItem).toEqual({ item: 0 });
		expect(out[0].json).toMatchObject({ code: 'not_found', requestId: 'req_7' });
		expect(String(out[0].json.error)).toContain('Not found');
	});
});

describe('persona picker', () => {
	it('searchPersonas filters by name and passes the cursor on', async () => {
		nock(BASE)
			.get('/personas')
			.query({ limit: '100' })
			.reply(
				200,
				ok({ items: [persona(), persona({ id: ID2, name: 'Biscoito' })], nextCursor: null }),
			);
		const result = await runListSearch(
			{ node, parameters: { resource: 'persona', operation: 'get' }, credentials },
			'searchPersonas',
			'bisc',
		);
		expect(result).toEqual({
			results: [{ name: `Biscoito (${ID2})`, value: ID2 }],
			paginationToken: undefined,
		});
	});
});

describe('router', () => {
	it('takes the operations from actions/persona/index.ts and nothing else it exports', async () => {
		// `description` is exported by the same index: it is not an operation
		const error = await runError({ operation: 'description' });
		expect(error.message).toBe('The operation "description" is not supported');
		expect((await runError({ operation: 'toString' })).message).toBe(
			'The operation "toString" is not supported',
		);
	});
});
