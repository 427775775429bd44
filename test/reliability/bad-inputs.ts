/**
 * Bad-input table: each case asserts the exact error message and whether any request reached the
 * service (the emulator's journal). What the node can refuse locally, it refuses without a request.
 */
import type { IDataObject, INodeExecutionData, INodeType } from 'n8n-workflow';

import { GenerationServiceAccount } from '../../nodes/GenerationServiceAccount/GenerationServiceAccount.node';
import { GenerationServiceAsset } from '../../nodes/GenerationServiceAsset/GenerationServiceAsset.node';
import { GenerationServiceJob } from '../../nodes/GenerationServiceJob/GenerationServiceJob.node';
import { GenerationServicePersona } from '../../nodes/GenerationServicePersona/GenerationServicePersona.node';
import { CHARACTER_PNG } from '../../emulator/src/samples';
import type { Emulated } from '../helpers/emulated';
import { startEmulated } from '../helpers/emulated';
import { runNode } from '../helpers/n8n';

export interface BadInput {
	name: string;
	node: INodeType;
	parameters: IDataObject;
	items?: INodeExecutionData[];
	baseUrl?: string;
	setup?: (env: Emulated) => void;
	message: string | RegExp;
	/** Whether the input reaches the service (false: refused locally with no request at all). */
	sent: boolean;
	/** Inputs the node repairs instead of refusing (e.g. a long file name): checks the output. */
	accepted?: (out: INodeExecutionData[], env: Emulated) => void;
}

const job = new GenerationServiceJob();
const account = new GenerationServiceAccount();
const rl = (value: string) => ({ __rl: true, mode: 'id', value });
const t2v = {
	resource: 'job',
	operation: 'create',
	mode: 'text_to_video',
	prompt: 'a fox',
	durationSeconds: 5,
	aspectRatio: '9:16',
};
const quote = { ...t2v, operation: 'quote' };
const fakeAsset = `asset_${'0'.repeat(32)}`;
const fakePersona = `prs_${'0'.repeat(32)}`;

export const JOB_AND_ACCOUNT_CASES: BadInput[] = [
	{
		name: 'prompt of 2001 characters',
		node: job,
		parameters: { ...t2v, prompt: 'x'.repeat(2001) },
		message: 'Prompt is 2001 characters long: the limit is 2000.',
		sent: false,
	},
	{
		name: 'empty prompt for text to video',
		node: job,
		parameters: { ...t2v, prompt: '   ' },
		message: 'Prompt is required for text_to_video.',
		sent: false,
	},
	{
		name: 'empty prompt for image to video',
		node: job,
		parameters: { ...t2v, mode: 'image_to_video', sourceImage: rl(fakeAsset), prompt: '' },
		message: 'Prompt is required for image_to_video.',
		sent: false,
	},
	{
		name: 'duration 0',
		node: job,
		parameters: { ...t2v, durationSeconds: 0 },
		message: 'Duration (Seconds) must be a whole number from 1 to 30 (got 0).',
		sent: false,
	},
	{
		name: 'duration 31',
		node: job,
		parameters: { ...t2v, durationSeconds: 31 },
		message: 'Duration (Seconds) must be a whole number from 1 to 30 (got 31).',
		sent: false,
	},
	{
		name: 'duration 2.5',
		node: job,
		parameters: { ...quote, durationSeconds: 2.5 },
		message: 'Duration (Seconds) must be a whole number from 1 to 30 (got 2.5).',
		sent: false,
	},
	{
		name: 'aspect ratio 4:3',
		node: job,
		parameters: { ...t2v, aspectRatio: '4:3' },
		message: 'Aspect Ratio must be one of 9:16, 16:9, 1:1 (got "4:3").',
		sent: false,
	},
	{
		name: 'mode not in the spec (from an expression)',
		node: job,
		parameters: { ...t2v, mode: 'video_to_cartoon' },
		message:
			'Mode "video_to_cartoon" is not one of character_replacement, image_to_video, text_to_video.',
		sent: false,
	},
	{
		name: 'source video ID of the wrong form',
		node: job,
		parameters: {
			...t2v,
			mode: 'character_replacement',
			sourceVideo: rl('asset_123'),
			referenceImage: rl(fakeAsset),
		},
		message:
			'Source Video "asset_123" is not a valid asset ID (asset_ followed by 32 lowercase hex characters).',
		sent: false,
	},
	{
		name: 'source video missing',
		node: job,
		parameters: {
			...t2v,
			mode: 'character_replacement',
			sourceVideo: rl(''),
			referenceImage: rl(fakeAsset),
		},
		message: 'Source Video is required: pick one from the list or give its ID.',
		sent: false,
	},
	{
		name: 'neither reference image nor persona',
		node: job,
		parameters: {
			...t2v,
			mode: 'character_replacement',
			sourceVideo: rl(fakeAsset),
			characterSource: 'reference',
			referenceImage: rl(''),
		},
		message: 'Reference Image is required: pick one from the list or give its ID.',
		sent: false,
	},
	{
		name: 'persona chosen but empty',
		node: job,
		parameters: {
			...t2v,
			mode: 'character_replacement',
			sourceVideo: rl(fakeAsset),
			characterSource: 'persona',
			persona: rl(''),
		},
		message: 'Persona is required: pick one from the list or give its ID.',
		sent: false,
	},
	{
		name: 'persona ID of the wrong form',
		node: job,
		parameters: {
			...t2v,
			mode: 'character_replacement',
			sourceVideo: rl(fakeAsset),
			characterSource: 'persona',
			persona: rl('prs_ABC'),
		},
		message:
			'Persona "prs_ABC" is not a valid persona ID (prs_ followed by 32 lowercase hex characters).',
		sent: false,
	},
	{
		name: 'source image ID with uppercase hex',
		node: job,
		parameters: { ...t2v, mode: 'image_to_video', sourceImage: rl(`asset_${'A'.repeat(32)}`) },
		message: `Source Image "asset_${'A'.repeat(32)}" is not a valid asset ID (asset_ followed by 32 lowercase hex characters).`,
		sent: false,
	},
	{
		name: 'idempotency key with a bad character',
		node: job,
		parameters: { ...t2v, options: { idempotencyKey: 'row 42 / video please' } },
		message:
			'Idempotency Key "row 42 / video please" is not valid: it must be 16 to 128 characters from A-Z a-z 0-9 _ . : - (it is 21 characters long).',
		sent: false,
	},
	{
		name: 'idempotency key too short',
		node: job,
		parameters: { ...t2v, options: { idempotencyKey: 'row-42' } },
		message:
			'Idempotency Key "row-42" is not valid: it must be 16 to 128 characters from A-Z a-z 0-9 _ . : - (it is 6 characters long).',
		sent: false,
	},
	{
		name: 'idempotency key too long',
		node: job,
		parameters: { ...t2v, options: { idempotencyKey: 'k'.repeat(129) } },
		message: /^Idempotency Key "k{129}" is not valid: .* \(it is 129 characters long\)\.$/,
		sent: false,
	},
	{
		name: 'job ID of the wrong form',
		node: job,
		parameters: { resource: 'job', operation: 'get', jobId: rl('job_42') },
		message: 'Job "job_42" is not a valid job ID (job_ followed by 32 lowercase hex characters).',
		sent: false,
	},
	{
		name: 'wait timeout over 120 minutes',
		node: job,
		parameters: {
			resource: 'job',
			operation: 'waitForJob',
			jobId: rl(`job_${'0'.repeat(32)}`),
			options: { timeout: 500 },
		},
		message: 'Timeout must be from 1 to 120 minutes.',
		sent: false,
	},
	{
		name: 'jobs limit 0',
		node: job,
		parameters: { resource: 'job', operation: 'getMany', returnAll: false, limit: 0 },
		message: 'Limit must be a whole number of at least 1 (got 0), or turn on Return All.',
		sent: false,
	},
	{
		name: 'usage limit 0',
		node: account,
		parameters: { resource: 'account', operation: 'getUsage', returnAll: false, limit: 0 },
		message: 'Limit must be a whole number of at least 1 (got 0), or turn on Return All.',
		sent: false,
	},
	{
		name: 'base URL without /v1',
		node: account,
		parameters: { resource: 'account', operation: 'getBalance' },
		baseUrl: 'http://127.0.0.1:4010',
		message: `The credential's Base URL must end in /v1 (for example https://api.example.com/v1); "http://127.0.0.1:4010" does not.`,
		sent: false,
	},
	{
		name: 'http:// base URL of a remote host',
		node: account,
		parameters: { resource: 'account', operation: 'getBalance' },
		baseUrl: 'http://api.example.com/v1',
		message: `The credential's Base URL uses http:// for "api.example.com": the API key would travel in plain text. Use https://, or http:// only for a loopback host such as the local emulator (127.0.0.1).`,
		sent: false,
	},
	{
		name: 'empty base URL',
		node: account,
		parameters: { resource: 'account', operation: 'getBalance' },
		baseUrl: '',
		message: 'The credential has no Base URL. Set it to the service address ending in /v1.',
		sent: false,
	},
	// Refused by the service (the node cannot know without asking): still a clear message.
	{
		name: 'image given as the source video (wrong kind for the mode)',
		node: job,
		parameters: {
			...quote,
			mode: 'character_replacement',
			sourceVideo: rl('IMAGE'),
			referenceImage: rl('IMAGE'),
		},
		message:
			'The file kind does not fit the mode: character replacement needs a video source and an image reference; image to video needs an image source.',
		sent: true,
	},
	{
		name: 'video given as the source image (wrong kind for the mode)',
		node: job,
		parameters: { ...quote, mode: 'image_to_video', sourceImage: rl('VIDEO'), prompt: 'move' },
		message:
			'The file kind does not fit the mode: character replacement needs a video source and an image reference; image to video needs an image source.',
		sent: true,
	},
	{
		name: 'video given as the reference image',
		node: job,
		parameters: {
			...quote,
			mode: 'character_replacement',
			sourceVideo: rl('VIDEO'),
			referenceImage: rl('VIDEO'),
		},
		message:
			'The file kind does not fit the mode: character replacement needs a video source and an image reference; image to video needs an image source.',
		sent: true,
	},
	{
		name: 'asset ID of the right form that does not exist',
		node: job,
		parameters: { ...quote, mode: 'image_to_video', sourceImage: rl(fakeAsset), prompt: 'move' },
		message:
			'Asset not found: it does not exist or belongs to another account. Upload the file again or check the asset id.',
		sent: true,
	},
	{
		name: 'persona ID of the right form that does not exist',
		node: job,
		parameters: {
			...quote,
			mode: 'character_replacement',
			sourceVideo: rl('VIDEO'),
			characterSource: 'persona',
			persona: rl(fakePersona),
		},
		message: 'Not found: the resource does not exist or belongs to another account. Check the id.',
		sent: true,
	},
	{
		name: 'HTML page from a proxy',
		node: account,
		parameters: { resource: 'account', operation: 'getBalance' },
		setup: (env) =>
			env.emu.control.injectFault({ path: '/v1/balance', action: 'html_body', times: 3 }),
		message:
			'The service answered HTTP 502 with something that is not its JSON error. Check that the Base URL of the credential points at the service (ending in /v1) and not at a proxy or web page.',
		sent: true,
	},
	{
		name: 'empty body from a proxy',
		node: account,
		parameters: { resource: 'account', operation: 'getBalance' },
		setup: (env) =>
			env.emu.control.injectFault({ path: '/v1/balance', action: 'empty_body', times: 3 }),
		message:
			'The service answered HTTP 502 with something that is not its JSON error. Check that the Base URL of the credential points at the service (ending in /v1) and not at a proxy or web page.',
		sent: true,
	},
];

/** Runs a table of bad inputs against a fresh emulator each; used by this suite and the secrets suite. */
export async function runBadInput(
	c: BadInput,
	apiKey?: string,
): Promise<{ error: Error | undefined; requests: number }> {
	const env = await startEmulated();
	try {
		c.setup?.(env);
		const key = apiKey
			? env.emu.control.createKey({ secret: apiKey }).secret
			: env.credentials.apiKey;
		const swap = (v: unknown): unknown => {
			if (v && typeof v === 'object' && (v as IDataObject).__rl) {
				const value = (v as IDataObject).value;
				return {
					...(v as IDataObject),
					value:
						{ IMAGE: env.imageId, VIDEO: env.videoId, IN_USE: env.inUseAssetId }[String(value)] ??
						value,
				};
			}
			return v;
		};
		const parameters = Object.fromEntries(
			Object.entries(c.parameters).map(([k, v]) => [k, swap(v)]),
		);
		let error: Error | undefined;
		let out: INodeExecutionData[][] = [];
		try {
			out = await runNode({
				node: c.node,
				parameters: parameters as never,
				items: c.items,
				credentials: {
					apiKey: key,
					baseUrl: c.baseUrl ?? env.credentials.baseUrl,
				},
			});
		} catch (caught) {
			error = caught as Error;
		}
		if (c.accepted) {
			if (error) throw error;
			c.accepted(out[0], env);
			return { error: undefined, requests: env.emu.control.journal().length };
		}
		if (!error) throw new Error(`case "${c.name}" did not fail`);
		return { error, requests: env.emu.control.journal().length };
	} finally {
		await env.close();
	}
}

const asset = new GenerationServiceAsset();
const persona = new GenerationServicePersona();
const png = Buffer.from(CHARACTER_PNG, 'base64');
const fileItem = (bytes: Buffer, fileName: string, mimeType: string): INodeExecutionData[] => [
	{
		json: {},
		binary: {
			data: { data: bytes.toString('base64'), mimeType, fileName, fileSize: String(bytes.length) },
		},
	},
];
const upload = { resource: 'asset', operation: 'upload', binaryPropertyName: 'data', options: {} };
const longName = `${'très-longue-vidéo-'.repeat(12)}.png`;
const unicodeName = '角色 🎬 çà.png';

export const ASSET_AND_PERSONA_CASES: BadInput[] = [
	{
		name: 'binary property missing',
		node: asset,
		parameters: upload,
		items: [{ json: {} }],
		message:
			/^This operation expects the node's input data to contain a binary file 'data', but none was found/,
		sent: false,
	},
	{
		name: 'wrong MIME type (text/plain)',
		node: asset,
		parameters: upload,
		items: fileItem(Buffer.from('hello'), 'notes.txt', 'text/plain'),
		message:
			'File type "text/plain" of item 0 is not accepted: use one of image/jpeg, image/png, image/webp, video/mp4, video/webm (set "MIME Type" in Options if the binary data has the wrong one).',
		sent: false,
	},
	{
		name: 'GIF image (type not accepted)',
		node: asset,
		parameters: upload,
		items: fileItem(Buffer.from('GIF89a......'), 'a.gif', 'image/gif'),
		message: /^File type "image\/gif" of item 0 is not accepted/,
		sent: false,
	},
	{
		name: 'signature mismatch (PNG bytes declared as JPEG)',
		node: asset,
		parameters: upload,
		items: fileItem(png, 'character.jpg', 'image/jpeg'),
		message:
			'File of item 0 does not look like image/jpeg: its first bytes do not match that type. Set the right MIME type or convert the file.',
		sent: false,
	},
	{
		name: 'file over 20 MiB',
		node: asset,
		parameters: upload,
		items: fileItem(Buffer.concat([png, Buffer.alloc(20 * 1024 * 1024)]), 'big.png', 'image/png'),
		message: `File of item 0 is ${png.length + 20 * 1024 * 1024} bytes: the limit is 20 MiB (20971520 bytes) per file.`,
		sent: false,
	},
	{
		name: 'empty file',
		node: asset,
		parameters: upload,
		items: fileItem(Buffer.alloc(0), 'empty.png', 'image/png'),
		message: 'File of item 0 is empty.',
		sent: false,
	},
	{
		name: 'upload idempotency key with a bad character',
		node: asset,
		parameters: { ...upload, options: { idempotencyKey: 'my upload key #1!' } },
		items: fileItem(png, 'c.png', 'image/png'),
		message: /^Idempotency Key "my upload key #1!" is not valid/,
		sent: false,
	},
	{
		name: 'asset ID of the wrong form (Get)',
		node: asset,
		parameters: { resource: 'asset', operation: 'get', assetId: rl('asset-1') },
		message:
			'Asset "asset-1" is not a valid asset ID (asset_ followed by 32 lowercase hex characters).',
		sent: false,
	},
	{
		name: 'asset ID empty (Delete)',
		node: asset,
		parameters: { resource: 'asset', operation: 'delete', assetId: rl('') },
		message: 'Asset is required: pick one from the list or give its ID.',
		sent: false,
	},
	{
		name: 'byte range that is not a range',
		node: asset,
		parameters: {
			resource: 'asset',
			operation: 'download',
			assetId: rl('IMAGE'),
			options: { range: 'first 10 bytes' },
		},
		message: /^"Byte Range" of item 0 is not usable: .* Use bytes=start-end/,
		sent: false,
	},
	{
		name: 'assets limit 0',
		node: asset,
		parameters: { resource: 'asset', operation: 'getAll', returnAll: false, limit: 0, options: {} },
		message: 'Limit must be a whole number of at least 1 (got 0), or turn on Return All.',
		sent: false,
	},
	{
		name: 'persona ID of the wrong form',
		node: persona,
		parameters: { resource: 'persona', operation: 'get', personaId: rl('persona_7') },
		message:
			'Persona "persona_7" is not a valid persona ID (prs_ followed by 32 lowercase hex characters).',
		sent: false,
	},
	{
		name: 'personas limit 0',
		node: persona,
		parameters: {
			resource: 'persona',
			operation: 'getAll',
			returnAll: false,
			limit: 0,
			options: {},
		},
		message: 'Limit must be a whole number of at least 1 (got 0), or turn on Return All.',
		sent: false,
	},
	{
		name: 'persona of the right form that does not exist',
		node: persona,
		parameters: { resource: 'persona', operation: 'get', personaId: rl(fakePersona) },
		message: `Not found: ${fakePersona} does not exist or belongs to another account. Check the id.`,
		sent: true,
	},
	{
		name: 'delete an asset still in use (persona identity image)',
		node: asset,
		parameters: { resource: 'asset', operation: 'delete', assetId: rl('IN_USE') },
		message:
			'The asset is still referenced by a project, character or publication and cannot be deleted. Remove the reference first.',
		sent: true,
	},
	{
		name: 'file name over 180 encoded characters (shortened, not refused)',
		node: asset,
		parameters: upload,
		items: fileItem(png, longName, 'image/png'),
		message: '',
		sent: true,
		accepted: (out, env) => {
			const sent = env.emu.control.assets().find((a) => a.id === out[0].json.id)!;
			expect(encodeURIComponent(sent.filename).length).toBeLessThanOrEqual(180);
			expect(sent.filename.endsWith('.png')).toBe(true);
			expect(longName.startsWith(sent.filename.slice(0, -4))).toBe(true);
		},
	},
	{
		name: 'unicode file name (percent-encoded, kept)',
		node: asset,
		parameters: upload,
		items: fileItem(png, unicodeName, 'image/png'),
		message: '',
		sent: true,
		accepted: (out) => expect(out[0].json.filename).toBe(unicodeName),
	},
];

/** Every bad input of the four nodes and the credential. */
export const ALL_CASES: BadInput[] = [...JOB_AND_ACCOUNT_CASES, ...ASSET_AND_PERSONA_CASES];
