/**
 * Fault matrix scenarios: faults injected by the emulator on real HTTP, driven through the Job node.
 * Each asserts the jobs that exist, the credits reserved/charged, the ledger invariant, and the output
 * or the error message. Shared by the fault-matrix suite and the secrets suite (which reruns them all
 * with a recognisable key).
 */
import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import { GenerationServiceAsset } from '../../nodes/GenerationServiceAsset/GenerationServiceAsset.node';
import { GenerationServiceJob } from '../../nodes/GenerationServiceJob/GenerationServiceJob.node';
import { CHARACTER_PNG } from '../../emulator/src/samples';
import type { EmulatorOptions } from '../../emulator/src';
import type { Emulated } from '../helpers/emulated';
import { sha256, startEmulated } from '../helpers/emulated';
import { binaryBytes, runNode } from '../helpers/n8n';

const jobNode = new GenerationServiceJob();
const assetNode = new GenerationServiceAsset();
const png = Buffer.from(CHARACTER_PNG, 'base64');
export const textJob = {
	mode: 'text_to_video',
	prompt: 'a lighthouse in a storm',
	durationSeconds: 5,
	aspectRatio: '9:16',
};

export interface FaultRun {
	env: Emulated;
	/** Shared with the scenario's emulator options (e.g. the key to revoke). */
	ctl: { keyId: string };
	/** Every output item and error the scenario saw (for the secrets suite). */
	seen: unknown[];
	runJob(
		parameters: IDataObject,
		extra?: Partial<Parameters<typeof runNode>[0]>,
	): Promise<INodeExecutionData[][]>;
	runAsset(parameters: IDataObject, items: INodeExecutionData[]): Promise<INodeExecutionData[][]>;
	failure(promise: Promise<unknown>): Promise<Error & { context: IDataObject }>;
	books(): {
		jobs: number;
		reserves: number;
		reserved: number;
		spent: number;
		invariantHolds: boolean;
	};
}

/** Counted by the runner from the emulator's books and what the nodes output, never by a scenario. */
export interface FaultOutcome {
	/** Jobs beyond one per distinct input, plus assets beyond one per distinct content. */
	duplicateJobs: number;
	/** Jobs the service kept (not failed) that no output item and no error names: paid, unreachable. */
	lostOutputs: number;
}

export interface Fault {
	name: string;
	emulator?: (ctl: { keyId: string }) => EmulatorOptions;
	run(f: FaultRun): Promise<void>;
}

/** Everything an item or error carries, as text (fields, message, description, causes). */
export function dump(value: unknown, depth = 0, seen = new Set<unknown>()): string {
	if (value === null || value === undefined || depth > 6) return '';
	if (typeof value !== 'object') return String(value);
	if (seen.has(value)) return '';
	seen.add(value);
	const parts: string[] = [];
	if (value instanceof Error) parts.push(value.message, String(value.stack));
	for (const key of Object.getOwnPropertyNames(value)) {
		parts.push(key, dump((value as Record<string, unknown>)[key], depth + 1, seen));
	}
	return parts.join('\n');
}

/** Duplicate jobs and lost outputs, from the emulator's jobs and assets and what the run saw. */
function countOutcome(env: Emulated, seen: unknown[], assetsBefore: Set<string>): FaultOutcome {
	const jobs = env.emu.control.jobs();
	const inputs = new Set(jobs.map((j) => JSON.stringify(j.input)));
	const uploads = env.emu.control
		.snapshot()
		.assets.filter((a) => a.origin === 'upload' && !assetsBefore.has(a.id));
	const contents = new Set(uploads.map((a) => a.sha256));
	const told = dump(seen);
	const lost = jobs.filter((j) => j.state !== 'failed' && !told.includes(j.id));
	return {
		duplicateJobs: jobs.length - inputs.size + (uploads.length - contents.size),
		lostOutputs: lost.length,
	};
}

/** Starts an emulator, makes `secret` (if given) a valid key there, and runs one scenario. */
export async function runFault(
	fault: Fault,
	secret?: string,
): Promise<FaultOutcome & { seen: unknown[] }> {
	const ctl = { keyId: '' };
	const env = await startEmulated(fault.emulator?.(ctl) ?? {});
	const assetsBefore = new Set(env.emu.control.snapshot().assets.map((a) => a.id));
	const apiKey = secret ? env.emu.control.createKey({ secret }).secret : env.credentials.apiKey;
	const seen: unknown[] = [];
	const f: FaultRun = {
		env,
		ctl,
		seen,
		runJob: async (parameters, extra = {}) => {
			const out = await runNode({
				node: jobNode,
				parameters: { resource: 'job', ...parameters } as never,
				credentials: { ...env.credentials, apiKey },
				...extra,
			});
			seen.push(out);
			return out;
		},
		runAsset: async (parameters, items) => {
			const out = await runNode({
				node: assetNode,
				parameters: { resource: 'asset', ...parameters } as never,
				credentials: { ...env.credentials, apiKey },
				items,
			});
			seen.push(out);
			return out;
		},
		failure: async (promise) => {
			try {
				await promise;
			} catch (error) {
				seen.push(error);
				return error as Error & { context: IDataObject };
			}
			throw new Error('expected a failure');
		},
		books: () => {
			const { balance, entries, invariantHolds } = env.emu.control.ledger();
			return {
				jobs: env.emu.control.jobs().length,
				reserves: entries.filter((e) => e.kind === 'reserve').length,
				reserved: balance.reserved,
				spent: balance.spent,
				invariantHolds,
			};
		},
	};
	try {
		await fault.run(f);
		return { ...countOutcome(env, seen, assetsBefore), seen };
	} finally {
		await env.close();
	}
}

const NOTHING_RESERVED = { jobs: 0, reserves: 0, reserved: 0, spent: 0, invariantHolds: true };
/** One job, one reservation (whether it has settled yet depends on how fast the job runs). */
const ONE_JOB_RESERVED = { jobs: 1, reserves: 1, invariantHolds: true };
const pngItem = (fileName: string): INodeExecutionData => ({
	json: {},
	binary: { data: { data: png.toString('base64'), mimeType: 'image/png', fileName } },
});

async function outputMatches(item: INodeExecutionData): Promise<boolean> {
	return sha256(await binaryBytes(item)) === (item.json.output as IDataObject).sha256;
}

export const FAULTS: Fault[] = [
	{
		name: 'connection reset after POST /v1/jobs was committed → retried with the same key, replayed: one job, one reservation',
		run: async (f) => {
			f.env.emu.control.injectFault({
				method: 'POST',
				path: '/v1/jobs',
				action: 'reset_after_commit',
			});
			const [[item]] = await f.runJob({ operation: 'create', ...textJob });
			const posts = f.env.emu.control
				.journal()
				.filter((e) => e.method === 'POST' && e.path === '/v1/jobs');
			expect(posts).toHaveLength(2);
			expect(posts[0].idempotencyKey).toBe(posts[1].idempotencyKey);
			expect(item.json.replayed).toBe(true);
			expect(f.books()).toMatchObject(ONE_JOB_RESERVED);
		},
	},
	{
		name: '500 before commit on create → retried, one job',
		run: async (f) => {
			f.env.emu.control.injectFault({
				method: 'POST',
				path: '/v1/jobs',
				action: 'error_500_before_commit',
			});
			const [[item]] = await f.runJob({ operation: 'create', ...textJob });
			expect(item.json).toMatchObject({ state: 'queued', replayed: false });
			expect(f.books()).toMatchObject(ONE_JOB_RESERVED);
		},
	},
	...['/v1/jobs/quote', '/v1/jobs'].map(
		(path): Fault => ({
			name: `503 engine_unavailable on ${path} → clear error, nothing reserved`,
			run: async (f) => {
				f.env.emu.control.injectFault({
					method: 'POST',
					path,
					action: 'error_503',
					code: 'engine_unavailable',
					times: 5,
				});
				const error = await f.failure(
					f.runJob({ operation: path.endsWith('quote') ? 'quote' : 'create', ...textJob }),
				);
				expect(error.message).toBe(
					'The generation engine is unavailable right now; no credits were reserved. Try again later (see Get Capabilities for the reason).',
				);
				expect(f.books()).toEqual(NOTHING_RESERVED);
			},
		}),
	),
	{
		name: '429 storm on create and on polls → completes, never requests before Retry-After',
		run: async (f) => {
			f.env.emu.control.injectFault({
				method: 'POST',
				path: '/v1/jobs',
				action: 'rate_limit',
				retryAfter: 3,
				times: 3,
			});
			f.env.emu.control.injectFault({
				method: 'GET',
				path: /^\/v1\/jobs\/job_[0-9a-f]+$/,
				action: 'rate_limit',
				retryAfter: 7,
				times: 2,
			});
			const [[item]] = await f.runJob({
				operation: 'create',
				...textJob,
				options: { waitForCompletion: true },
			});
			expect(item.json.state).toBe('succeeded');
			expect(await outputMatches(item)).toBe(true);
			const journal = f.env.emu.control.journal();
			let limited = 0;
			journal.forEach((entry, i) => {
				if (entry.status !== 429) return;
				limited++;
				const retryAfter = entry.method === 'POST' ? 3 : 7;
				const next = journal
					.slice(i + 1)
					.find((e) => e.method === entry.method && e.path === entry.path);
				expect(next!.at - entry.at).toBeGreaterThanOrEqual(retryAfter * 1000);
			});
			expect(limited).toBe(5);
			expect(f.books()).toMatchObject({ jobs: 1, reserves: 1, invariantHolds: true });
		},
	},
	{
		name: 'upload_rate_limit with a Retry-After of an hour → clear error saying when, no waiting',
		run: async (f) => {
			f.env.emu.control.injectFault({
				method: 'POST',
				path: '/v1/assets',
				action: 'rate_limit',
				code: 'upload_rate_limit',
				retryAfter: 3600,
			});
			const item = pngItem('c.png');
			const started = f.env.clock.state.now;
			const error = await f.failure(
				f.runAsset({ operation: 'upload', binaryPropertyName: 'data', options: {} }, [item]),
			);
			expect(error.message).toMatch(
				/^Upload limit reached \(20 uploads per hour per account\)\. Try again in 3600 s \(after \d{4}-\d\d-\d\dT[\d:.]+Z\)\. .* The node does not wait longer than 60 s/,
			);
			expect(f.env.emu.control.journal().filter((e) => e.path === '/v1/assets')).toHaveLength(1);
			// it failed instead of waiting the hour (or even the 60 s it may wait)
			expect(f.env.clock.state.now - started).toBeLessThan(60_000);
		},
	},
	{
		name: 'connection reset after an upload was stored → retried with the same key, replayed: one asset',
		run: async (f) => {
			const before = f.env.emu.control.assets().length;
			f.env.emu.control.injectFault({
				method: 'POST',
				path: '/v1/assets',
				action: 'reset_after_commit',
			});
			const item = pngItem('again.png');
			const [[out]] = await f.runAsset(
				{ operation: 'upload', binaryPropertyName: 'data', options: {} },
				[item],
			);
			expect(out.json.replayed).toBe(true);
			expect(f.env.emu.control.assets().length).toBe(before + 1);
		},
	},
	{
		name: 'download of the output truncated mid-stream → fetched again, sha256 matches',
		run: async (f) => {
			f.env.emu.control.setOutputBytes(256 * 1024);
			f.env.emu.control.injectFault({
				method: 'GET',
				path: /\/output$/,
				action: 'truncate',
				afterBytes: 100_000,
			});
			const [[item]] = await f.runJob({
				operation: 'create',
				...textJob,
				options: { waitForCompletion: true },
			});
			expect((await binaryBytes(item)).length).toBe(256 * 1024);
			expect(await outputMatches(item)).toBe(true);
			expect(f.env.emu.control.journal().filter((e) => e.path.endsWith('/output'))).toHaveLength(2);
		},
	},
	{
		name: 'a corrupted output body every time → sha256 mismatch error, no file output',
		run: async (f) => {
			f.env.emu.control.injectFault({
				method: 'GET',
				path: /\/output$/,
				action: 'corrupt',
				times: 3,
			});
			const error = await f.failure(
				f.runJob({ operation: 'create', ...textJob, options: { waitForCompletion: true } }),
			);
			expect(error.message).toMatch(
				/^Job job_[0-9a-f]{32}: download failed after 3 tries: the downloaded file's sha256 \([0-9a-f]{64}\) does not match the service's output.sha256 \([0-9a-f]{64}\)\. No file was output\./,
			);
			// Not lost: the job succeeded and its output stays downloadable on the service.
			expect(f.env.emu.control.jobs()[0].state).toBe('succeeded');
		},
	},
	{
		name: 'a corrupted output body once → fetched again, the file is right',
		run: async (f) => {
			f.env.emu.control.injectFault({
				method: 'GET',
				path: /\/output$/,
				action: 'corrupt',
				times: 1,
			});
			const [[item]] = await f.runJob({
				operation: 'create',
				...textJob,
				options: { waitForCompletion: true },
			});
			expect(await outputMatches(item)).toBe(true);
		},
	},
	{
		name: 'key revoked in the middle of a batch → clear 401 error, no retry loop',
		// The emulator calls onChange after each request: revoke the key once the first job exists.
		emulator: (ctl) => ({
			onChange: (control) => {
				if (ctl.keyId && control.jobs().length >= 1) {
					const id = ctl.keyId;
					ctl.keyId = '';
					control.revokeKey(id);
				}
			},
		}),
		run: async (f) => {
			const key = f.env.emu.control.createKey({});
			f.ctl.keyId = key.keyId;
			const error = await f.failure(
				f.runJob(
					{ operation: 'create', ...textJob, prompt: '={{ "scene " + $json.n }}' },
					{
						items: [{ json: { n: 1 } }, { json: { n: 2 } }, { json: { n: 3 } }],
						credentials: { ...f.env.credentials, apiKey: key.secret },
					},
				),
			);
			expect(error.message).toBe(
				'The API key was refused: it is wrong, expired or revoked. Create a new key in the dashboard and update the credential.',
			);
			expect(f.env.emu.control.journal().filter((e) => e.status === 401)).toHaveLength(1);
			expect(f.books().jobs).toBe(1);
		},
	},
	{
		name: 'account frozen between quote and create → billing_financial_review message, nothing reserved',
		run: async (f) => {
			const [[quote]] = await f.runJob({ operation: 'quote', ...textJob });
			expect(quote.json.sufficient).toBe(true);
			f.env.emu.control.freeze(true);
			const error = await f.failure(f.runJob({ operation: 'create', ...textJob }));
			expect(error.message).toBe(
				'The account is frozen for a financial review, so new generations are blocked (running jobs still finish). Resolve the pending payment matter in the dashboard.',
			);
			expect(error.context.errorCode).toBe('billing_financial_review');
			expect(f.books()).toEqual(NOTHING_RESERVED);
		},
	},
	{
		name: 'a job that fails → whole reservation released, the node reports the errorCode',
		run: async (f) => {
			f.env.emu.control.scriptJobs([{ outcome: 'failed', errorCode: 'content_policy' }]);
			const error = await f.failure(
				f.runJob({ operation: 'create', ...textJob, options: { waitForCompletion: true } }),
			);
			expect(error.context.errorCode).toBe('content_policy');
			expect(f.books()).toEqual({
				jobs: 1,
				reserves: 1,
				reserved: 0,
				spent: 0,
				invariantHolds: true,
			});
		},
	},
];
