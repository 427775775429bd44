import { ALL_CASES, runBadInput } from './bad-inputs';
import { record } from './metrics';

describe('bad inputs to the four nodes and the credential', () => {
	it.each(ALL_CASES.map((c) => [c.name, c] as const))('%s', async (_name, c) => {
		const { error, requests } = await runBadInput(c);
		if (!c.accepted) {
			if (typeof c.message === 'string') expect(error?.message).toBe(c.message);
			else expect(error?.message).toMatch(c.message);
		}
		if (c.sent) expect(requests).toBeGreaterThan(0);
		else expect(requests).toBe(0);
		record('badInput', { name: c.name, refusedLocally: !c.sent, repaired: !!c.accepted });
	});
});
