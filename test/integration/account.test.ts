import { GenerationServiceAccount } from '../../nodes/GenerationServiceAccount/GenerationServiceAccount.node';
import { responses } from '../../emulator/src/schemas';
import type { Emulated } from '../helpers/emulated';
import { startEmulated } from '../helpers/emulated';
import { runNode } from '../helpers/n8n';

const node = new GenerationServiceAccount();
let env: Emulated;
beforeEach(async () => {
	env = await startEmulated();
});
afterEach(async () => {
	await env.close();
});

const run = (
	operation: string,
	extra: Record<string, unknown> = {},
	apiKey = env.credentials.apiKey,
) =>
	runNode({
		node,
		parameters: { resource: 'account', operation, ...extra } as never,
		credentials: { ...env.credentials, apiKey },
	});

describe('Account node against the emulator', () => {
	it('Get Identity works with a read-only key (GET /me needs no scope)', async () => {
		const [[item]] = await run('getIdentity', {}, env.emu.keys.readOnly);
		responses.me.parse({ data: item.json });
		expect(item.json.authKind).toBe('api_key');
	});

	it('Get Balance, Get Capabilities and Get Plans return the service shapes', async () => {
		const [[balance]] = await run('getBalance');
		responses.balance.parse({ data: balance.json });
		const [[capabilities]] = await run('getCapabilities');
		responses.capabilities.parse({ data: capabilities.json });
		const [[plans]] = await run('getPlans');
		responses.plans.parse({ data: plans.json });
	});

	it('Get Usage returns the ledger; Return All follows every page', async () => {
		for (let i = 0; i < 25; i++) env.emu.control.grantCredits(1);
		const [all] = await run('getUsage', { returnAll: true });
		expect(all.length).toBe(env.emu.control.ledger().entries.length);
		expect(all.length).toBeGreaterThan(25);
		const [few] = await run('getUsage', { returnAll: false, limit: 3 });
		expect(few).toHaveLength(3);
		expect(few[0].json.id).toBe(all[0].json.id);
	});
});
