/**
 * The Asset node over real HTTP against the local emulator (n8n-core's real ExecuteContext and
 * HTTP helpers, the emulator's real server): every operation, upload replay, download integrity,
 * ranges and the clear errors.
 */
import { Container } from '@n8n/di';
import { createHash } from 'crypto';
import { BinaryDataService } from 'n8n-core';
import type { IBinaryData, IDataObject, INodeExecutionData } from 'n8n-workflow';

import { CHARACTER_JPEG, CHARACTER_PNG, SAMPLE_VIDEO_MP4 } from '../../emulator/src/samples';
import { AssetSchema, QuotaSchema, responses } from '../../emulator/src/schemas';
import { GenerationServiceAsset } from '../../nodes/GenerationServiceAsset/GenerationServiceAsset.node';
import type { Emulated } from '../helpers/emulated';
import { fails, startEmulated } from '../helpers/emulated';
import { binaryItem, runListSearch, runNode } from '../helpers/n8n';

type Emulator = Emulated['emu'];

const node = new GenerationServiceAsset();
const png = Buffer.from(CHARACTER_PNG, 'base64');
const jpeg = Buffer.from(CHARACTER_JPEG, 'base64');
const mp4 = Buffer.from(SAMPLE_VIDEO_MP4, 'base64');
const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');
const byId = (value: string) => ({ __rl: true, mode: 'id', value });

/** Something the emulator never stored: same bytes as the PNG plus a trailer (still a valid PNG head). */
const otherPng = Buffer.concat([png, Buffer.from('n8n-integration')]);

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
	options: { items?: INodeExecutionData[]; key?: string; continueOnFail?: boolean } = {},
) {
	const [out] = await runNode({
		node,
		parameters: { resource: 'asset', ...parameters } as never,
		items: options.items,
		credentials: { apiKey: options.key ?? emu.keys.full, baseUrl: emu.baseUrl },
		continueOnFail: options.continueOnFail,
	});
	return out;
}

async function upload(bytes: Buffer, fileName: string, mimeType: string, key?: string) {
	return await run(
		{ operation: 'upload', binaryPropertyName: 'data' },
		{ items: [await binaryItem(bytes, fileName, mimeType)], key },
	);
}

async function bytesOf(binary: IBinaryData): Promise<Buffer> {
	return await Container.get(BinaryDataService).getAsBuffer(binary);
}

const seeded = (filename: string) => emu.control.assets().find((a) => a.filename === filename)!;
const assetPosts = () =>
	emu.control.journal().filter((e) => e.method === 'POST' && e.path === '/v1/assets');

describe('Upload', () => {
	it('stores the file and outputs the asset with replayed: false', async () => {
		const before = emu.control.assets().length;
		const [item] = await upload(otherPng, 'novo personagem.png', 'image/png');
		const { replayed, ...asset } = item.json;
		expect(replayed).toBe(false);
		AssetSchema.parse(asset);
		expect(item.json).toMatchObject({
			filename: 'novo personagem.png',
			mimeType: 'image/png',
			kind: 'image',
			byteSize: otherPng.length,
			state: 'ready',
		});
		expect(item.pairedItem).toEqual({ item: 0 });
		expect(emu.control.assets()).toHaveLength(before + 1);
		expect(assetPosts()).toEqual([
			expect.objectContaining({ status: 201, idempotencyKey: `asset.sha256.${sha256(otherPng)}` }),
		]);
	});

	it('replays identical bytes: same asset, replayed: true, no new file (one 201, one 200)', async () => {
		const [first] = await upload(otherPng, 'a.png', 'image/png');
		const count = emu.control.assets().length;
		const [second] = await upload(otherPng, 'a.png', 'image/png');
		expect(first.json.replayed).toBe(false);
		expect(second.json.replayed).toBe(true);
		expect(second.json.id).toBe(first.json.id);
		expect(emu.control.assets()).toHaveLength(count);
		expect(assetPosts().map((e) => e.status)).toEqual([201, 200]);
		const keys = new Set(assetPosts().map((e) => e.idempotencyKey));
		expect(keys).toEqual(new Set([`asset.sha256.${sha256(otherPng)}`]));
	});

	it('two items with identical bytes in one run: the second replays the first', async () => {
		const count = emu.control.assets().length;
		const out = await run(
			{ operation: 'upload', binaryPropertyName: 'data' },
			{
				items: [
					await binaryItem(jpeg, 'photo.jpg', 'image/jpeg'),
					await binaryItem(jpeg, 'photo.jpg', 'image/jpeg'),
				],
			},
		);
		expect(out.map((o) => [o.json.replayed, o.pairedItem])).toEqual([
			[false, { item: 0 }],
			[true, { item: 1 }],
		]);
		expect(out[1].json.id).toBe(out[0].json.id);
		expect(emu.control.assets()).toHaveLength(count + 1);
	});

	it('sends a long unicode file name the service accepts and decodes', async () => {
		const name = `${'Ação '.repeat(40)}🎬.mp4`;
		const [item] = await upload(mp4, name, 'video/mp4');
		const stored = String(item.json.filename);
		expect(encodeURIComponent(stored).length).toBeLessThanOrEqual(180);
		expect(stored.endsWith('.mp4')).toBe(true);
		expect(name.startsWith(stored.slice(0, -4))).toBe(true);
		expect(item.json.kind).toBe('video');
	});

	it('refuses a wrong type locally: the service sees no request', async () => {
		const error = await fails(upload(png, 'x.jpg', 'image/jpeg'));
		expect(error.message).toContain('does not look like image/jpeg');
		expect(emu.control.journal()).toEqual([]);
	});

	it('with the read-only key, names the missing assets:write permission and stores nothing', async () => {
		const count = emu.control.assets().length;
		const error = await fails(upload(otherPng, 'a.png', 'image/png', emu.keys.readOnly));
		expect(error.message).toContain('"assets:write"');
		expect(error.context.errorCode).toBe('insufficient_scope');
		expect(emu.control.assets()).toHaveLength(count);
		expect(assetPosts()).toEqual([
			expect.objectContaining({ status: 403, errorCode: 'insufficient_scope' }),
		]);
	});

	it('Continue On Fail turns each refusal into { error, code, requestId } paired with its item', async () => {
		const out = await run(
			{ operation: 'upload', binaryPropertyName: 'data' },
			{
				items: [
					await binaryItem(otherPng, 'a.png', 'image/png'),
					await binaryItem(Buffer.from('plain text'), 'b.txt', 'text/plain'),
				],
				key: emu.keys.readOnly,
				continueOnFail: true,
			},
		);
		const [entry] = assetPosts();
		expect(out).toEqual([
			{
				json: expect.objectContaining({
					error: expect.stringContaining('"assets:write"'),
					code: 'insufficient_scope',
					requestId: entry.requestId,
				}),
				pairedItem: { item: 0 },
			},
			{
				json: {
					error: expect.stringContaining('File type "text/plain" of item 1 is not accepted'),
				},
				pairedItem: { item: 1 },
			},
		]);
		expect(assetPosts()).toHaveLength(1);
	});
});

describe('Get Many', () => {
	it('lists every asset, newest first, with the quota when asked', async () => {
		const [uploaded] = await upload(otherPng, 'a.png', 'image/png');
		const out = await run({
			operation: 'getAll',
			returnAll: true,
			options: { includeQuota: true },
		});
		expect(out.length).toBeGreaterThanOrEqual(4);
		expect(out[0].json.id).toBe(uploaded.json.id);
		for (const item of out) {
			const { quota, ...asset } = item.json;
			AssetSchema.parse(asset);
			QuotaSchema.parse(quota);
			expect(item.pairedItem).toEqual({ item: 0 });
		}
		expect(out[0].json.quota).toMatchObject({ usedAssets: out.length, maxAssets: 100 });
	});

	it('Limit asks for only that many and stops', async () => {
		const out = await run({ operation: 'getAll', returnAll: false, limit: 2 });
		expect(out).toHaveLength(2);
		expect(out[0].json.quota).toBeUndefined();
		expect(emu.control.journal().map((e) => [e.method, e.path, e.query])).toEqual([
			['GET', '/v1/assets', 'limit=2'],
		]);
	});
});

describe('Get, Delete, Download', () => {
	it('Get returns the asset the service has', async () => {
		const video = seeded('sample-video.mp4');
		const [item] = await run({ operation: 'get', assetId: byId(video.id) });
		responses.asset.parse({ data: item.json });
		expect(item.json).toEqual(video);
	});

	it('Download gives the exact bytes uploaded, named after the asset', async () => {
		const [uploaded] = await upload(otherPng, 'meu arquivo.png', 'image/png');
		const [item] = await run({ operation: 'download', assetId: byId(String(uploaded.json.id)) });
		expect({ ...item.json, replayed: false }).toEqual(uploaded.json);
		const binary = item.binary!.data;
		expect(binary.fileName).toBe('meu arquivo.png');
		expect(binary.mimeType).toBe('image/png');
		expect(sha256(await bytesOf(binary))).toBe(sha256(otherPng));
	});

	it('Download of the seeded video matches the sample bytes; a byte range gives just that part', async () => {
		const video = seeded('sample-video.mp4');
		const [whole] = await run({ operation: 'download', assetId: byId(video.id) });
		expect(sha256(await bytesOf(whole.binary!.data))).toBe(sha256(mp4));

		const [part] = await run({
			operation: 'download',
			assetId: byId(video.id),
			options: { range: 'bytes=100-355', binaryPropertyName: 'part' },
		});
		const bytes = await bytesOf(part.binary!.part);
		expect(bytes.equals(mp4.subarray(100, 356))).toBe(true);
		expect(part.binary!.part.mimeType).toBe('video/mp4');
		expect(part.binary!.part.fileName).toBe('sample-video.mp4');
		const ranged = emu.control.journal().filter((e) => e.path.endsWith('/content'));
		expect(ranged.map((e) => [e.status, e.range])).toEqual([
			[200, null],
			[206, 'bytes=100-355'],
		]);
	});

	it('Download refuses a range past the end before asking for the content', async () => {
		const video = seeded('sample-video.mp4');
		const error = await fails(
			run({
				operation: 'download',
				assetId: byId(video.id),
				options: { range: `bytes=${mp4.length}-` },
			}),
		);
		expect(error.message).toContain('"Byte Range" of item 0 is not usable');
		expect(emu.control.journal().some((e) => e.path.endsWith('/content'))).toBe(false);
	});

	it('Delete removes the asset; a Get afterwards fails with a clear not-found message', async () => {
		const [uploaded] = await upload(otherPng, 'a.png', 'image/png');
		const id = String(uploaded.json.id);
		const [deleted] = await run({ operation: 'delete', assetId: byId(id) });
		expect(deleted).toEqual({ json: { id, deleted: true }, pairedItem: { item: 0 } });
		responses.assetDeleted.parse({ data: deleted.json });
		expect(emu.control.assets().some((a) => a.id === id)).toBe(false);

		const error = await fails(run({ operation: 'get', assetId: byId(id) }));
		expect(error.message).toBe(
			`Asset not found: ${id} does not exist or belongs to another account. Upload the file again or check the asset id.`,
		);
		expect(error.httpCode).toBe('404');
		expect(error.context.errorCode).toBe('asset_not_found');
	});

	it('Delete of an asset a persona uses explains asset_in_use and keeps it', async () => {
		const identity = seeded('character.png');
		const error = await fails(run({ operation: 'delete', assetId: byId(identity.id) }));
		expect(error.message).toContain('still referenced by a project, character or publication');
		expect(error.context.errorCode).toBe('asset_in_use');
		expect(emu.control.assets().some((a) => a.id === identity.id)).toBe(true);
	});

	it('Delete with the read-only key names assets:write', async () => {
		const video = seeded('sample-video.mp4');
		const error = await fails(
			run({ operation: 'delete', assetId: byId(video.id) }, { key: emu.keys.readOnly }),
		);
		expect(error.message).toContain('"assets:write"');
	});

	it('the read-only key can still list, get and download', async () => {
		const video = seeded('sample-video.mp4');
		const key = emu.keys.readOnly;
		expect(await run({ operation: 'getAll', returnAll: true }, { key })).toHaveLength(3);
		expect((await run({ operation: 'get', assetId: byId(video.id) }, { key }))[0].json.id).toBe(
			video.id,
		);
		const [item] = await run({ operation: 'download', assetId: byId(video.id) }, { key });
		expect(sha256(await bytesOf(item.binary!.data))).toBe(sha256(mp4));
	});
});

describe('asset pickers', () => {
	it('list images, videos or everything from the service', async () => {
		const run = (method: string) =>
			runListSearch(
				{
					node,
					parameters: { resource: 'asset', operation: 'get' },
					credentials: { apiKey: emu.keys.full, baseUrl: emu.baseUrl },
				},
				method,
			);
		const all = await run('searchAssets');
		const images = await run('searchImageAssets');
		const videos = await run('searchVideoAssets');
		expect(all.results).toHaveLength(3);
		expect(images.results.map((r) => r.name).sort()).toEqual([
			`character.jpg (image, ${seeded('character.jpg').id})`,
			`character.png (image, ${seeded('character.png').id})`,
		]);
		expect(videos.results).toEqual([
			{
				name: `sample-video.mp4 (video, ${seeded('sample-video.mp4').id})`,
				value: seeded('sample-video.mp4').id,
			},
		]);
	});
});
