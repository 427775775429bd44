/**
 * The download is hashed while n8n stores it, whichever way n8n's binary helper reads the response
 * stream: with a 'data' listener and no resume (database and in-memory binary modes), with async
 * iteration (filesystem mode), or with pipe. Real HTTP (the emulator): a real socket stream honours
 * pause() as n8n's does (nock's does not). A consumer that never got the bytes would hang; a short or
 * wrong file fails the sha256 check.
 */
import axios from 'axios';
import type { IBinaryData, IExecuteFunctions } from 'n8n-workflow';
import { sleep } from 'n8n-workflow';

import { downloadBinary, tapStream } from '../../nodes/shared/service/files';
import type { BinaryStream } from '../../nodes/shared/service/service';
import type { Emulated } from '../helpers/emulated';
import { sha256, startEmulated } from '../helpers/emulated';
import { runNode } from '../helpers/n8n';
import { probeNode } from '../helpers/probe-node';

type Stream = NodeJS.ReadableStream & { pipe: (dest: unknown) => unknown };

/** How n8n's binary store consumes a stream, one per binary data mode family. */
const CONSUMERS: Record<string, (stream: Stream) => Promise<Buffer>> = {
	"'data' listener, never resumed (database / in-memory modes)": async (stream) =>
		await new Promise((resolve, reject) => {
			const chunks: Buffer[] = [];
			stream.on('data', (c: Buffer) => chunks.push(c));
			stream.once('end', () => resolve(Buffer.concat(chunks)));
			stream.once('error', reject);
		}),
	'async iteration (filesystem mode)': async (stream) => {
		const chunks: Buffer[] = [];
		for await (const c of stream as AsyncIterable<Buffer>) chunks.push(c);
		return Buffer.concat(chunks);
	},
	pipe: async (stream) =>
		await new Promise((resolve, reject) => {
			const chunks: Buffer[] = [];
			stream.pipe({
				write: (c: Buffer) => chunks.push(c) > 0,
				end: () => resolve(Buffer.concat(chunks)),
				on: () => undefined,
				once: () => undefined,
				emit: () => false,
				removeListener: () => undefined,
			});
			stream.once('error', reject);
		}),
};

let env: Emulated;
let job: { id: string; output: { sha256: string } };
beforeEach(async () => {
	env = await startEmulated({ jobTiming: { queuedMs: 0, runningMs: 0 }, outputBytes: 3 * 2 ** 20 });
	const res = await fetch(`${env.emu.baseUrl}/jobs`, {
		method: 'POST',
		headers: {
			Authorization: `Bearer ${env.emu.keys.full}`,
			'Content-Type': 'application/json',
			'Idempotency-Key': ['download', 'test', 'job', '0001'].join('-'),
		},
		body: JSON.stringify({ mode: 'text_to_video', prompt: 'x' }),
	});
	const { id } = ((await res.json()) as { data: { id: string } }).data;
	await env.clock.clock.sleep(5000);
	job = env.emu.control.jobs().find((j) => j.id === id) as unknown as typeof job;
});
afterEach(async () => {
	await env.close();
});

describe('the tap on a raw HTTP response (what n8n 2.x hands a worker in queue mode)', () => {
	it.each(Object.keys(CONSUMERS))('%s', async (name) => {
		const res = await axios.get(`${env.emu.baseUrl}/jobs/${job.id}/output`, {
			headers: { Authorization: `Bearer ${env.emu.keys.full}` },
			responseType: 'stream',
			decompress: false,
		});
		const tap = tapStream(res.data as BinaryStream);
		await sleep(20); // n8n attaches its consumer later, after I/O of its own
		const stored = await CONSUMERS[name](tap.stream as unknown as Stream);
		expect(tap.bytes).toBe(stored.length);
		expect(tap.sha256()).toBe(job.output.sha256);
		expect(sha256(stored)).toBe(job.output.sha256);
	});
});

describe('the download is hashed in the one pass n8n makes to store it', () => {
	it.each(Object.keys(CONSUMERS))('%s', async (name) => {
		let stored: Buffer | undefined;
		const [[item]] = await runNode({
			node: probeNode(async function (this: IExecuteFunctions) {
				(this.helpers as { prepareBinaryData: unknown }).prepareBinaryData = async (
					stream: Stream,
				): Promise<IBinaryData> => {
					await sleep(20); // n8n attaches its consumer later, after I/O of its own
					stored = await CONSUMERS[name](stream);
					return { data: '', mimeType: 'video/mp4' };
				};
				const binary = await downloadBinary(this, {
					path: `/jobs/${job.id}/output`,
					itemIndex: 0,
					fileName: 'x.mp4',
					mimeType: 'video/mp4',
					expectedSha256: job.output.sha256,
				});
				return { mimeType: binary.mimeType };
			}),
			parameters: {},
			credentials: env.credentials,
		});
		expect(item.json.mimeType).toBe('video/mp4');
		expect(stored?.length).toBe(3 * 2 ** 20);
		expect(sha256(stored!)).toBe(job.output.sha256);
	});
});
