import { Container } from '@n8n/di';
import { createHash } from 'crypto';
import { BinaryDataService } from 'n8n-core';
import nock from 'nock';
import type {
	IBinaryData,
	INodeExecutionData,
	INodeProperties,
	INodeTypeDescription,
} from 'n8n-workflow';

import { CHARACTER_JPEG, CHARACTER_PNG, SAMPLE_VIDEO_MP4 } from '../../emulator/src/samples';
import codex from '../../nodes/GenerationServiceAsset/GenerationServiceAsset.node.json';
import { GenerationServiceAsset } from '../../nodes/GenerationServiceAsset/GenerationServiceAsset.node';
import { MAX_UPLOAD_BYTES } from '../../nodes/shared/constants';
import { useNock } from '../helpers/nock';
import { testClock } from '../helpers/serviceClock';
import { TEST_KEY, binaryItem, runListSearch, runNode } from '../helpers/n8n';

const BASE = 'https://api.gen.test/v1';
const credentials = { apiKey: TEST_KEY, baseUrl: BASE };
const node = new GenerationServiceAsset();
const png = Buffer.from(CHARACTER_PNG, 'base64');
const jpeg = Buffer.from(CHARACTER_JPEG, 'base64');
const mp4 = Buffer.from(SAMPLE_VIDEO_MP4, 'base64');
const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');
const ok = (data: unknown) => ({ data });
const errorBody = (code: string) => ({ error: { code, message: 'mensagem' }, requestId: 'req_9' });

const ID = `asset_${'0a'.repeat(16)}`;
const ID2 = `asset_${'0b'.repeat(16)}`;
const byId = (value: string) => ({ __rl: true, mode: 'id', value });
const byList = (value: string) => ({ __rl: true, mode: 'list', value });

function asset(overrides: Record<string, unknown> = {}) {
	return {
		id: ID,
		filename: 'character.png',
		mimeType: 'image/png',
		byteSize: png.length,
		kind: 'image',
		state: 'ready',
		referenceCount: 0,
		createdAt: 1_800_000_000_000,
		contentUrl: `/v1/assets/${ID}/content`,
		...overrides,
	};
}

const quota = {
	usedBytes: 10,
	maxBytes: 256 * 1024 * 1024,
	usedAssets: 1,
	maxAssets: 100,
	cleanupPendingAssets: 0,
};

/** Raw request body as nock hands it to a reply function (hex for binary bodies). */
function bodyBytes(body: unknown): Buffer {
	if (Buffer.isBuffer(body)) return body;
	const text = String(body);
	return /^[0-9a-f]*$/i.test(text) && text.length % 2 === 0
		? Buffer.from(text, 'hex')
		: Buffer.from(text, 'utf8');
}

async function run(
	parameters: Record<string, unknown>,
	items?: INodeExecutionData[],
	continueOnFail = false,
) {
	const [out] = await runNode({
		node,
		parameters: { resource: 'asset', ...parameters } as never,
		items,
		credentials,
		continueOnFail,
	});
	return out;
}

async function runError(parameters: Record<string, unknown>, items?: INodeExecutionData[]) {
	try {
		await run(parameters, items);
	} catch (error) {
		return error as Error & { description?: string; context: Record<string, unknown> };
	}
	throw new Error('expected the node to fail');
}

/** The stored bytes of an output binary (n8n 2.x keeps them on disk: filesystem mode). */
async function bytesOf(binary: IBinaryData): Promise<Buffer> {
	return await Container.get(BinaryDataService).getAsBuffer(binary);
}

const nockState = useNock();

describe('description', () => {
	const description: INodeTypeDescription = node.description;
	const operation = description.properties.find((p) => p.name === 'operation')!;

	it('is an n8n-native action node usable as a tool', () => {
		expect(description.name).toBe('generationServiceAsset');
		expect(description.usableAsTool).toBe(true);
		expect(description.subtitle).toMatch(/^={{.*\$parameter\["operation"\].*}}$/s); // labels: test/unit/subtitles.test.ts
		expect(description.icon).toEqual({
			light: 'file:../../icons/generationService.svg',
			dark: 'file:../../icons/generationService.dark.svg',
		});
		expect(description.credentials).toEqual([{ name: 'generationServiceApi', required: true }]);
		expect(Object.keys(node.methods.listSearch).sort()).toEqual([
			'searchAssets',
			'searchImageAssets',
			'searchVideoAssets',
		]);
		expect(codex.node).toBe('n8n-nodes-generation-service.generationServiceAsset');
		expect(codex.resources.primaryDocumentation[0].url).toContain('#generation-service-asset');
	});

	it('has the five operations, sorted, each saying endpoint, scope and cost', () => {
		const options = operation.options as Array<{
			name: string;
			value: string;
			description: string;
		}>;
		expect(options.map((o) => o.value)).toEqual(['delete', 'download', 'get', 'getAll', 'upload']);
		expect(options.map((o) => o.name)).toEqual([...options.map((o) => o.name)].sort());
		for (const o of options) {
			expect(o.description).toMatch(/\/assets/);
			expect(o.description).toMatch(/assets:(read|write)/);
		}
		const upload = options.find((o) => o.value === 'upload')!;
		expect(upload.description).toContain('20 uploads per hour');
		expect(upload.description).toContain('replayed');
	});

	it('sorts every Options collection alphabetically', () => {
		const collections = description.properties.filter((p) => p.type === 'collection');
		expect(collections.length).toBe(5);
		for (const c of collections) {
			const names = (c.options as INodeProperties[]).map((o) => o.displayName.toLowerCase());
			expect(names).toEqual([...names].sort());
		}
	});
});

describe('Upload', () => {
	it('sends POST /assets with the raw bytes, type, encoded file name and sha256 key', async () => {
		let seen: { headers: Record<string, unknown>; body: Buffer } | undefined;
		const scope = nock(BASE)
			.post('/assets')
			.reply(function (_uri, body) {
				seen = { headers: this.req.headers, body: bodyBytes(body) };
				return [201, ok({ asset: asset(), replayed: false })];
			});
		const out = await run({ operation: 'upload', binaryPropertyName: 'data' }, [
			await binaryItem(png, 'character.png', 'image/png'),
		]);
		expect(scope.isDone()).toBe(true);
		expect(seen!.headers['idempotency-key']).toBe(`asset.sha256.${sha256(png)}`);
		expect(seen!.headers['x-service-filename']).toBe('character.png');
		expect(seen!.headers['content-type']).toBe('image/png');
		expect(seen!.headers['content-length']).toBe(String(png.length));
		expect(seen!.headers.authorization).toBe(`Bearer ${TEST_KEY}`);
		expect(seen!.body.equals(png)).toBe(true);
		expect(out).toEqual([{ json: { ...asset(), replayed: false }, pairedItem: { item: 0 } }]);
	});

	it('streams a file-backed binary (n8n filesystem mode) with the same key and bytes', async () => {
		nock(BASE)
			.get(`/assets/${ID}`)
			.reply(
				200,
				ok(asset({ filename: 'sample.mp4', mimeType: 'video/mp4', byteSize: mp4.length })),
			)
			.get(`/assets/${ID}/content`)
			.reply(200, mp4, { 'Content-Type': 'video/mp4', 'Content-Length': String(mp4.length) });
		const [stored] = await run({ operation: 'download', assetId: byId(ID) });
		expect(stored.binary!.data.id).toBeDefined();

		let seen: { headers: Record<string, unknown>; body: Buffer } | undefined;
		nock(BASE)
			.post('/assets')
			.reply(function (_uri, body) {
				seen = { headers: this.req.headers, body: bodyBytes(body) };
				return [201, ok({ asset: asset({ id: ID2 }), replayed: false })];
			});
		const out = await run({ operation: 'upload', binaryPropertyName: 'data' }, [
			{ json: {}, binary: stored.binary },
		]);
		expect(seen!.headers['idempotency-key']).toBe(`asset.sha256.${sha256(mp4)}`);
		expect(seen!.headers['content-type']).toBe('video/mp4');
		expect(seen!.headers['x-service-filename']).toBe('sample.mp4');
		expect(seen!.headers['content-length']).toBe(String(mp4.length));
		expect(seen!.body.equals(mp4)).toBe(true);
		expect(out[0].json.id).toBe(ID2);
	});

	it('sends a MIME type that carries parameters without them', async () => {
		let contentType: unknown;
		nock(BASE)
			.post('/assets')
			.reply(function () {
				contentType = this.req.headers['content-type'];
				return [201, ok({ asset: asset(), replayed: false })];
			});
		await run({ operation: 'upload', binaryPropertyName: 'data' }, [
			await binaryItem(png, 'character.png', 'Image/PNG; charset=binary'),
		]);
		expect(contentType).toBe('image/png');
	});

	it('outputs replayed: true when the service returns the existing asset', async () => {
		nock(BASE)
			.post('/assets')
			.reply(200, ok({ asset: asset(), replayed: true }));
		const out = await run({ operation: 'upload', binaryPropertyName: 'data' }, [
			await binaryItem(png, 'character.png', 'image/png'),
		]);
		expect(out[0].json.replayed).toBe(true);
		expect(out[0].json.id).toBe(ID);
	});

	it('uses the overrides: other binary field, file name, MIME type and Idempotency Key', async () => {
		const key = `row-42.${'7'.repeat(12)}`;
		let headers: Record<string, unknown> = {};
		nock(BASE)
			.post('/assets')
			.reply(function (_uri, body) {
				headers = this.req.headers;
				expect(bodyBytes(body).equals(mp4)).toBe(true);
				return [
					201,
					ok({
						asset: asset({ filename: 'Meu vídeo.mp4', mimeType: 'video/mp4' }),
						replayed: false,
					}),
				];
			});
		await run(
			{
				operation: 'upload',
				binaryPropertyName: 'clip',
				options: { fileName: 'Meu vídeo.mp4', mimeType: 'video/mp4', idempotencyKey: key },
			},
			[await binaryItem(mp4, 'x.bin', 'application/octet-stream', 'clip')],
		);
		expect(headers['idempotency-key']).toBe(key);
		expect(headers['x-service-filename']).toBe('Meu%20v%C3%ADdeo.mp4');
		expect(headers['content-type']).toBe('video/mp4');
	});

	it.each([
		['unicode', '日本語 ファイル名 🎬.png'],
		['long ascii', `${'a'.repeat(300)}.png`],
		['long unicode', `${'é'.repeat(120)}🎬${'ü'.repeat(50)}.png`],
		['long with reserved characters', `${'%&?#'.repeat(60)}.png`],
	])(
		'encodes a %s file name like encodeURIComponent, within 180 characters',
		async (_what, name) => {
			let header = '';
			nock(BASE)
				.post('/assets')
				.reply(function () {
					header = String(this.req.headers['x-service-filename']);
					return [201, ok({ asset: asset(), replayed: false })];
				});
			await run({ operation: 'upload', binaryPropertyName: 'data' }, [
				await binaryItem(png, name, 'image/png'),
			]);
			expect(header.length).toBeLessThanOrEqual(180);
			const decoded = decodeURIComponent(header);
			expect(encodeURIComponent(decoded)).toBe(header);
			expect(decoded.endsWith('.png')).toBe(true);
			if (encodeURIComponent(name).length <= 180) expect(decoded).toBe(name);
			else expect(name.startsWith(decoded.slice(0, -4))).toBe(true);
		},
	);

	describe('refuses locally, sending nothing', () => {
		let scope: nock.Scope;
		beforeEach(() => {
			scope = nock(BASE)
				.post('/assets')
				.reply(201, ok({ asset: asset(), replayed: false }));
		});
		afterEach(() => {
			expect(scope.isDone()).toBe(false);
			expect(scope.pendingMocks()).toHaveLength(1);
		});

		it('a MIME type the service does not accept', async () => {
			const error = await runError({ operation: 'upload', binaryPropertyName: 'data' }, [
				await binaryItem(Buffer.from('%PDF-1.7 ...'), 'doc.pdf', 'application/pdf'),
			]);
			expect(error.message).toContain('File type "application/pdf" of item 0 is not accepted');
			expect(error.message).toContain('image/jpeg, image/png, image/webp, video/mp4, video/webm');
		});

		it('bytes that do not match the declared type', async () => {
			const error = await runError({ operation: 'upload', binaryPropertyName: 'data' }, [
				await binaryItem(png, 'photo.jpg', 'image/jpeg'),
			]);
			expect(error.message).toContain('File of item 0 does not look like image/jpeg');
		});

		it('an override MIME type that does not match the bytes', async () => {
			const error = await runError(
				{ operation: 'upload', binaryPropertyName: 'data', options: { mimeType: 'video/webm' } },
				[await binaryItem(jpeg, 'photo.jpg', 'image/jpeg')],
			);
			expect(error.message).toContain('does not look like video/webm');
		});

		it('a file over 20 MiB', async () => {
			const big = Buffer.alloc(MAX_UPLOAD_BYTES + 1);
			png.copy(big);
			const error = await runError({ operation: 'upload', binaryPropertyName: 'data' }, [
				await binaryItem(big, 'big.png', 'image/png'),
			]);
			expect(error.message).toContain(
				`File of item 0 is ${MAX_UPLOAD_BYTES + 1} bytes: the limit is 20 MiB`,
			);
		});

		it('an empty file', async () => {
			const error = await runError({ operation: 'upload', binaryPropertyName: 'data' }, [
				await binaryItem(Buffer.alloc(0), 'empty.png', 'image/png'),
			]);
			expect(error.message).toContain('File of item 0 is empty');
		});

		it('a missing binary property', async () => {
			const error = await runError({ operation: 'upload', binaryPropertyName: 'photo' }, [
				await binaryItem(png, 'character.png', 'image/png'),
			]);
			expect(error.message).toContain('photo');
		});

		it('an item without binary data', async () => {
			const error = await runError({ operation: 'upload', binaryPropertyName: 'data' }, [
				{ json: {} },
			]);
			expect(error.message).toMatch(/binary/i);
		});

		it.each([
			['too short', 'short-key'],
			['bad characters', `key with spaces ${'x'.repeat(10)}`],
			['too long', 'k'.repeat(129)],
		])('an Idempotency Key that is %s', async (_why, key) => {
			const error = await runError(
				{ operation: 'upload', binaryPropertyName: 'data', options: { idempotencyKey: key } },
				[await binaryItem(png, 'character.png', 'image/png')],
			);
			expect(error.message).toContain(`Idempotency Key "${key}" is not valid`);
			expect(error.message).toContain('16 to 128 characters');
		});

		it('with Continue On Fail, as an error item paired with its input', async () => {
			const out = await run(
				{ operation: 'upload', binaryPropertyName: 'data' },
				[await binaryItem(Buffer.from('GIF89a....'), 'a.gif', 'image/gif')],
				true,
			);
			expect(out).toHaveLength(1);
			expect(out[0].pairedItem).toEqual({ item: 0 });
			expect(String(out[0].json.error)).toContain(
				'File type "image/gif" of item 0 is not accepted',
			);
		});
	});

	it('pairs each output with its input item and names the failing item', async () => {
		nock(BASE)
			.post('/assets')
			.reply(201, ok({ asset: asset(), replayed: false }))
			.post('/assets')
			.reply(201, ok({ asset: asset({ id: ID2, filename: 'sample.mp4' }), replayed: false }));
		const out = await run(
			{ operation: 'upload', binaryPropertyName: 'data' },
			[
				await binaryItem(png, 'character.png', 'image/png'),
				await binaryItem(Buffer.from('not a picture'), 'x.png', 'image/png'),
				await binaryItem(mp4, 'sample.mp4', 'video/mp4'),
			],
			true,
		);
		expect(out.map((o) => o.pairedItem)).toEqual([{ item: 0 }, { item: 1 }, { item: 2 }]);
		expect(out[0].json.id).toBe(ID);
		expect(String(out[1].json.error)).toContain('File of item 1 does not look like image/png');
		expect(out[2].json.id).toBe(ID2);
	});

	it('maps a service refusal to its clear message with code and request id, without waiting', async () => {
		nock(BASE)
			.post('/assets')
			.reply(429, errorBody('upload_rate_limit'), { 'Retry-After': '1800' });
		testClock.useManual(); // time moves only by the sleeps of the code: none of them is the 1800 s
		const started = nockState.clock.state.now;
		const out = await run(
			{ operation: 'upload', binaryPropertyName: 'data' },
			[await binaryItem(png, 'character.png', 'image/png')],
			true,
		);
		expect(out[0].json).toMatchObject({ code: 'upload_rate_limit', requestId: 'req_9' });
		expect(String(out[0].json.error)).toContain(
			'Upload limit reached (20 uploads per hour per account)',
		);
		// far less than the 1800 s it was told: the item failed instead of waiting
		expect(nockState.clock.state.now - started).toBeLessThan(60_000);
	});
});

describe('Get Many', () => {
	it('sends GET /assets?limit=N and outputs one item per asset', async () => {
		const scope = nock(BASE)
			.get('/assets')
			.query({ limit: '2' })
			.matchHeader('authorization', `Bearer ${TEST_KEY}`)
			.reply(200, ok({ items: [asset(), asset({ id: ID2 })], nextCursor: 'c1', quota }));
		const out = await run({ operation: 'getAll', returnAll: false, limit: 2 });
		expect(scope.isDone()).toBe(true);
		expect(out).toEqual([
			{ json: asset(), pairedItem: { item: 0 } },
			{ json: asset({ id: ID2 }), pairedItem: { item: 0 } },
		]);
	});

	it('Return All follows the cursor; Include Quota adds the quota to every item', async () => {
		nock(BASE)
			.get('/assets')
			.query({ limit: '100' })
			.reply(200, ok({ items: [asset()], nextCursor: 'c1', quota }))
			.get('/assets')
			.query({ limit: '100', cursor: 'c1' })
			.reply(200, ok({ items: [asset({ id: ID2 })], nextCursor: null, quota }));
		const out = await run({
			operation: 'getAll',
			returnAll: true,
			options: { includeQuota: true },
		});
		expect(nock.isDone()).toBe(true);
		expect(out.map((o) => o.json)).toEqual([
			{ ...asset(), quota },
			{ ...asset({ id: ID2 }), quota },
		]);
	});

	it('Include Quota with no assets outputs one item holding the quota', async () => {
		nock(BASE)
			.get('/assets')
			.query({ limit: '50' })
			.reply(200, ok({ items: [], nextCursor: null, quota }));
		const out = await run({
			operation: 'getAll',
			returnAll: false,
			limit: 50,
			options: { includeQuota: true },
		});
		expect(out).toEqual([{ json: { quota }, pairedItem: { item: 0 } }]);
	});

	it('without Include Quota and no assets outputs nothing', async () => {
		nock(BASE)
			.get('/assets')
			.query({ limit: '50' })
			.reply(200, ok({ items: [], nextCursor: null, quota }));
		expect(await run({ operation: 'getAll', returnAll: false, limit: 50 })).toEqual([]);
	});
});

describe('Get', () => {
	it.each([
		['ID', byId(ID)],
		['list', byList(ID)],
	])('sends GET /assets/{id} (%s mode) and outputs the asset', async (_mode, assetId) => {
		const scope = nock(BASE).get(`/assets/${ID}`).reply(200, ok(asset()));
		const out = await run({ operation: 'get', assetId });
		expect(scope.isDone()).toBe(true);
		expect(out).toEqual([{ json: asset(), pairedItem: { item: 0 } }]);
	});

	it('refuses a malformed id locally', async () => {
		const scope = nock(BASE).get(/.*/).reply(200, ok(asset()));
		const error = await runError({ operation: 'get', assetId: byId('asset_XYZ') });
		expect(error.message).toBe(
			'Asset "asset_XYZ" is not a valid asset ID (asset_ followed by 32 lowercase hex characters).',
		);
		expect(scope.isDone()).toBe(false);
	});

	it('gives the clear not-found message', async () => {
		nock(BASE).get(`/assets/${ID}`).reply(404, errorBody('asset_not_found'));
		const error = await runError({ operation: 'get', assetId: byId(ID) });
		expect(error.message).toContain('Asset not found');
		expect(error.context.errorCode).toBe('asset_not_found');
	});
});

describe('Delete', () => {
	it('sends DELETE /assets/{id} and outputs { id, deleted: true }', async () => {
		const scope = nock(BASE)
			.delete(`/assets/${ID}`)
			.reply(200, ok({ id: ID, deleted: true }));
		const out = await run({ operation: 'delete', assetId: byId(ID) });
		expect(scope.isDone()).toBe(true);
		expect(out).toEqual([{ json: { id: ID, deleted: true }, pairedItem: { item: 0 } }]);
	});

	it('explains asset_in_use', async () => {
		nock(BASE).delete(`/assets/${ID}`).reply(409, errorBody('asset_in_use'));
		const error = await runError({ operation: 'delete', assetId: byId(ID) });
		expect(error.message).toContain('still referenced');
	});
});

describe('Download', () => {
	it('gets the asset, then streams its content into binary data named after it', async () => {
		const scope = nock(BASE)
			.get(`/assets/${ID}`)
			.reply(200, ok(asset()))
			.get(`/assets/${ID}/content`)
			.matchHeader('accept', '*/*')
			.matchHeader('authorization', `Bearer ${TEST_KEY}`)
			.reply(200, png, { 'Content-Type': 'image/png', 'Content-Length': String(png.length) });
		const out = await run({ operation: 'download', assetId: byId(ID) });
		expect(scope.isDone()).toBe(true);
		expect(out).toHaveLength(1);
		expect(out[0].json).toEqual(asset());
		expect(out[0].pairedItem).toEqual({ item: 0 });
		const binary = out[0].binary!.data;
		expect(binary.fileName).toBe('character.png');
		expect(binary.mimeType).toBe('image/png');
		expect((await bytesOf(binary)).equals(png)).toBe(true);
	});

	it('sends a Range header, puts the part in the chosen field', async () => {
		let range: unknown;
		nock(BASE)
			.get(`/assets/${ID2}`)
			.reply(
				200,
				ok(
					asset({
						id: ID2,
						filename: 'clip.mp4',
						mimeType: 'video/mp4',
						byteSize: mp4.length,
						kind: 'video',
					}),
				),
			)
			.get(`/assets/${ID2}/content`)
			.reply(function () {
				range = this.req.headers.range;
				return [
					206,
					mp4.subarray(0, 100),
					{ 'Content-Type': 'video/mp4', 'Content-Range': `bytes 0-99/${mp4.length}` },
				];
			});
		const out = await run({
			operation: 'download',
			assetId: byList(ID2),
			options: { range: '0-99', binaryPropertyName: 'video' },
		});
		expect(range).toBe('bytes=0-99');
		const binary = out[0].binary!.video;
		expect(binary.fileName).toBe('clip.mp4');
		expect(binary.mimeType).toBe('video/mp4');
		expect((await bytesOf(binary)).equals(mp4.subarray(0, 100))).toBe(true);
		expect(out[0].binary!.data).toBeUndefined();
	});

	it.each([
		['bytes=10-5', 'the end (5) is before the start (10)', 0],
		['bytes=a-b', 'is not a single byte range', 0],
		['bytes=0-1,5-9', 'is not a single byte range', 0],
		[`bytes=${png.length}-`, `at or after the end of the file (${png.length} bytes)`, 1],
		['-0', 'at least 1 byte', 0],
	])('refuses the range %s before asking for the content', async (range, words, metadataReads) => {
		const scope = nock(BASE)
			.get(`/assets/${ID}`)
			.reply(200, ok(asset()))
			.get(`/assets/${ID}/content`)
			.reply(200, png);
		const error = await runError({ operation: 'download', assetId: byId(ID), options: { range } });
		expect(error.message).toContain('"Byte Range" of item 0 is not usable');
		expect(error.message).toContain(words);
		// A malformed range is refused before any request; a start past the end after reading the size.
		const pending = [`GET ${BASE.replace('/v1', '')}:443/v1/assets/${ID}/content`];
		if (!metadataReads) pending.unshift(`GET ${BASE.replace('/v1', '')}:443/v1/assets/${ID}`);
		expect(scope.pendingMocks()).toEqual(pending);
	});
});

describe('asset pickers', () => {
	it('searchVideoAssets lists only videos, with the cursor as pagination token', async () => {
		nock(BASE)
			.get('/assets')
			.query({ limit: '100', cursor: 'c1' })
			.reply(
				200,
				ok({
					items: [
						asset(),
						asset({ id: ID2, filename: 'clip.mp4', kind: 'video', mimeType: 'video/mp4' }),
					],
					nextCursor: 'c2',
					quota,
				}),
			);
		const result = await runListSearch(
			{ node, parameters: { resource: 'asset', operation: 'get' }, credentials },
			'searchVideoAssets',
			undefined,
			'c1',
		);
		expect(result).toEqual({
			results: [{ name: `clip.mp4 (video, ${ID2})`, value: ID2 }],
			paginationToken: 'c2',
		});
	});
});
