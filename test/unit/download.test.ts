/**
 * The download is hashed while n8n stores it, whichever way n8n's binary helper reads the response
 * stream: with a 'data' listener and no resume (database and in-memory binary modes), with async
 * iteration (filesystem mode), or with pipe. Real HTTP (the emulator): a real socket stream honours
 * pause() as n8n's does (nock's does not). A consumer that never got the bytes would hang; a short or
 * wrong file fails the sha256 check (or the length check), is asked for again as the client's
 * RETRY_POLICY says and, wrong every time, fails naming the job, with no file output.
 */
import axios from 'axios';
import nock from 'nock';
import type { IBinaryData, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { sleep } from 'n8n-workflow';

import { GenerationServiceJob } from '../../nodes/GenerationServiceJob/GenerationServiceJob.node';
import { RETRY_POLICY } from '../../nodes/shared/service/client';
import { downloadBinary, tapStream } from '../../nodes/shared/service/files';
import type { BinaryStream } from '../../nodes/shared/service/service';
import type { Emulated } from '../helpers/emulated';
import { sha256, startEmulated } from '../helpers/emulated';
import { binaryBytes, runNode } from '../helpers/n8n';
import { probeNode } from '../helpers/probe-node';

// nock patches Node's http on import; only the describe below that answers with it turns it on
beforeAll(() => {
	if (nock.isActive()) nock.restore();
});

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

describe('a short or wrong file fails the sha256 check: asked again as RETRY_POLICY says, never output', () => {
	const OUTPUT_BYTES = 3 * 2 ** 20;
	const node = new GenerationServiceJob();
	const outputPath = () => `/v1/jobs/${job.id}/output`;

	/** Download Output of the job, with Continue On Fail: a failure is an item of its own. */
	async function downloadOutput(): Promise<INodeExecutionData[]> {
		env.emu.control.clearJournal(); // outputTries: the node's requests only
		const [items] = await runNode({
			node,
			parameters: {
				resource: 'job',
				operation: 'downloadOutput',
				jobId: { __rl: true, mode: 'id', value: job.id },
				options: {},
			},
			// a key the test sends nothing else with: alone on it, the pacer does not spread the tries
			credentials: { ...env.credentials, apiKey: env.emu.keys.readOnly },
			continueOnFail: true,
		});
		return items;
	}

	/** The job's right output, as the service has it (read with another key than the node's). */
	async function rightOutput(): Promise<Buffer> {
		const res = await fetch(`${env.emu.baseUrl}/jobs/${job.id}/output`, {
			headers: { Authorization: `Bearer ${env.emu.keys.full}` },
		});
		const bytes = Buffer.from(await res.arrayBuffer());
		expect(sha256(bytes)).toBe(job.output.sha256);
		return bytes;
	}

	/** When the emulator was asked for the output since the node run began, oldest first. */
	const outputTries = () =>
		env.emu.control
			.journal()
			.filter((e) => e.method === 'GET' && e.path === outputPath())
			.map((e) => e.at);

	/**
	 * `count` tries, each retry after the client's backoff: the n-th waits between half of and all of
	 * baseDelayMs × 2^(n-1).
	 */
	function expectBackoffs(tries: number[], count: number): void {
		expect(tries).toHaveLength(count);
		tries.slice(1).forEach((at, i) => {
			const backoff = RETRY_POLICY.baseDelayMs * 2 ** i;
			expect(at - tries[i]).toBeGreaterThanOrEqual(backoff / 2);
			expect(at - tries[i]).toBeLessThanOrEqual(backoff);
		});
	}

	/** The one output item is the error, naming the job and what to do; no binary came with it. */
	function expectNoFile(items: INodeExecutionData[], problem: string): void {
		expect(items).toHaveLength(1);
		const [item] = items;
		expect(item.binary).toBeUndefined();
		expect(item.json.code).toBe('download_failed');
		expect(item.json.error).toBe(
			`Job ${job.id}: download failed after ${RETRY_POLICY.attempts} tries: ${problem}. ` +
				'No file was output. Run the node again later ' +
				`(the file stays available on the service: use Download Output with job ${job.id}).`,
		);
	}

	const sha256Problem = (got: Buffer) =>
		`the downloaded file's sha256 (${sha256(got)}) does not match the service's output.sha256 (${job.output.sha256})`;

	it('one byte changed (same length) every time: the sha256 error naming the job, no binary', async () => {
		const wrong = Buffer.from(await rightOutput());
		wrong[OUTPUT_BYTES - 1] ^= 0xff; // what the corrupt fault below sends
		env.emu.control.injectFault({
			method: 'GET',
			path: outputPath(),
			action: 'corrupt',
			afterBytes: OUTPUT_BYTES - 1, // flips the bytes from there on: the last one only
			times: RETRY_POLICY.attempts,
		});
		const items = await downloadOutput();
		expectNoFile(items, sha256Problem(wrong));
		expectBackoffs(outputTries(), RETRY_POLICY.attempts);
	});

	it('cut short where its Content-Length says more (the connection closes mid-body) every time: the short-download error, no binary', async () => {
		env.emu.control.injectFault({
			method: 'GET',
			path: outputPath(),
			action: 'truncate', // sends the whole file's Content-Length, then half the body
			afterBytes: OUTPUT_BYTES / 2,
			times: RETRY_POLICY.attempts,
		});
		const items = await downloadOutput();
		expectNoFile(items, `the download of /jobs/${job.id}/output was cut off`);
		expectBackoffs(outputTries(), RETRY_POLICY.attempts);
	});

	it('wrong the first time, right the second: one binary, its sha256 right', async () => {
		env.emu.control.injectFault({
			method: 'GET',
			path: outputPath(),
			action: 'corrupt',
			afterBytes: OUTPUT_BYTES - 1,
		});
		const items = await downloadOutput();
		expect(items).toHaveLength(1);
		const [item] = items;
		expect(item.json.error).toBeUndefined();
		expect(item.binary?.data).toMatchObject({ mimeType: 'video/mp4', fileName: `${job.id}.mp4` });
		const bytes = await binaryBytes(item);
		expect(bytes.length).toBe(OUTPUT_BYTES);
		expect(sha256(bytes)).toBe(job.output.sha256);
		expectBackoffs(outputTries(), 2);
	});

	describe('answered by nock on the output path (the emulator answers the rest)', () => {
		let answered: number[];
		/** Every try of the output gets the first half of the file, with these headers. */
		async function halfEveryTime(headers: Record<string, string>): Promise<Buffer> {
			const half = (await rightOutput()).subarray(0, OUTPUT_BYTES / 2);
			answered = [];
			nock(new URL(env.emu.baseUrl).origin, { allowUnmocked: true })
				.get(outputPath())
				.times(RETRY_POLICY.attempts)
				.reply(() => {
					answered.push(env.clock.clock.now());
					return [200, half, { 'Content-Type': 'video/mp4', ...headers }];
				});
			return half;
		}
		beforeAll(() => nock.activate());
		afterEach(() => {
			const done = nock.isDone();
			nock.cleanAll();
			expect(done).toBe(true);
		});
		afterAll(() => nock.restore());

		it('cut short with no Content-Length every time: the sha256 error naming the job, no binary', async () => {
			const half = await halfEveryTime({});
			const items = await downloadOutput();
			expectNoFile(items, sha256Problem(half));
			expectBackoffs(answered, RETRY_POLICY.attempts);
		});

		it('cut short, the body ending cleanly where its Content-Length says more, every time: the short-download error, no binary', async () => {
			await halfEveryTime({ 'Content-Length': String(OUTPUT_BYTES) });
			const items = await downloadOutput();
			expectNoFile(items, `the download of /jobs/${job.id}/output was cut off`);
			expectBackoffs(answered, RETRY_POLICY.attempts);
		});
	});
});
