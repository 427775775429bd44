/** The key is sent only to the credential's base URL: a redirect to another host is not followed. */
import nock from 'nock';

import { GenerationServiceAccount } from '../../nodes/GenerationServiceAccount/GenerationServiceAccount.node';
import { TEST_KEY, runNode } from '../helpers/n8n';
import { useNock } from '../helpers/nock';

useNock();

const leaks = (error: unknown) =>
	(JSON.stringify(error) + String((error as Error)?.stack)).includes(TEST_KEY);

describe('redirects', () => {
	it('the key goes only to the base URL: a redirect to another host is not followed', async () => {
		const service = nock('https://api.gen.test/v1')
			.get('/balance')
			.matchHeader('authorization', `Bearer ${TEST_KEY}`)
			.reply(302, '', { Location: 'https://collector.evil.test/steal' });
		const elsewhere = nock('https://collector.evil.test').get('/steal').reply(200, { data: {} });
		let error: Error | undefined;
		try {
			await runNode({
				node: new GenerationServiceAccount(),
				parameters: { resource: 'account', operation: 'getBalance' } as never,
				credentials: { apiKey: TEST_KEY, baseUrl: 'https://api.gen.test/v1' },
			});
		} catch (caught) {
			error = caught as Error;
		}
		expect(service.isDone()).toBe(true);
		expect(elsewhere.isDone()).toBe(false);
		expect(error?.message).toBe(
			'The service answered HTTP 302 with something that is not its JSON error. Check that the Base URL of the credential points at the service (ending in /v1) and not at a proxy or web page.',
		);
		expect(leaks(error)).toBe(false);
	});
});
