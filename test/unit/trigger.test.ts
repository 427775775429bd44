import { createHash } from 'crypto';
import nock from 'nock';
import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import { GenerationServiceTrigger } from '../../nodes/GenerationServiceTrigger/GenerationServiceTrigger.node';
import {
	OVERLAP_MS,
	STALE_MS,
	advanceCursor,
	firstCursor,
	readCursor,
	type TriggerCursor,
} from '../../nodes/GenerationServiceTrigger/cursor';
import { SAMPLE_VIDEO_MP4 } from '../../emulator/src/samples';
import { TEST_KEY, binaryBytes, runPoll } from '../helpers/n8n';
import { useNock } from '../helpers/nock';

const BASE = 'https://api.gen.test/v1';
const node = new GenerationServiceTrigger();
const mp4 = Buffer.from(SAMPLE_VIDEO_MP4, 'base64');
const mp4Sha = createHash('sha256').update(mp4).digest('hex');
const AUTH = `Bearer ${TEST_KEY}`;

const mocked = useNock();

function id(n: number) {
	return `job_${n.toString(16).padStart(32, '0')}`;
}

/** The virtual clock's start in every test (it moves on while a test runs). */
const T0 = Date.UTC(2026, 10, 22, 12, 0, 0);

/** A job created `ageS` seconds before the virtual clock's start, last updated 5 s later if it ended. */
function job(n: number, state: string, ageS: number, extra: IDataObject = {}) {
	const t0 = T0;
	return {
		id: id(n),
		state,
		input: { mode: 'text_to_video', prompt: `job ${n}` },
		reservedCredits: 8,
		chargedCredits: state === 'succeeded' ? 7 : 0,
		output:
			state === 'succeeded'
				? { assetId: `asset_${'e'.repeat(32)}`, mimeType: 'video/mp4', sha256: mp4Sha }
				: null,
		outputUrl: state === 'succeeded' ? `/v1/jobs/${id(n)}/output` : null,
		errorCode: state === 'failed' ? 'generation_failed' : null,
		createdAt: t0 - ageS * 1000,
		updatedAt: t0 - ageS * 1000 + (state === 'succeeded' || state === 'failed' ? 5000 : 0),
		replayed: false,
		...extra,
	};
}

const page = (items: IDataObject[], nextCursor: string | null = null) => ({
	data: { items, nextCursor },
});

function poll(
	staticData: IDataObject | undefined,
	parameters: IDataObject = {},
	mode: 'trigger' | 'manual' = 'trigger',
) {
	return runPoll({
		node,
		parameters: { event: 'jobFinished', jobState: 'both', modes: [], options: {}, ...parameters },
		credentials: { apiKey: TEST_KEY, baseUrl: BASE },
		staticData,
		mode,
	});
}

const ids = (result: INodeExecutionData[][] | null) =>
	(result?.[0] ?? []).map((item) => item.json.id as string);
const cursorOf = (staticData: IDataObject) =>
	staticData['node:Generation Service Trigger'] as { cursor: TriggerCursor };

describe('Trigger node: exact requests', () => {
	it('first activation lists one page (limit=100), emits nothing and remembers open and ended jobs', async () => {
		const scope = nock(BASE)
			.get('/jobs')
			.query({ limit: '100' })
			.matchHeader('authorization', AUTH)
			.reply(200, page([job(3, 'running', 20), job(2, 'succeeded', 60), job(1, 'failed', 90)]));
		const { result, staticData } = await poll(undefined);
		expect(result).toBeNull();
		scope.done();
		const { cursor } = cursorOf(staticData);
		expect(cursor.open).toEqual({ [id(3)]: job(3, 'running', 20).createdAt });
		expect(Object.keys(cursor.done).sort()).toEqual([id(1), id(2)]);
		expect(cursor.floor).toBe(job(3, 'running', 20).createdAt - OVERLAP_MS);
		expect(cursor.newest).toBe(job(3, 'running', 20).createdAt);
	});

	it('next poll emits the job that ended and a new one, in finish order, with one request', async () => {
		nock(BASE)
			.get('/jobs')
			.query({ limit: '100' })
			.reply(200, page([job(3, 'running', 20), job(2, 'succeeded', 60)]));
		const first = await poll(undefined);
		const scope = nock(BASE)
			.get('/jobs')
			.query({ limit: '100' })
			.matchHeader('authorization', AUTH)
			.reply(
				200,
				page([
					job(4, 'failed', 5, { updatedAt: mocked.clock.state.now - 1000 }),
					job(3, 'succeeded', 20, { updatedAt: mocked.clock.state.now - 2000 }),
					job(2, 'succeeded', 60),
				]),
			);
		const second = await poll(first.staticData);
		scope.done();
		expect(ids(second.result)).toEqual([id(3), id(4)]);
		expect(second.result![0][0].json).toMatchObject({ state: 'succeeded', id: id(3) });
		expect(second.result![0][0].binary).toBeUndefined();
		const { cursor } = cursorOf(second.staticData);
		expect(cursor.open).toEqual({});
		expect(Object.keys(cursor.done).sort()).toEqual([id(2), id(3), id(4)]);

		nock(BASE)
			.get('/jobs')
			.query({ limit: '100' })
			.reply(200, page([job(4, 'failed', 5), job(3, 'succeeded', 20), job(2, 'succeeded', 60)]));
		const third = await poll(second.staticData);
		expect(third.result).toBeNull();
		expect(third.dataChanged).toBe(false);
	});

	it('follows nextCursor and stops at the first page that ends below the floor', async () => {
		nock(BASE)
			.get('/jobs')
			.query({ limit: '100' })
			.reply(200, page([job(1, 'succeeded', 3600)]));
		const first = await poll(undefined);
		const floor = cursorOf(first.staticData).cursor.floor;
		const fresh = Array.from({ length: 100 }, (_, i) => job(1000 - i, 'succeeded', 100 - i * 0.5));
		const scope = nock(BASE)
			.get('/jobs')
			.query({ limit: '100' })
			.reply(200, page(fresh, 'CURSOR-2'))
			.get('/jobs')
			.query({ limit: '100', cursor: 'CURSOR-2' })
			.reply(
				200,
				page(
					[job(5, 'succeeded', 200), job(1, 'succeeded', 3600), job(6, 'succeeded', 4000)],
					'CURSOR-3',
				),
			);
		const second = await poll(first.staticData);
		scope.done();
		expect(job(6, 'succeeded', 4000).createdAt).toBeLessThan(floor);
		expect(ids(second.result)).toHaveLength(101);
		expect(new Set(ids(second.result)).size).toBe(101);
		expect(ids(second.result)).not.toContain(id(1));
		expect(ids(second.result)).not.toContain(id(6));
		expect(nock.pendingMocks()).toEqual([]);
	});

	it('reads a stale open job by id (GET /jobs/{id}) and drops one that no longer exists', async () => {
		const old = job(7, 'running', STALE_MS / 1000 + 600);
		const gone = job(8, 'queued', STALE_MS / 1000 + 700);
		const stored: IDataObject = {
			'node:Generation Service Trigger': {
				cursor: {
					version: 1,
					newest: mocked.clock.state.now - 10_000,
					floor: mocked.clock.state.now - 10_000 - OVERLAP_MS,
					open: { [old.id]: old.createdAt, [gone.id]: gone.createdAt },
					done: {},
				},
			},
		};
		const scope = nock(BASE)
			.get('/jobs')
			.query({ limit: '100' })
			.reply(200, page([job(9, 'running', 10)]))
			.get(`/jobs/${old.id}`)
			.matchHeader('authorization', AUTH)
			.reply(200, { data: { ...old, state: 'failed', errorCode: 'generation_failed' } })
			.get(`/jobs/${gone.id}`)
			.reply(404, {
				error: { code: 'not_found', message: 'Geração não encontrada.' },
				requestId: 'r',
			});
		const { result, staticData } = await poll(stored);
		scope.done();
		expect(ids(result)).toEqual([old.id]);
		expect(cursorOf(staticData).cursor.open).toEqual({ [id(9)]: job(9, 'running', 10).createdAt });
	});

	it('Job State and Modes filters leave other jobs out, and never emit them later', async () => {
		nock(BASE).get('/jobs').query({ limit: '100' }).reply(200, page([]));
		const first = await poll(undefined, { jobState: 'failed', modes: ['image_to_video'] });
		nock(BASE)
			.get('/jobs')
			.query({ limit: '100' })
			.reply(
				200,
				page([
					job(13, 'failed', 4, { input: { mode: 'image_to_video' } }),
					job(12, 'failed', 5, { input: { mode: 'text_to_video' } }),
					job(11, 'succeeded', 6, { input: { mode: 'image_to_video' } }),
				]),
			);
		const second = await poll(first.staticData, {
			jobState: 'failed',
			modes: ['image_to_video'],
		});
		expect(ids(second.result)).toEqual([id(13)]);
		nock(BASE)
			.get('/jobs')
			.query({ limit: '100' })
			.reply(200, page([job(13, 'failed', 4), job(12, 'failed', 5), job(11, 'succeeded', 6)]));
		const third = await poll(second.staticData);
		expect(third.result).toBeNull();
	});

	it('Download Output fetches GET /jobs/{id}/output for succeeded jobs only', async () => {
		nock(BASE).get('/jobs').query({ limit: '100' }).reply(200, page([]));
		const first = await poll(undefined);
		const scope = nock(BASE)
			.get('/jobs')
			.query({ limit: '100' })
			.reply(200, page([job(21, 'failed', 2), job(20, 'succeeded', 3)]))
			.get(`/jobs/${id(20)}/output`)
			.matchHeader('authorization', AUTH)
			.matchHeader('accept', '*/*')
			.reply(200, mp4, { 'Content-Type': 'video/mp4', 'Content-Length': String(mp4.length) });
		const options = { downloadOutput: true, binaryPropertyName: 'video' };
		const { result } = await poll(first.staticData, { options });
		scope.done();
		const [succeeded, failed] = result![0];
		expect(succeeded.json.id).toBe(id(20));
		expect((await binaryBytes(succeeded, 'video')).equals(mp4)).toBe(true);
		expect(succeeded.binary!.video).toMatchObject({ mimeType: 'video/mp4' });
		expect(failed.binary).toBeUndefined();
	});

	it('a failed download fails the poll and stores nothing, so the next poll repeats it', async () => {
		nock(BASE).get('/jobs').query({ limit: '100' }).reply(200, page([]));
		const first = await poll(undefined);
		nock(BASE)
			.get('/jobs')
			.query({ limit: '100' })
			.reply(200, page([job(30, 'succeeded', 3)]))
			.get(`/jobs/${id(30)}/output`)
			.times(3)
			.reply(200, Buffer.from('not the video'), { 'Content-Type': 'video/mp4' });
		await expect(poll(first.staticData, { options: { downloadOutput: true } })).rejects.toThrow(
			/sha256/,
		);
		nock(BASE)
			.get('/jobs')
			.query({ limit: '100' })
			.reply(200, page([job(30, 'succeeded', 3)]))
			.get(`/jobs/${id(30)}/output`)
			.reply(200, mp4, { 'Content-Type': 'video/mp4' });
		const retried = await poll(first.staticData, { options: { downloadOutput: true } });
		expect(ids(retried.result)).toEqual([id(30)]);
	});

	it('manual mode returns the most recently finished matching job and leaves the cursor alone', async () => {
		const scope = nock(BASE)
			.get('/jobs')
			.query({ limit: '100' })
			.reply(
				200,
				page([
					job(42, 'running', 1),
					job(41, 'succeeded', 30, { updatedAt: mocked.clock.state.now - 20_000 }),
					job(40, 'failed', 60, { updatedAt: mocked.clock.state.now - 10_000 }),
				]),
			);
		const stored = { 'node:Generation Service Trigger': { cursor: { version: 1 } } };
		const { result, staticData, dataChanged } = await poll(stored, {}, 'manual');
		scope.done();
		expect(ids(result)).toEqual([id(40)]);
		expect(staticData).toEqual(stored);
		expect(dataChanged).toBe(false);

		nock(BASE)
			.get('/jobs')
			.query({ limit: '100' })
			.reply(200, page([job(42, 'running', 1), job(40, 'failed', 60)]));
		const onlySucceeded = await poll(undefined, { jobState: 'succeeded' }, 'manual');
		expect(onlySucceeded.result).toBeNull();
	});

	it('an unusable stored cursor counts as a first activation', async () => {
		nock(BASE)
			.get('/jobs')
			.query({ limit: '100' })
			.reply(200, page([job(50, 'succeeded', 1)]));
		const stored = { 'node:Generation Service Trigger': { cursor: { version: 99 } } };
		const { result, staticData } = await poll(stored);
		expect(result).toBeNull();
		expect(readCursor(cursorOf(staticData).cursor)).toBeDefined();
	});
});

describe('Trigger cursor (pure)', () => {
	const walk = (top: number, low: number, complete = true, next?: string) => ({
		top,
		low,
		complete,
		next,
	});

	it('floor = min(newest − overlap, oldest non-stale open), never lower than before', () => {
		const base = { newest: 0, floor: 0, done: {} };
		const next = advanceCursor(base, walk(1_000_000, 0), { a: 990_000 }, { b: 995_000 });
		expect(next.floor).toBe(1_000_000 - OVERLAP_MS);
		const withOld = advanceCursor(base, walk(1_000_000, 0), { a: 600_000 }, {});
		expect(withOld.floor).toBe(600_000);
		const later = advanceCursor(withOld, walk(1_000_000, 0), {}, {});
		expect(later.floor).toBe(1_000_000 - OVERLAP_MS);
		const never = advanceCursor(later, walk(1_000_000, 0), { old: 100 }, {});
		expect(never.floor).toBe(later.floor);
	});

	it('a stale open job does not hold the floor down; a first walk cut short counts below it as history', () => {
		const newest = STALE_MS * 3;
		const stale = advanceCursor(
			{ newest: 0, floor: 0, done: {} },
			walk(newest, 0),
			{ s: newest - STALE_MS - 1 },
			{},
		);
		expect(stale.floor).toBe(newest - OVERLAP_MS);
		expect(stale.open).toEqual({ s: newest - STALE_MS - 1 });
		const short = firstCursor(walk(newest, newest - 60_000 * 10, false), {}, {});
		expect(short.floor).toBe(newest - 60_000 * 10);
		expect(short.pass).toBeUndefined();
	});

	it('a pass cut short leaves newest and floor as they were and keeps where to go on', () => {
		const previous = { newest: 5_000_000, floor: 4_000_000, done: { old: 4_100_000 } };
		// the pass listed down to 4.6 M: the jobs between the floor and there (some maybe created since the
		// last complete pass) are not listed yet, so nothing below may be forgotten
		const cut = advanceCursor(
			previous,
			walk(5_400_000, 4_600_000, false, 'PAGE-3'),
			{ o: 4_700_000 },
			{
				e: 5_300_000,
			},
		);
		expect(cut).toMatchObject({ newest: 5_000_000, floor: 4_000_000 });
		expect(cut.pass).toEqual({ page: 'PAGE-3', top: 5_400_000, low: 4_600_000 });
		expect(cut.done).toEqual({ old: 4_100_000, e: 5_300_000 });
		// cut before its first page: nothing to go on from
		const none = advanceCursor(previous, walk(-Infinity, Infinity, false), {}, {});
		expect(none).toMatchObject({ newest: 5_000_000, floor: 4_000_000 });
		expect(none.pass).toBeUndefined();
		// completed at the next poll: newest is the pass's top, the floor moves up, the pass is gone
		const done = advanceCursor(cut, walk(5_400_000, 3_900_000), {}, {});
		expect(done).toMatchObject({ newest: 5_400_000, floor: 5_400_000 - OVERLAP_MS });
		expect(done.pass).toBeUndefined();
	});

	it('done forgets ids below the new floor and never holds an open id', () => {
		const next = advanceCursor(
			{ newest: 10_000_000, floor: 0, done: { old: 1, kept: 9_900_000, reopened: 9_950_000 } },
			walk(10_000_000, 0),
			{ reopened: 9_950_000 },
			{ fresh: 10_000_000 },
		);
		expect(next.done).toEqual({ kept: 9_900_000, fresh: 10_000_000 });
	});

	it('readCursor accepts only its own shape (a pass of another shape is dropped)', () => {
		expect(readCursor(undefined)).toBeUndefined();
		expect(readCursor({ version: 1, newest: 1, floor: 0, open: [], done: {} })).toBeUndefined();
		expect(readCursor({ version: 1, newest: 1, floor: 0, open: { a: 'x' }, done: {} })).toBe(
			undefined,
		);
		expect(readCursor({ version: 1, newest: 1, floor: 0, open: {}, done: { a: 2 } })).toEqual({
			version: 1,
			newest: 1,
			floor: 0,
			open: {},
			done: { a: 2 },
		});
		const pass = { page: 'P', top: 3, low: 2 };
		expect(readCursor({ version: 1, newest: 1, floor: 0, open: {}, done: {}, pass })?.pass).toEqual(
			pass,
		);
		for (const bad of [{ ...pass, page: '' }, { ...pass, top: 'x' }, 'P']) {
			const read = readCursor({ version: 1, newest: 1, floor: 0, open: {}, done: {}, pass: bad });
			expect(read).toBeDefined();
			expect(read!.pass).toBeUndefined();
		}
	});
});
