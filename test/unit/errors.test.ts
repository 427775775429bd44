/**
 * Every code of the spec's Errors table, answered by the service, becomes an English error that names
 * the cause and what to do, keeps the requestId, and shows the service's Portuguese text only labelled
 * as the service's own words. Asserted as behaviour: the words that carry the meaning, not copies.
 */
import nock from 'nock';

import { apiRequest } from '../../nodes/shared/service/client';
import { ERROR_MESSAGES } from '../../nodes/shared/service/errors';
import { useNock } from '../helpers/nock';
import { TEST_KEY, runNode } from '../helpers/n8n';
import { probeNode } from '../helpers/probe-node';

const BASE = 'https://api.gen.test/v1';
const PORTUGUESE = 'mensagem em português';

type Row = [
	status: number,
	code: string,
	method: string,
	path: string,
	cause: RegExp,
	action: RegExp,
];

/** The spec's Errors table: each code, where it can come from, and what the message must convey. */
const SPEC_ERRORS: Row[] = [
	[400, 'invalid_field', 'POST', '/jobs/quote', /field .* invalid/i, /check the node parameters/i],
	[400, 'unknown_field', 'POST', '/jobs/quote', /field it does not know/i, /remove extra fields/i],
	[400, 'invalid_json', 'POST', '/jobs/quote', /as JSON/i, /check the node parameters/i],
	[
		400,
		'invalid_idempotency_key',
		'POST',
		'/jobs',
		/Idempotency-Key is not valid/i,
		/16 to 128 characters/i,
	],
	[401, 'api_key_required', 'GET', '/balance', /No API key/i, /fill in the API Key/i],
	[401, 'invalid_api_key', 'GET', '/balance', /wrong, expired or revoked/i, /create a new key/i],
	[402, 'insufficient_credits', 'POST', '/jobs', /not enough credits/i, /buy credits/i],
	[
		402,
		'key_credit_limit',
		'POST',
		'/jobs',
		/lifetime credit ceiling/i,
		/raise the key's ceiling|new key/i,
	],
	[
		403,
		'insufficient_scope',
		'GET',
		'/balance',
		/lacks the permission "balance:read"/i,
		/create a key with "balance:read"/i,
	],
	[403, 'origin_forbidden', 'GET', '/balance', /browser Origin/i, /from n8n without an Origin/i],
	[
		404,
		'not_found',
		'GET',
		'/jobs/job_0',
		/does not exist or belongs to another account/i,
		/check the id/i,
	],
	[
		404,
		'asset_not_found',
		'POST',
		'/jobs',
		/asset not found/i,
		/upload the file again|check the asset id/i,
	],
	[
		409,
		'idempotency_conflict',
		'POST',
		'/jobs',
		/already used for a different request/i,
		/use another key/i,
	],
	[409, 'output_not_ready', 'GET', '/jobs/job_0/output', /not finished/i, /Wait for Job/i],
	[409, 'asset_in_use', 'DELETE', '/assets/asset_0', /still referenced/i, /remove the reference/i],
	[
		409,
		'billing_financial_review',
		'POST',
		'/jobs',
		/frozen/i,
		/resolve the pending payment matter/i,
	],
	[413, 'asset_too_large', 'POST', '/assets', /too large/i, /compress the file|delete old assets/i],
	[
		415,
		'unsupported_media_type',
		'POST',
		'/assets',
		/type is not accepted/i,
		/JPEG, PNG, WebP, MP4 or WebM/i,
	],
	[
		415,
		'media_signature_mismatch',
		'POST',
		'/assets',
		/do not match the declared type/i,
		/set the right MIME type/i,
	],
	[
		422,
		'asset_kind_mismatch',
		'POST',
		'/jobs',
		/kind does not fit the mode/i,
		/needs a video source/i,
	],
	[422, 'mode_unavailable', 'POST', '/jobs', /mode is not available/i, /Get Capabilities/i],
	[
		429,
		'rate_limited',
		'GET',
		'/balance',
		/too many requests for this API key/i,
		/try again in \d+ s/i,
	],
	[
		429,
		'ip_rate_limited',
		'GET',
		'/balance',
		/too many requests from this IP/i,
		/try again in \d+ s/i,
	],
	[429, 'upload_rate_limit', 'POST', '/assets', /upload limit reached/i, /try again in \d+ s/i],
	[503, 'engine_unavailable', 'POST', '/other', /engine is unavailable/i, /try again later/i],
	[503, 'storage_unavailable', 'POST', '/other', /storage is unavailable/i, /try again later/i],
	[500, 'internal_error', 'POST', '/other', /internal error/i, /same Idempotency-Key/i],
];

useNock();

async function serviceAnswers(row: Row, times = 1) {
	const [status, code, method, path] = row;
	nock(BASE)
		.intercept(path, method)
		.times(times)
		.reply(
			status,
			{ error: { code, message: PORTUGUESE }, requestId: 'req_abc123' },
			{ 'Retry-After': '120', 'X-Request-Id': 'req_abc123' },
		);
	return await runNode({
		node: probeNode(async function () {
			return await apiRequest(this, { method: method as 'GET', path });
		}),
		parameters: {},
		credentials: { apiKey: TEST_KEY, baseUrl: BASE },
	}).then(
		() => undefined,
		(
			caught: Error & { description?: string; httpCode?: string; context: Record<string, unknown> },
		) => caught,
	);
}

describe('every error code of the spec becomes a clear English error', () => {
	it.each(SPEC_ERRORS)('HTTP %i %s', async (...row) => {
		const [status, code, , , cause, action] = row;
		const error = await serviceAnswers(row);
		expect(ERROR_MESSAGES[code]).toBeDefined(); // its own message, not the generic fallback
		expect(error?.message).toMatch(cause);
		expect(error?.message).toMatch(action);
		expect(error?.message).not.toContain(PORTUGUESE);
		expect(error?.httpCode).toBe(String(status));
		expect(error?.context.errorCode).toBe(code);
		expect(error?.context.requestId).toBe('req_abc123');
		expect(error?.description).toContain('Request ID: req_abc123');
		// the service's own (Portuguese) text appears only labelled as such
		expect(error?.description).toContain(`The service's own words (Portuguese): "${PORTUGUESE}"`);
		expect(JSON.stringify(error)).not.toContain(TEST_KEY);
	});

	// internal_error's advice named the Idempotency-Key for every request; only a POST carries one, and a read
	// (a download, a Get) or a delete is safe to run again for its own reason
	it.each([
		['GET', '/jobs/job_1/output', /only reads/i],
		['DELETE', '/assets/asset_1', /deleting again/i],
	])('internal_error on a %s names no Idempotency-Key', async (method, path, safe) => {
		// a read and a delete are retried: every try answers the same
		const error = await serviceAnswers([500, 'internal_error', method, path, /./, /./], 10);
		expect(error?.message).toMatch(/internal error/i);
		expect(error?.message).toMatch(/run again later/i);
		expect(error?.message).toMatch(safe);
		expect(error?.message).not.toMatch(/Idempotency-Key/);
	});

	it('a code outside the table still gives an English error with the code and requestId', async () => {
		const error = await serviceAnswers([418, 'teapot', 'GET', '/balance', /./, /./]);
		expect(error?.message).toContain('code "teapot"');
		expect(error?.description).toContain('Request ID: req_abc123');
	});
});
