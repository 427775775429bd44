import { createHash } from 'crypto';

import { responses } from '../../emulator/src/schemas';
import { boot, bearer, expectError, idem, jpeg, mp4, png, upload } from './helpers';
import type { Harness } from './helpers';

const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

describe('emulator: endpoints and error codes', () => {
	let h: Harness;
	let full: string;
	let seededImage: string;
	let seededVideo: string;
	let personaId: string;

	beforeAll(async () => {
		h = await boot();
		full = h.emu.keys.full;
		const assets = h.emu.control.assets();
		seededImage = assets.find((a) => a.filename === 'character.jpg')!.id;
		seededVideo = assets.find((a) => a.filename === 'sample-video.mp4')!.id;
		const personas = await h.http.get('/personas', { headers: bearer(full) });
		personaId = responses.personaList.parse(personas.data).data.items[0].id;
	});
	afterAll(() => h.emu.close());

	const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
		h.http.post(path, Buffer.isBuffer(body) ? body : JSON.stringify(body), {
			headers: { ...bearer(full), 'Content-Type': 'application/json', ...headers },
		});

	test('baseUrl has no trailing slash', () => {
		expect(h.emu.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);
	});

	test('GET /v1/capabilities is public', async () => {
		const res = await h.http.get('/capabilities');
		expect(res.status).toBe(200);
		const caps = responses.capabilities.parse(res.data).data;
		expect(caps.api.version).toBe('v1');
		expect(caps.generation.available).toBe(true);
		expect(res.headers['x-request-id']).toMatch(/^req_/);
	});

	test('GET /v1/billing/plans is public', async () => {
		const res = await h.http.get('/billing/plans');
		expect(res.status).toBe(200);
		expect(responses.plans.parse(res.data).data.offers.length).toBeGreaterThan(0);
	});

	test('GET /v1/me with rate-limit headers', async () => {
		const res = await h.http.get('/me', { headers: bearer(h.emu.keys.readOnly) });
		expect(res.status).toBe(200);
		const me = responses.me.parse(res.data).data;
		expect(me.authKind).toBe('api_key');
		expect(me.scopes).not.toContain('jobs:write');
		expect(Number(res.headers['x-ratelimit-limit'])).toBe(120);
		expect(Number(res.headers['x-ratelimit-remaining'])).toBe(119);
		expect(Number(res.headers['x-ratelimit-reset'])).toBe(
			Math.ceil((h.clock.t - (h.clock.t % 60000) + 60000) / 1000),
		);
	});

	test('GET /v1/balance', async () => {
		const res = await h.http.get('/balance', { headers: bearer(full) });
		expect(res.status).toBe(200);
		expect(responses.balance.parse(res.data).data.granted).toBe(1000);
	});

	test('GET /v1/usage pages the ledger newest first', async () => {
		const res = await h.http.get('/usage', { headers: bearer(full), params: { limit: 1 } });
		expect(res.status).toBe(200);
		expect(responses.usage.parse(res.data).data.items[0].kind).toBe('grant');
	});

	test('401 api_key_required when no key', async () => {
		expectError(await h.http.get('/me'), 401, 'api_key_required');
	});

	test.each([
		['malformed', () => 'Bearer nope'],
		['not bearer', () => `Basic ${full}`],
		['unknown', () => `Bearer svc_sk_key_${'a'.repeat(32)}.${'b'.repeat(64)}`],
		[
			'wrong secret for a known key id',
			() => `Bearer ${full.slice(0, -1)}${full.endsWith('0') ? '1' : '0'}`,
		],
	])('401 invalid_api_key (%s)', async (_name, authorization) => {
		const res = await h.http.get('/me', { headers: { Authorization: authorization() } });
		expectError(res, 401, 'invalid_api_key');
	});

	test('401 invalid_api_key for revoked and expired keys', async () => {
		const revoked = h.emu.control.createKey();
		expect((await h.http.get('/me', { headers: bearer(revoked.secret) })).status).toBe(200);
		h.emu.control.revokeKey(revoked.keyId);
		expectError(
			await h.http.get('/me', { headers: bearer(revoked.secret) }),
			401,
			'invalid_api_key',
		);
		const expiring = h.emu.control.createKey({ expiresAt: h.clock.t + 1000 });
		expect((await h.http.get('/me', { headers: bearer(expiring.secret) })).status).toBe(200);
		h.clock.t += 1000;
		expectError(
			await h.http.get('/me', { headers: bearer(expiring.secret) }),
			401,
			'invalid_api_key',
		);
	});

	test('createKey with a caller-chosen secret; only its hash is stored', async () => {
		const secret = `svc_sk_key_${'c'.repeat(32)}.${'d'.repeat(64)}`;
		const created = h.emu.control.createKey({ secret, scopes: ['balance:read'] });
		expect(created.keyId).toBe(`key_${'c'.repeat(32)}`);
		expect(JSON.stringify(h.emu.control.snapshot())).not.toContain(secret);
		expect((await h.http.get('/balance', { headers: bearer(secret) })).status).toBe(200);
	});

	test('403 origin_forbidden when an Origin header is sent', async () => {
		const res = await h.http.get('/me', {
			headers: { ...bearer(full), Origin: 'https://evil.example' },
		});
		expectError(res, 403, 'origin_forbidden');
	});

	test('403 insufficient_scope for the read-only key', async () => {
		const res = await post(
			'/jobs/quote',
			{ mode: 'text_to_video', prompt: 'x' },
			bearer(h.emu.keys.readOnly),
		);
		expectError(res, 403, 'insufficient_scope');
		expect(res.headers['x-ratelimit-limit']).toBe('120');
	});

	test('429 rate_limited with an integer Retry-After', async () => {
		const slow = h.emu.control.createKey({ requestsPerMinute: 2 });
		await h.http.get('/me', { headers: bearer(slow.secret) });
		await h.http.get('/me', { headers: bearer(slow.secret) });
		const res = await h.http.get('/me', { headers: bearer(slow.secret) });
		expectError(res, 429, 'rate_limited');
		expect(res.headers['retry-after']).toMatch(/^\d+$/);
		expect(res.headers['x-ratelimit-remaining']).toBe('0');
		h.clock.t += 60_000;
		expect((await h.http.get('/me', { headers: bearer(slow.secret) })).status).toBe(200);
	});

	describe('assets', () => {
		test('POST /v1/assets uploads (201), replays (200) and conflicts (409 idempotency_conflict)', async () => {
			const key = idem('upload');
			const first = await upload(h, full, png, 'image/png', 'rosto 1.png', key);
			expect(first.status).toBe(201);
			const created = responses.upload.parse(first.data).data;
			expect(created.asset.filename).toBe('rosto 1.png');
			expect(created.replayed).toBe(false);
			const again = await upload(h, full, png, 'image/png', 'rosto 1.png', key);
			expect(again.status).toBe(200);
			const replay = responses.upload.parse(again.data).data;
			expect(replay).toEqual({ asset: created.asset, replayed: true });
			expectError(
				await upload(h, full, jpeg, 'image/jpeg', 'x.jpg', key),
				409,
				'idempotency_conflict',
			);
		});

		test('GET /v1/assets pages with quota; GET one; content 200/206', async () => {
			const list = await h.http.get('/assets', { headers: bearer(full), params: { limit: 2 } });
			expect(list.status).toBe(200);
			const page1 = responses.assetList.parse(list.data).data;
			expect(page1.items).toHaveLength(2);
			expect(page1.nextCursor).not.toBeNull();
			const list2 = await h.http.get('/assets', {
				headers: bearer(full),
				params: { limit: 2, cursor: page1.nextCursor },
			});
			const page2 = responses.assetList.parse(list2.data).data;
			expect(page2.items[0].createdAt).toBeLessThanOrEqual(page1.items[1].createdAt);
			expect(page2.items.map((a) => a.id)).not.toContain(page1.items[0].id);

			const one = await h.http.get(`/assets/${seededVideo}`, { headers: bearer(full) });
			expect(responses.asset.parse(one.data).data.kind).toBe('video');

			const content = await h.http.get(`/assets/${seededVideo}/content`, {
				headers: bearer(full),
				responseType: 'arraybuffer',
			});
			expect(content.status).toBe(200);
			expect(Buffer.from(content.data).equals(mp4)).toBe(true);
			const part = await h.http.get(`/assets/${seededVideo}/content`, {
				headers: { ...bearer(full), Range: 'bytes=4-11' },
				responseType: 'arraybuffer',
			});
			expect(part.status).toBe(206);
			expect(part.headers['content-range']).toBe(`bytes 4-11/${mp4.length}`);
			expect(Buffer.from(part.data).toString('latin1')).toBe(
				mp4.subarray(4, 12).toString('latin1'),
			);
		});

		test.each(['bytes=999999-', 'bytes=5-2', 'items=0-1', 'bytes=0-1,4-5'])(
			'416 range_not_satisfiable on content for %s',
			async (range) => {
				const res = await h.http.get(`/assets/${seededVideo}/content`, {
					headers: { ...bearer(full), Range: range },
					responseType: 'arraybuffer',
				});
				expectError(res, 416, 'range_not_satisfiable');
				expect(res.headers['content-range']).toBe(`bytes */${mp4.length}`);
			},
		);

		test('400 invalid_idempotency_key on upload without or with a bad key', async () => {
			const res = await h.http.post('/assets', png, {
				headers: { ...bearer(full), 'X-Service-Filename': 'a.png', 'Content-Type': 'image/png' },
			});
			expectError(res, 400, 'invalid_idempotency_key');
			expectError(
				await upload(h, full, png, 'image/png', 'a.png', 'short'),
				400,
				'invalid_idempotency_key',
			);
		});

		test('400 invalid_field for a missing or too long X-Service-Filename', async () => {
			const res = await h.http.post('/assets', png, {
				headers: { ...bearer(full), 'Idempotency-Key': idem(), 'Content-Type': 'image/png' },
			});
			expectError(res, 400, 'invalid_field');
			expectError(await upload(h, full, png, 'image/png', 'é'.repeat(31)), 400, 'invalid_field');
			expect((await upload(h, full, png, 'image/png', 'a'.repeat(180))).status).toBe(201);
		});

		test('415 unsupported_media_type', async () => {
			expectError(await upload(h, full, png, 'image/gif', 'a.gif'), 415, 'unsupported_media_type');
		});

		test('415 media_signature_mismatch', async () => {
			expectError(
				await upload(h, full, png, 'image/jpeg', 'a.jpg'),
				415,
				'media_signature_mismatch',
			);
			expectError(
				await upload(h, full, png, 'video/mp4', 'a.mp4'),
				415,
				'media_signature_mismatch',
			);
		});

		test('every accepted signature uploads', async () => {
			const webp = Buffer.concat([Buffer.from('RIFF'), Buffer.alloc(4), Buffer.from('WEBPVP8 ')]);
			const webm = Buffer.from([0x1a, 0x45, 0xdf, 0xa3, 0, 0, 0, 0]);
			for (const [bytes, type] of [
				[jpeg, 'image/jpeg'],
				[png, 'image/png'],
				[webp, 'image/webp'],
				[mp4, 'video/mp4'],
				[webm, 'video/webm'],
			] as Array<[Buffer, string]>) {
				expect((await upload(h, full, bytes, type)).status).toBe(201);
			}
		});

		test('413 asset_too_large above 20 MiB', async () => {
			const big = Buffer.alloc(20 * 1024 * 1024 + 1);
			png.copy(big);
			expectError(await upload(h, full, big, 'image/png', 'big.png'), 413, 'asset_too_large');
		});

		test('503 storage_unavailable while uploads are off', async () => {
			h.emu.control.setUploads(false);
			expectError(await upload(h, full, png, 'image/png'), 503, 'storage_unavailable');
			h.emu.control.setUploads(true);
		});

		test('404 asset_not_found; DELETE /v1/assets/{id}; 409 asset_in_use', async () => {
			const missing = `asset_${'0'.repeat(32)}`;
			expectError(
				await h.http.get(`/assets/${missing}`, { headers: bearer(full) }),
				404,
				'asset_not_found',
			);
			const personaImage = h.emu.control.assets().find((a) => a.filename === 'character.png')!.id;
			expectError(
				await h.http.delete(`/assets/${personaImage}`, { headers: bearer(full) }),
				409,
				'asset_in_use',
			);
			const created = responses.upload.parse((await upload(h, full, jpeg, 'image/jpeg')).data).data;
			const del = await h.http.delete(`/assets/${created.asset.id}`, { headers: bearer(full) });
			expect(del.status).toBe(200);
			expect(responses.assetDeleted.parse(del.data).data).toEqual({
				id: created.asset.id,
				deleted: true,
			});
			expectError(
				await h.http.delete(`/assets/${created.asset.id}`, { headers: bearer(full) }),
				404,
				'asset_not_found',
			);
		});
	});

	describe('personas', () => {
		test('GET /v1/personas lists the two seeded characters; GET one; 404 not_found', async () => {
			const list = await h.http.get('/personas', { headers: bearer(full) });
			expect(responses.personaList.parse(list.data).data.items).toHaveLength(2);
			const one = await h.http.get(`/personas/${personaId}`, { headers: bearer(full) });
			expect(responses.persona.parse(one.data).data.id).toBe(personaId);
			const missing = await h.http.get(`/personas/prs_${'0'.repeat(32)}`, {
				headers: bearer(full),
			});
			expectError(missing, 404, 'not_found');
		});
	});

	describe('jobs', () => {
		test('POST /v1/jobs/quote prices per started 5 s block and reserves nothing', async () => {
			const before = h.emu.control.ledger().balance;
			const cases: Array<[Record<string, unknown>, number]> = [
				[{ mode: 'character_replacement', sourceAssetId: seededVideo, personaId }, 10],
				[
					{
						mode: 'character_replacement',
						sourceAssetId: seededVideo,
						referenceAssetId: seededImage,
						durationSeconds: 10,
					},
					20,
				],
				[
					{
						mode: 'character_replacement',
						sourceAssetId: seededVideo,
						personaId,
						durationSeconds: 11,
					},
					30,
				],
				[
					{
						mode: 'image_to_video',
						sourceAssetId: seededImage,
						prompt: 'acena',
						durationSeconds: 1,
					},
					8,
				],
				[{ mode: 'text_to_video', prompt: 'um gato', durationSeconds: 30 }, 48],
			];
			for (const [input, credits] of cases) {
				const res = await post('/jobs/quote', input);
				expect(res.status).toBe(200);
				const quote = responses.quote.parse(res.data).data;
				expect(quote.reservedCredits).toBe(credits);
				expect(quote.sufficient).toBe(true);
			}
			expect(h.emu.control.ledger().balance).toEqual(before);
			const tiny = await post(
				'/jobs/quote',
				{ mode: 'text_to_video', prompt: 'x', durationSeconds: 10 },
				bearer(h.emu.keys.tinyCeiling),
			);
			const q = responses.quote.parse(tiny.data).data;
			expect(q).toMatchObject({ keyRemaining: 10, sufficient: false });
		});

		test('400 invalid_json', async () => {
			expectError(await post('/jobs/quote', Buffer.from('{"mode":')), 400, 'invalid_json');
			const res = await post('/jobs', Buffer.from('not json'), { 'Idempotency-Key': idem() });
			expectError(res, 400, 'invalid_json');
		});

		test('400 unknown_field', async () => {
			expectError(
				await post('/jobs/quote', { mode: 'text_to_video', prompt: 'x', seed: 1 }),
				400,
				'unknown_field',
			);
		});

		test.each([
			['bad mode', { mode: 'video' }],
			['prompt too long', { mode: 'text_to_video', prompt: 'x'.repeat(2001) }],
			['duration 0', { mode: 'text_to_video', prompt: 'x', durationSeconds: 0 }],
			['duration 31', { mode: 'text_to_video', prompt: 'x', durationSeconds: 31 }],
			['duration 2.5', { mode: 'text_to_video', prompt: 'x', durationSeconds: 2.5 }],
			['aspect ratio', { mode: 'text_to_video', prompt: 'x', aspectRatio: '4:3' }],
			['bad asset id', { mode: 'image_to_video', prompt: 'x', sourceAssetId: 'asset_1' }],
			[
				'replacement without source',
				{ mode: 'character_replacement', personaId: 'prs_'.padEnd(36, 'a') },
			],
			[
				'replacement with both',
				{
					mode: 'character_replacement',
					sourceAssetId: 'asset_'.padEnd(38, 'a'),
					referenceAssetId: 'asset_'.padEnd(38, 'b'),
					personaId: 'prs_'.padEnd(36, 'a'),
				},
			],
			[
				'replacement with neither',
				{ mode: 'character_replacement', sourceAssetId: 'asset_'.padEnd(38, 'a') },
			],
			[
				'image_to_video without prompt',
				{ mode: 'image_to_video', sourceAssetId: 'asset_'.padEnd(38, 'a') },
			],
			[
				'image_to_video with persona',
				{
					mode: 'image_to_video',
					prompt: 'x',
					sourceAssetId: 'asset_'.padEnd(38, 'a'),
					personaId: 'prs_'.padEnd(36, 'a'),
				},
			],
			['text_to_video without prompt', { mode: 'text_to_video' }],
			[
				'text_to_video with an asset',
				{ mode: 'text_to_video', prompt: 'x', sourceAssetId: 'asset_'.padEnd(38, 'a') },
			],
			['body not an object', [1, 2]],
		])('400 invalid_field (%s)', async (_name, body) => {
			expectError(await post('/jobs/quote', body), 400, 'invalid_field');
		});

		test('404 asset_not_found and 404 not_found (persona) on quote', async () => {
			const missingAsset = {
				mode: 'character_replacement',
				sourceAssetId: `asset_${'0'.repeat(32)}`,
				personaId,
			};
			expectError(await post('/jobs/quote', missingAsset), 404, 'asset_not_found');
			const missingPersona = {
				mode: 'character_replacement',
				sourceAssetId: seededVideo,
				personaId: `prs_${'0'.repeat(32)}`,
			};
			expectError(await post('/jobs/quote', missingPersona), 404, 'not_found');
		});

		test('422 asset_kind_mismatch', async () => {
			expectError(
				await post('/jobs/quote', {
					mode: 'character_replacement',
					sourceAssetId: seededImage,
					personaId,
				}),
				422,
				'asset_kind_mismatch',
			);
			expectError(
				await post('/jobs/quote', {
					mode: 'image_to_video',
					sourceAssetId: seededVideo,
					prompt: 'x',
				}),
				422,
				'asset_kind_mismatch',
			);
			expectError(
				await post('/jobs/quote', {
					mode: 'character_replacement',
					sourceAssetId: seededVideo,
					referenceAssetId: seededVideo,
				}),
				422,
				'asset_kind_mismatch',
			);
		});

		test('422 mode_unavailable', async () => {
			h.emu.control.setModes(['character_replacement']);
			const caps = responses.capabilities.parse((await h.http.get('/capabilities')).data).data;
			expect(caps.generation.modes).toEqual(['character_replacement']);
			expectError(
				await post('/jobs/quote', { mode: 'text_to_video', prompt: 'x' }),
				422,
				'mode_unavailable',
			);
			h.emu.control.setModes(['character_replacement', 'image_to_video', 'text_to_video']);
		});

		test('503 engine_unavailable on quote and create; nothing reserved', async () => {
			h.emu.control.setEngine(false, 'manutenção');
			const caps = responses.capabilities.parse((await h.http.get('/capabilities')).data).data;
			expect(caps.generation).toMatchObject({ available: false, reason: 'manutenção' });
			const before = h.emu.control.ledger().entries.length;
			expectError(
				await post('/jobs/quote', { mode: 'text_to_video', prompt: 'x' }),
				503,
				'engine_unavailable',
			);
			expectError(
				await post('/jobs', { mode: 'text_to_video', prompt: 'x' }, { 'Idempotency-Key': idem() }),
				503,
				'engine_unavailable',
			);
			expect(h.emu.control.ledger().entries.length).toBe(before);
			expect((await h.http.get('/balance', { headers: bearer(full) })).status).toBe(200);
			h.emu.control.setEngine(true);
		});

		test('400 invalid_idempotency_key on POST /v1/jobs', async () => {
			expectError(
				await post('/jobs', { mode: 'text_to_video', prompt: 'x' }),
				400,
				'invalid_idempotency_key',
			);
			expectError(
				await post(
					'/jobs',
					{ mode: 'text_to_video', prompt: 'x' },
					{ 'Idempotency-Key': 'bad key with spaces!' },
				),
				400,
				'invalid_idempotency_key',
			);
		});

		test('POST /v1/jobs 202, replay 200 without charge, 409 idempotency_conflict', async () => {
			const key = idem('job');
			const body = { mode: 'character_replacement', sourceAssetId: seededVideo, personaId };
			const first = await post('/jobs', body, { 'Idempotency-Key': key });
			expect(first.status).toBe(202);
			const job = responses.job.parse(first.data).data;
			expect(job).toMatchObject({ state: 'queued', reservedCredits: 10, replayed: false });
			const entries = h.emu.control.ledger().entries.length;
			const again = await post(
				'/jobs',
				{ personaId, sourceAssetId: seededVideo, mode: 'character_replacement' },
				{ 'Idempotency-Key': key },
			);
			expect(again.status).toBe(200);
			const replay = responses.job.parse(again.data).data;
			expect(replay.id).toBe(job.id);
			expect(replay.replayed).toBe(true);
			expect(h.emu.control.ledger().entries.length).toBe(entries);
			expectError(
				await post('/jobs', { ...body, durationSeconds: 10 }, { 'Idempotency-Key': key }),
				409,
				'idempotency_conflict',
			);
		});

		test('jobs move queued → running → succeeded on the clock; output 409 output_not_ready then 200/206/416', async () => {
			h.emu.control.scriptJobs([{ queuedMs: 1000, runningMs: 2000 }]);
			const res = await post(
				'/jobs',
				{ mode: 'text_to_video', prompt: 'um gato' },
				{ 'Idempotency-Key': idem() },
			);
			const job = responses.job.parse(res.data).data;
			const get = () => h.http.get(`/jobs/${job.id}`, { headers: bearer(full) });
			expect(responses.job.parse((await get()).data).data.state).toBe('queued');
			expectError(
				await h.http.get(`/jobs/${job.id}/output`, {
					headers: bearer(full),
					responseType: 'arraybuffer',
				}),
				409,
				'output_not_ready',
			);
			h.clock.t += 1000;
			expect(responses.job.parse((await get()).data).data.state).toBe('running');
			h.clock.t += 2000;
			const done = responses.job.parse((await get()).data).data;
			expect(done).toMatchObject({
				state: 'succeeded',
				chargedCredits: 7,
				outputUrl: `/v1/jobs/${job.id}/output`,
			});
			expect(done.updatedAt).toBe(job.createdAt + 3000);
			const out = await h.http.get(`/jobs/${job.id}/output`, {
				headers: bearer(full),
				responseType: 'arraybuffer',
			});
			expect(out.status).toBe(200);
			expect(out.headers['content-type']).toBe('video/mp4');
			const bytes = Buffer.from(out.data);
			expect(sha(bytes)).toBe(done.output!.sha256);
			expect(bytes.toString('latin1', 4, 8)).toBe('ftyp');
			expect(bytes.includes(Buffer.from(job.id))).toBe(true);
			const part = await h.http.get(`/jobs/${job.id}/output`, {
				headers: { ...bearer(full), Range: `bytes=-10` },
				responseType: 'arraybuffer',
			});
			expect(part.status).toBe(206);
			expect(part.headers['content-range']).toBe(
				`bytes ${bytes.length - 10}-${bytes.length - 1}/${bytes.length}`,
			);
			const bad = await h.http.get(`/jobs/${job.id}/output`, {
				headers: { ...bearer(full), Range: `bytes=${bytes.length}-` },
				responseType: 'arraybuffer',
			});
			expectError(bad, 416, 'range_not_satisfiable');
			const asset = await h.http.get(`/assets/${done.output!.assetId}`, { headers: bearer(full) });
			expect(responses.asset.parse(asset.data).data.byteSize).toBe(bytes.length);
		});

		test('each job output has its own sha256 and the configured size', async () => {
			h.emu.control.setOutputBytes(200_000); // more than any test-card video: padded to it
			await post('/jobs', { mode: 'text_to_video', prompt: 'a' }, { 'Idempotency-Key': idem() });
			await post('/jobs', { mode: 'text_to_video', prompt: 'b' }, { 'Idempotency-Key': idem() });
			const [b, a] = h.emu.control.jobs();
			expect(a.output!.sha256).not.toBe(b.output!.sha256);
			const out = await h.http.get(`/jobs/${a.id}/output`, {
				headers: bearer(full),
				responseType: 'arraybuffer',
			});
			expect(Buffer.from(out.data).length).toBe(200_000);
		});

		test('failed job releases everything and sets errorCode', async () => {
			h.emu.control.scriptJobs([{ outcome: 'failed', errorCode: 'content_rejected' }]);
			const res = await post(
				'/jobs',
				{ mode: 'text_to_video', prompt: 'x' },
				{ 'Idempotency-Key': idem() },
			);
			const created = responses.job.parse(res.data).data;
			expect(created.state).toBe('queued');
			const got = await h.http.get(`/jobs/${created.id}`, { headers: bearer(full) });
			const job = responses.job.parse(got.data).data;
			expect(job).toMatchObject({
				state: 'failed',
				errorCode: 'content_rejected',
				chargedCredits: 0,
				output: null,
			});
			const kinds = h.emu.control
				.ledger()
				.entries.filter((e) => e.jobId === job.id)
				.map((e) => e.kind);
			expect(kinds).toEqual(['release', 'reserve']);
			expectError(
				await h.http.get(`/jobs/${job.id}/output`, { headers: bearer(full) }),
				409,
				'output_not_ready',
			);
		});

		test('GET /v1/jobs pages newest first; GET /v1/jobs/{id} 404 not_found', async () => {
			const p1 = responses.jobList.parse(
				(await h.http.get('/jobs', { headers: bearer(full), params: { limit: 2 } })).data,
			).data;
			expect(p1.items).toHaveLength(2);
			expect(p1.items[0].createdAt).toBeGreaterThanOrEqual(p1.items[1].createdAt);
			const p2 = responses.jobList.parse(
				(
					await h.http.get('/jobs', {
						headers: bearer(full),
						params: { limit: 100, cursor: p1.nextCursor },
					})
				).data,
			).data;
			expect(p2.nextCursor).toBeNull();
			expect(new Set([...p1.items, ...p2.items].map((j) => j.id)).size).toBe(
				p1.items.length + p2.items.length,
			);
			expectError(
				await h.http.get(`/jobs/job_${'0'.repeat(32)}`, { headers: bearer(full) }),
				404,
				'not_found',
			);
		});

		test.each(['0', '101', 'abc'])('400 invalid_field for limit=%s', async (limit) => {
			expectError(
				await h.http.get('/jobs', { headers: bearer(full), params: { limit } }),
				400,
				'invalid_field',
			);
		});

		test('400 invalid_field for a forged cursor', async () => {
			expectError(
				await h.http.get('/jobs', { headers: bearer(full), params: { cursor: 'zzz' } }),
				400,
				'invalid_field',
			);
		});

		test('another account cannot see the job (404 not_found) or the asset (404 asset_not_found)', async () => {
			const other = h.emu.control.createKey({ accountId: 'acct_other' });
			const jobs = h.emu.control.jobs();
			expectError(
				await h.http.get(`/jobs/${jobs[0].id}`, { headers: bearer(other.secret) }),
				404,
				'not_found',
			);
			expectError(
				await h.http.get(`/assets/${seededVideo}`, { headers: bearer(other.secret) }),
				404,
				'asset_not_found',
			);
		});

		test('402 key_credit_limit for the tiny-ceiling key', async () => {
			const tiny = bearer(h.emu.keys.tinyCeiling);
			const ok = await post(
				'/jobs',
				{ mode: 'text_to_video', prompt: 'x' },
				{ ...tiny, 'Idempotency-Key': idem() },
			);
			expect(ok.status).toBe(202);
			expectError(
				await post(
					'/jobs',
					{ mode: 'text_to_video', prompt: 'y' },
					{ ...tiny, 'Idempotency-Key': idem() },
				),
				402,
				'key_credit_limit',
			);
		});

		test('409 billing_financial_review while frozen', async () => {
			h.emu.control.freeze(true);
			expect(
				responses.balance.parse((await h.http.get('/balance', { headers: bearer(full) })).data).data
					.frozen,
			).toBe(true);
			const quote = responses.quote.parse(
				(await post('/jobs/quote', { mode: 'text_to_video', prompt: 'x' })).data,
			).data;
			expect(quote.sufficient).toBe(false);
			expectError(
				await post('/jobs', { mode: 'text_to_video', prompt: 'x' }, { 'Idempotency-Key': idem() }),
				409,
				'billing_financial_review',
			);
			h.emu.control.freeze(false);
		});

		test('402 insufficient_credits when the balance is short', async () => {
			const poor = h.emu.control.createKey({ accountId: 'acct_poor' });
			h.emu.control.grantCredits(5, 'acct_poor');
			const res = await post(
				'/jobs',
				{ mode: 'text_to_video', prompt: 'x' },
				{ ...bearer(poor.secret), 'Idempotency-Key': idem() },
			);
			expectError(res, 402, 'insufficient_credits');
			expect(h.emu.control.ledger('acct_poor').invariantHolds).toBe(true);
		});
	});

	test('404 not_found for an unknown route', async () => {
		expectError(await h.http.get('/nothing-here'), 404, 'not_found');
	});

	test('journal records requests without secrets', () => {
		const journal = h.emu.control.journal();
		expect(journal.length).toBeGreaterThan(50);
		const text = JSON.stringify(journal);
		expect(text).not.toContain(full);
		expect(text).not.toContain('Bearer');
		const created = journal.find(
			(e) => e.method === 'POST' && e.path === '/v1/jobs' && e.status === 202,
		)!;
		expect(created.idempotencyKey).toMatch(/^test-/);
		expect(created.keyId).toMatch(/^key_[0-9a-f]{32}$/);
		const ranged = journal.find((e) => e.status === 206)!;
		expect(ranged.range).toMatch(/^bytes=/);
		expect(journal.some((e) => e.errorCode === 'insufficient_scope')).toBe(true);
		h.emu.control.clearJournal();
		expect(h.emu.control.journal()).toHaveLength(0);
	});
});
