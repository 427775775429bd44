import nock from 'nock';
import type { IExecuteFunctions } from 'n8n-workflow';

import { apiRequest } from '../../nodes/shared/service/client';
import { findSsrfBlock } from '../../nodes/shared/service/errors';
import { useNock } from '../helpers/nock';
import { TEST_KEY, runNode } from '../helpers/n8n';
import { probeNode } from '../helpers/probe-node';

const BASE = 'https://api.gen.test/v1';
const credentials = { apiKey: TEST_KEY, baseUrl: BASE };

/** Shaped like n8n 2.41's @n8n/backend-network errors: a UserError with this name and no code. */
function ssrfIpError(ip: string) {
	return Object.assign(
		new Error('The request was blocked because it resolves to a restricted IP address'),
		{ name: 'SsrfBlockedIpError', ip },
	);
}

function ssrfHostnameError(hostname: string) {
	return Object.assign(
		new Error('The request was blocked because the destination hostname is restricted'),
		{ name: 'SsrfBlockedHostnameError', hostname },
	);
}

async function callError(fn: (this: IExecuteFunctions) => Promise<unknown>) {
	try {
		await runNode({ node: probeNode(fn), parameters: {}, credentials });
	} catch (error) {
		return error as Error & { description?: string; context: Record<string, unknown> };
	}
	throw new Error('expected the call to fail');
}

useNock();

describe('SSRF protection', () => {
	it('finds the block through the wrappers n8n and axios put around it', () => {
		expect(findSsrfBlock(ssrfIpError('10.0.0.5'))).toEqual({ kind: 'ip', target: '10.0.0.5' });
		expect(
			findSsrfBlock({ message: 'x', cause: { cause: ssrfHostnameError('svc.internal') } }),
		).toEqual({ kind: 'hostname', target: 'svc.internal' });
		expect(findSsrfBlock(Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }))).toBe(
			undefined,
		);
		// branches on the class name, not on prose
		expect(
			findSsrfBlock(
				new Error('The request was blocked because it resolves to a restricted IP address'),
			),
		).toBe(undefined);
	});

	it('an Upload blocked by n8n says so, names the settings that allow it, and is not retried', async () => {
		const scope = nock(BASE).post('/assets').once().replyWithError(ssrfIpError('10.0.0.5'));
		const error = await callError(async function () {
			return await apiRequest(this, {
				method: 'POST',
				path: '/assets',
				body: {},
				idempotencyKey: ['n8n', 'asset', '0123456789abcdef'].join('.'),
			});
		});
		expect(error.message).toBe(
			"n8n's SSRF protection blocked the request to the Generation Service (POST /assets): the address 10.0.0.5 is in a range n8n blocks. If the service really is there, allow it on the n8n instance: add its host name to N8N_SSRF_ALLOWED_HOSTNAMES or its address range (for example 10.0.0.5/32) to N8N_SSRF_ALLOWED_IP_RANGES, then restart n8n. Nothing was sent to the service.",
		);
		expect(error.description).toContain('N8N_SSRF_PROTECTION_ENABLED=true');
		expect(error.context.errorCode).toBe('ssrf_blocked');
		expect(scope.isDone()).toBe(true);
		expect(nock.pendingMocks()).toEqual([]);
		const serialized = JSON.stringify(error) + String(error.message) + String(error.stack);
		expect(serialized).not.toContain(TEST_KEY.split('.')[1]);
	});

	it('a blocked host name is named as such', async () => {
		nock(BASE).get('/balance').once().replyWithError(ssrfHostnameError('api.gen.test'));
		const error = await callError(async function () {
			return await apiRequest(this, { method: 'GET', path: '/balance' });
		});
		expect(error.message).toContain('(GET /balance): the host name api.gen.test is in a range');
		expect(error.message).toContain('N8N_SSRF_ALLOWED_HOSTNAMES');
	});
});
