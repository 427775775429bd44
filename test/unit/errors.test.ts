import nock from 'nock';

import { apiRequest } from '../../nodes/shared/transport';
import { useNock } from '../helpers/nock';
import { TEST_KEY, runNode } from '../helpers/n8n';
import { probeNode } from '../helpers/probe-node';

const BASE = 'https://api.gen.test/v1';
const WHEN = new Date(Date.UTC(2026, 10, 22, 12, 0, 0) + 120_000).toISOString();

/** Every code of the spec's Errors table → the English message with what to do. */
const TABLE: Array<[number, string, string, string, string]> = [
	[
		400,
		'invalid_field',
		'POST',
		'/jobs/quote',
		'The service rejected a field of the request as invalid. Check the node parameters (ids, prompt length, duration 1–30, aspect ratio) and run again.',
	],
	[
		400,
		'unknown_field',
		'POST',
		'/jobs/quote',
		'The service rejected a field it does not know. Remove extra fields from the request and run again.',
	],
	[
		400,
		'invalid_json',
		'POST',
		'/jobs/quote',
		'The service could not read the request body as JSON. Check the node parameters.',
	],
	[
		400,
		'invalid_idempotency_key',
		'POST',
		'/jobs/quote',
		'The Idempotency-Key is not valid: it must be 16 to 128 characters from A-Z a-z 0-9 _ . : -. Fix the "Idempotency Key" option or leave it empty to let the node make one.',
	],
	[
		401,
		'api_key_required',
		'GET',
		'/balance',
		'No API key was sent. Open the Generation Service credential and fill in the API Key.',
	],
	[
		401,
		'invalid_api_key',
		'GET',
		'/balance',
		'The API key was refused: it is wrong, expired or revoked. Create a new key in the dashboard and update the credential.',
	],
	[
		402,
		'insufficient_credits',
		'POST',
		'/jobs/quote',
		'Not enough credits on the account for this generation. Buy credits in the dashboard, or use a shorter duration.',
	],
	[
		402,
		'key_credit_limit',
		'POST',
		'/jobs/quote',
		"This API key has reached its lifetime credit ceiling. Raise the key's ceiling or create a new key in the dashboard.",
	],
	[
		403,
		'insufficient_scope',
		'GET',
		'/balance',
		'The API key lacks the permission "balance:read" needed by this operation. Create a key with "balance:read" in the dashboard and update the credential.',
	],
	[
		403,
		'origin_forbidden',
		'GET',
		'/balance',
		'The service refused a browser Origin header: API keys work only from servers. Call the service from n8n without an Origin header.',
	],
	[
		404,
		'not_found',
		'GET',
		'/balance',
		'Not found: the resource does not exist or belongs to another account. Check the id.',
	],
	[
		404,
		'asset_not_found',
		'GET',
		'/balance',
		'Asset not found: it does not exist or belongs to another account. Upload the file again or check the asset id.',
	],
	[
		409,
		'idempotency_conflict',
		'POST',
		'/jobs/quote',
		'The Idempotency-Key was already used for a different request. Use another key for a new request, or send exactly the same request to get the earlier result.',
	],
	[
		409,
		'output_not_ready',
		'GET',
		'/balance',
		'The job has not finished, so its video is not ready. Use "Wait for Job" (or Get) until the job has succeeded, then download.',
	],
	[
		409,
		'asset_in_use',
		'GET',
		'/balance',
		'The asset is still referenced by a project, character or publication and cannot be deleted. Remove the reference first.',
	],
	[
		409,
		'billing_financial_review',
		'POST',
		'/jobs/quote',
		'The account is frozen for a financial review, so new generations are blocked (running jobs still finish). Resolve the pending payment matter in the dashboard.',
	],
	[
		413,
		'asset_too_large',
		'GET',
		'/balance',
		'The file is too large for the service: at most 20 MiB per file and 256 MiB / 100 files per account. Compress the file or delete old assets.',
	],
	[
		415,
		'unsupported_media_type',
		'GET',
		'/balance',
		'The file type is not accepted. Use JPEG, PNG, WebP, MP4 or WebM.',
	],
	[
		415,
		'media_signature_mismatch',
		'GET',
		'/balance',
		'The file bytes do not match the declared type (for example a PNG named .jpg). Set the right MIME type or convert the file.',
	],
	[
		422,
		'asset_kind_mismatch',
		'POST',
		'/jobs/quote',
		'The file kind does not fit the mode: character replacement needs a video source and an image reference; image to video needs an image source.',
	],
	[
		422,
		'mode_unavailable',
		'POST',
		'/jobs/quote',
		'This generation mode is not available now. Check Get Capabilities for the accepted modes.',
	],
	[
		429,
		'rate_limited',
		'GET',
		'/balance',
		`Too many requests for this API key. Try again in 120 s (after ${WHEN}). The node does not wait longer than 60 s (option "Max Rate-Limit Wait").`,
	],
	[
		429,
		'ip_rate_limited',
		'GET',
		'/balance',
		`Too many requests from this IP address. Try again in 120 s (after ${WHEN}). The node does not wait longer than 60 s (option "Max Rate-Limit Wait").`,
	],
	[
		429,
		'upload_rate_limit',
		'GET',
		'/balance',
		`Upload limit reached (20 uploads per hour per account). Try again in 120 s (after ${WHEN}). Uploading identical bytes again reuses the existing asset and does not count. The node does not wait longer than 60 s (option "Max Rate-Limit Wait").`,
	],
	[
		503,
		'engine_unavailable',
		'POST',
		'/other',
		'The generation engine is unavailable right now; no credits were reserved. Try again later (see Get Capabilities for the reason).',
	],
	[
		503,
		'storage_unavailable',
		'POST',
		'/other',
		'File storage is unavailable right now; nothing was stored or charged. Try again later.',
	],
	[
		500,
		'internal_error',
		'POST',
		'/other',
		'The service had an internal error. The node already retried with the same Idempotency-Key; run again later (it is safe: the same key never creates a second generation).',
	],
];

useNock();

describe('every error code of the spec becomes a clear English error', () => {
	it('covers each code of the Errors table once', () => {
		expect(new Set(TABLE.map((row) => row[1])).size).toBe(27);
	});

	it.each(TABLE)('HTTP %i %s', async (status, code, method, path, message) => {
		nock(BASE)
			.intercept(path, method)
			.reply(
				status,
				{ error: { code, message: 'mensagem em português' }, requestId: 'req_abc123' },
				{
					'Retry-After': '120',
					'X-Request-Id': 'req_abc123',
				},
			);
		let error:
			| (Error & { description?: string; httpCode?: string; context: Record<string, unknown> })
			| undefined;
		try {
			await runNode({
				node: probeNode(async function () {
					return await apiRequest(this, { method: method as 'GET', path });
				}),
				parameters: {},
				credentials: { apiKey: TEST_KEY, baseUrl: BASE },
			});
		} catch (caught) {
			error = caught as typeof error;
		}
		expect(error?.message).toBe(message);
		expect(error?.httpCode).toBe(String(status));
		expect(error?.context.errorCode).toBe(code);
		expect(error?.description).toContain('mensagem em português');
		expect(error?.description).toContain('Request ID: req_abc123');
		expect(JSON.stringify(error)).not.toContain(TEST_KEY);
	});
});
