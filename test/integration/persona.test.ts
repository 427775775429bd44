/** The Persona node over real HTTP against the local emulator. */
import type { IDataObject } from 'n8n-workflow';

import { PersonaSchema } from '../../emulator/src/schemas';
import { GenerationServicePersona } from '../../nodes/GenerationServicePersona/GenerationServicePersona.node';
import type { Emulated } from '../helpers/emulated';
import { fails, startEmulated } from '../helpers/emulated';
import { runListSearch, runNode } from '../helpers/n8n';

type Emulator = Emulated['emu'];

const node = new GenerationServicePersona();
const byId = (value: string) => ({ __rl: true, mode: 'id', value });

let env: Emulated;
let emu: Emulator;
beforeEach(async () => {
	env = await startEmulated({ jobTiming: { queuedMs: 0, runningMs: 0 } });
	emu = env.emu;
});
afterEach(async () => {
	await env.close();
});

async function run(
	parameters: IDataObject,
	options: { key?: string; continueOnFail?: boolean; items?: number } = {},
) {
	const [out] = await runNode({
		node,
		parameters: { resource: 'persona', ...parameters } as never,
		items: Array.from({ length: options.items ?? 1 }, () => ({ json: {} })),
		credentials: { apiKey: options.key ?? emu.keys.full, baseUrl: emu.baseUrl },
		continueOnFail: options.continueOnFail,
	});
	return out;
}

describe('Persona node against the emulator', () => {
	it('Get Many (Return All) lists the studio characters, one item each', async () => {
		const out = await run({ operation: 'getAll', returnAll: true });
		expect(out.map((o) => o.json.name).sort()).toEqual(['Biscoito', 'Luna']);
		for (const item of out) {
			PersonaSchema.parse(item.json);
			expect(item.pairedItem).toEqual({ item: 0 });
		}
		expect(emu.control.journal().map((e) => [e.method, e.path, e.query, e.status])).toEqual([
			['GET', '/v1/personas', 'limit=100', 200],
		]);
	});

	it('Get Many with Limit 1 asks for one and stops', async () => {
		const out = await run({ operation: 'getAll', returnAll: false, limit: 1 });
		expect(out).toHaveLength(1);
		expect(emu.control.journal().map((e) => e.query)).toEqual(['limit=1']);
	});

	it('Get returns the persona picked by id, with the read-only key too', async () => {
		const [luna] = (await run({ operation: 'getAll', returnAll: true })).filter(
			(o) => o.json.name === 'Luna',
		);
		const [item] = await run(
			{ operation: 'get', personaId: byId(String(luna.json.id)) },
			{ key: emu.keys.readOnly },
		);
		expect(item).toEqual({ json: luna.json, pairedItem: { item: 0 } });
		expect(item.json.identityAssetId).toEqual(expect.stringMatching(/^asset_[0-9a-f]{32}$/));
	});

	it('Get of an unknown persona gives the clear not-found message', async () => {
		const error = await fails(run({ operation: 'get', personaId: byId(`prs_${'f'.repeat(32)}`) }));
		expect(error.message).toContain(
			`Not found: prs_${'f'.repeat(32)} does not exist or belongs to another account`,
		);
		expect(error.httpCode).toBe('404');
	});

	it('a key without personas:read is told which permission it lacks; Continue On Fail keeps the code', async () => {
		const { secret } = emu.control.createKey({ scopes: ['assets:read'] });
		const error = await fails(run({ operation: 'getAll', returnAll: true }, { key: secret }));
		expect(error.message).toContain('"personas:read"');

		const out = await run(
			{ operation: 'getAll', returnAll: false, limit: 10 },
			{ key: secret, continueOnFail: true, items: 2 },
		);
		const refused = emu.control.journal().filter((e) => e.errorCode === 'insufficient_scope');
		// item 1 asks exactly what item 0 was refused: it fails at once with the same answer
		expect(refused).toHaveLength(2);
		expect(out).toEqual(
			[0, 1].map((item) => ({
				json: expect.objectContaining({
					code: 'insufficient_scope',
					requestId: refused[1].requestId,
				}),
				pairedItem: { item },
			})),
		);
	});

	it('the persona picker searches by name', async () => {
		const result = await runListSearch(
			{
				node,
				parameters: { resource: 'persona', operation: 'get' },
				credentials: { apiKey: emu.keys.full, baseUrl: emu.baseUrl },
			},
			'searchPersonas',
			'lun',
		);
		expect(result.results).toHaveLength(1);
		expect(result.results[0].name).toMatch(/^Luna \(prs_[0-9a-f]{32}\)$/);
	});
});
