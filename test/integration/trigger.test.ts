import type { IDataObject } from 'n8n-workflow';

import type { JobScript } from '../../emulator/src';
import type { JournalEntry } from '../../emulator/src/journal';
import { GenerationServiceTrigger } from '../../nodes/GenerationServiceTrigger/GenerationServiceTrigger.node';
import { OVERLAP_MS } from '../../nodes/GenerationServiceTrigger/cursor';
import type { Emulated } from '../helpers/emulated';
import { sha256, startEmulated } from '../helpers/emulated';
import { binaryBytes, runPoll } from '../helpers/n8n';
import { cursorOf, ids, items, tally } from '../helpers/trigger-output';
import { testClock } from '../helpers/serviceClock';

let env: Emulated;
/** Called after each /v1 request the emulator answered (to move time while a poll runs). */
let onRequest: ((entry: JournalEntry) => void) | undefined;
let creators: string[] = [];
let seen = 0;
let keyCounter = 0;

beforeEach(async () => {
	onRequest = undefined;
	seen = 0;
	env = await startEmulated({
		speed: 'manual',
		onChange: (control) => {
			const journal = control.journal();
			if (journal.length === seen) return;
			seen = journal.length;
			onRequest?.(journal[journal.length - 1]);
		},
	});
	seen = env.emu.control.journal().length;
	env.emu.control.grantCredits(10_000);
	// Jobs are created with three keys of their own (120 requests/min each), so a burst of 130 jobs
	// happens within one virtual millisecond and the trigger's key keeps its whole rate window.
	creators = [1, 2, 3].map(() => env.emu.control.createKey({ requestsPerMinute: 120 }).secret);
});
afterEach(async () => {
	await env.close();
});

const textJob = { mode: 'text_to_video', prompt: 'a cat surfing at dawn', durationSeconds: 5 };

/** POST /v1/jobs over real HTTP; `script` sets this job's timing/outcome in the emulator. */
async function createJob(script: JobScript = {}, body: IDataObject = textJob): Promise<string> {
	env.emu.control.scriptJobs([script]);
	const key = `trigger-test-job-${String(++keyCounter).padStart(6, '0')}`;
	const secret = creators[keyCounter % creators.length];
	for (;;) {
		const res = await fetch(`${env.emu.baseUrl}/jobs`, {
			method: 'POST',
			headers: {
				Authorization: `Bearer ${secret}`,
				'Content-Type': 'application/json',
				'Idempotency-Key': key,
			},
			body: JSON.stringify(body),
		});
		const json = (await res.json()) as { data: { id: string } };
		if (res.status === 429) {
			// Not expected with three creator keys; kept so a change of limits cannot hang a test.
			advance(Number(res.headers.get('retry-after') ?? 1) * 1000);
			continue;
		}
		if (res.status !== 202) throw new Error(`create failed: ${res.status} ${JSON.stringify(json)}`);
		return json.data.id;
	}
}

async function createJobs(scripts: JobScript[]): Promise<string[]> {
	const ids: string[] = [];
	for (const script of scripts) ids.push(await createJob(script));
	return ids;
}

const advance = (ms: number) => testClock.advance(ms);

const PARAMS = { event: 'jobFinished', jobState: 'both', modes: [], options: {} };

/** One poll by a fresh node instance (as after a restart), with the static data n8n saved. */
async function poll(
	staticData: IDataObject | undefined,
	parameters: IDataObject = {},
	extra: { mode?: 'manual' | 'trigger' } = {},
) {
	return await runPoll({
		node: new GenerationServiceTrigger(),
		parameters: { ...PARAMS, ...parameters } as never,
		credentials: env.credentials,
		staticData,
		mode: extra.mode ?? 'trigger',
	});
}

const listRequests = (from: number) =>
	env.emu.control
		.journal()
		.slice(from)
		.filter((e) => e.method === 'GET' && e.path === '/v1/jobs');

describe('Generation Service Trigger against the emulator', () => {
	it('emits every finished job exactly once: between and during polls, across pages and restarts', async () => {
		const emitted = tally();
		// History: ended before activation, never emitted.
		const history = await createJobs([{}, { outcome: 'failed' }, {}]);
		advance(30_000);
		// Created before activation, ends long after: followed as an open job.
		const [late] = await createJobs([{ queuedMs: 0, runningMs: 15 * 60_000 }]);
		advance(1_000);

		let state = (await poll(undefined)).staticData;
		expect(cursorOf(state).open).toEqual({ [late]: expect.any(Number) });

		// Between polls: one succeeds, one fails.
		const [a, b] = await createJobs([{}, { outcome: 'failed', runningMs: 3_000 }]);
		advance(15_000);
		let run = await poll(state);
		expect(emitted.add(run.result).sort()).toEqual([a, b].sort());
		expect(items(run.result).find((i) => i.json.id === b)!.json).toMatchObject({
			state: 'failed',
			errorCode: 'generation_failed',
			output: null,
		});
		state = run.staticData;

		// A job that runs for 4 minutes: nothing new on this poll.
		const [slow] = await createJobs([{ queuedMs: 0, runningMs: 4 * 60_000 }]);
		advance(10_000);
		run = await poll(state);
		expect(run.result).toBeNull();
		state = run.staticData;

		// A burst of 130 jobs created in the same millisecond: more than one page.
		const burst = await createJobs(Array.from({ length: 130 }, () => ({})));
		advance(20_000);
		const before = env.emu.control.journal().length;
		run = await poll(state);
		expect(emitted.add(run.result).sort()).toEqual([...burst].sort());
		expect(listRequests(before).map((e) => e.query)).toEqual([
			'limit=100',
			expect.stringMatching(/^limit=100&cursor=/),
		]);
		state = run.staticData;

		// 130 more; the 30 newest (page 1) and the 30 oldest (page 2) end 60 s after creation, and
		// time passes between the two page requests of the next poll: page 1 still sees its 30 as
		// running, page 2 sees its 30 as ended.
		const slowEnds = (i: number) => i < 30 || i >= 100;
		const second = await createJobs(
			Array.from({ length: 130 }, (_, i) =>
				slowEnds(i) ? { queuedMs: 0, runningMs: 60_000 } : {},
			),
		);
		advance(59_500);
		let pagesServed = 0;
		onRequest = (entry) => {
			if (entry.method === 'GET' && entry.path === '/v1/jobs' && ++pagesServed === 1)
				advance(1_000);
		};
		run = await poll(state);
		onRequest = undefined;
		const expectedNow = second.filter((_, i) => i >= 30 && i < 100).concat(second.slice(0, 30));
		expect(emitted.add(run.result).sort()).toEqual(expectedNow.sort());
		expect(Object.keys(cursorOf(run.staticData).open).sort()).toEqual(
			[late, slow, ...second.slice(100)].sort(),
		);
		state = run.staticData;

		run = await poll(state);
		expect(emitted.add(run.result).sort()).toEqual(second.slice(100).sort());
		state = run.staticData;

		// The 4-minute job, then the one created before activation (finishes after many polls).
		advance(3 * 60_000);
		run = await poll(state);
		expect(emitted.add(run.result)).toEqual([slow]);
		state = run.staticData;
		advance(11 * 60_000);
		run = await poll(state);
		expect(emitted.add(run.result)).toEqual([late]);
		state = run.staticData;

		run = await poll(state);
		expect(run.result).toBeNull();
		expect(run.dataChanged).toBe(false);

		// Exactly once: every job that ended after activation, once; history never.
		const all = env.emu.control.jobs();
		expect(all.every((j) => j.state === 'succeeded' || j.state === 'failed')).toBe(true);
		const expected = all.map((j) => j.id).filter((id) => !history.includes(id));
		expect([...emitted.counts.keys()].sort()).toEqual(expected.sort());
		expect([...emitted.counts.values()].every((n) => n === 1)).toBe(true);
		expect(emitted.counts.size).toBe(2 + 1 + 1 + 130 + 130);
		// The stored state stays bounded: nothing open, and only ids created within OVERLAP of the
		// newest job are kept (here all jobs were created within 2 minutes).
		const cursor = cursorOf(run.staticData);
		expect(cursor.open).toEqual({});
		expect(cursor.floor).toBe(cursor.newest - OVERLAP_MS);
		expect(Object.values(cursor.done).every((createdAt) => createdAt >= cursor.floor)).toBe(true);
	});

	it('first activation does not replay history; a manual run returns a sample and keeps the cursor', async () => {
		const empty = await poll(undefined, {}, { mode: 'manual' });
		expect(empty.result).toBeNull();

		const [ok, bad] = await createJobs([
			{ queuedMs: 0, runningMs: 2_000 },
			{ queuedMs: 0, runningMs: 8_000, outcome: 'failed' },
			{ queuedMs: 0, runningMs: 60 * 60_000 },
		]);
		advance(10_000);

		const sample = await poll(undefined, {}, { mode: 'manual' });
		expect(ids(sample.result)).toEqual([bad]);
		expect(sample.staticData).toEqual({});
		expect(sample.dataChanged).toBe(false);
		const succeeded = await poll(
			undefined,
			{ jobState: 'succeeded', options: { downloadOutput: true } },
			{ mode: 'manual' },
		);
		const [item] = items(succeeded.result);
		expect(item.json.id).toBe(ok);
		expect(sha256(await binaryBytes(item))).toBe((item.json.output as IDataObject).sha256);

		const activation = await poll(undefined);
		expect(activation.result).toBeNull();
		const next = await poll(activation.staticData);
		expect(next.result).toBeNull();

		// A manual run after activation does not move the stored cursor either.
		const stored = next.staticData;
		const manual = await poll(stored, {}, { mode: 'manual' });
		expect(ids(manual.result)).toEqual([bad]);
		expect(manual.staticData).toEqual(stored);
		expect(manual.dataChanged).toBe(false);
	});

	it('filters: failed only, and one mode only; left-out jobs are not replayed later', async () => {
		const initial = (await poll(undefined)).staticData;
		const charJob = {
			mode: 'character_replacement',
			sourceAssetId: env.videoId,
			referenceAssetId: env.imageId,
			durationSeconds: 5,
		};
		const imageJob = {
			mode: 'image_to_video',
			sourceAssetId: env.imageId,
			prompt: 'the character waves',
			durationSeconds: 5,
		};
		const textOk = await createJob({});
		const textFailed = await createJob({ outcome: 'failed' });
		const imageFailed = await createJob({ outcome: 'failed' }, imageJob);
		const imageOk = await createJob({}, imageJob);
		const charOk = await createJob({}, charJob);
		advance(20_000);

		const failedOnly = await poll(initial, { jobState: 'failed' });
		expect(ids(failedOnly.result).sort()).toEqual([textFailed, imageFailed].sort());

		const imageOnly = await poll(initial, { modes: ['image_to_video'] });
		expect(ids(imageOnly.result).sort()).toEqual([imageFailed, imageOk].sort());

		const charSucceeded = await poll(initial, {
			jobState: 'succeeded',
			modes: ['character_replacement', 'text_to_video'],
		});
		expect(ids(charSucceeded.result).sort()).toEqual([textOk, charOk].sort());

		// Switching the filter off later does not bring back the jobs it left out.
		const after = await poll(failedOnly.staticData);
		expect(after.result).toBeNull();
	});

	it('Download Output attaches the verified MP4 of succeeded jobs only', async () => {
		const initial = (await poll(undefined)).staticData;
		const [ok, bad] = await createJobs([{}, { outcome: 'failed' }]);
		advance(20_000);
		const before = env.emu.control.journal().length;
		const run = await poll(initial, {
			options: { downloadOutput: true, binaryPropertyName: 'video' },
		});
		const byId = new Map(items(run.result).map((i) => [i.json.id, i]));
		const video = byId.get(ok)!;
		const bytes = await binaryBytes(video, 'video');
		expect(sha256(bytes)).toBe((video.json.output as IDataObject).sha256);
		expect(bytes.toString('latin1', 4, 8)).toBe('ftyp');
		expect(video.binary!.video).toMatchObject({ mimeType: 'video/mp4', fileName: `${ok}.mp4` });
		expect(byId.get(bad)!.binary).toBeUndefined();
		const outputs = env.emu.control
			.journal()
			.slice(before)
			.filter((e) => e.path.endsWith('/output'));
		expect(outputs.map((e) => e.path)).toEqual([`/v1/jobs/${ok}/output`]);
	});
});
