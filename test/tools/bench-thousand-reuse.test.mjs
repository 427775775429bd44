// Part 7 of the bench over several sessions (bench/parts/thousand-reuse.mjs, thousand.mjs runSteps): a run's
// record that --thousand-dump wrote in an earlier session stands for the run under --thousand-reuse only when it
// was measured with the same settings on the same package sources and did not fail — a record taken wrongly
// would put another package's or another setting's figures into the docs under this one's name — and the
// section then says which runs came from which session and commit. The runs here are stubs: no n8n.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';

import { parseArgs } from '../../bench/options.mjs';
import { runSteps, stepSettings, options as thousandOptions } from '../../bench/parts/thousand.mjs';
import { emitThousand, scaleBlock } from '../../bench/parts/thousand-report.mjs';
import {
	BASE_INPUTS,
	SOURCE_INPUTS,
	baseSourcesAt,
	baseSourcesHash,
	sessionsText,
	sourcesHash,
	whyNotReused,
} from '../../bench/parts/thousand-reuse.mjs';
import { REPO } from '../../tools/lib/repo.mjs';

const work = fs.mkdtempSync(path.join(os.tmpdir(), 'gs-thousand-reuse-'));
after(() => fs.rmSync(work, { recursive: true, force: true }));
let dirs = 0;
const freshDir = () => path.join(work, `d${++dirs}`);

const DEFAULTS = Object.fromEntries(thousandOptions.map((s) => [s.key, s.default]));
/** The part's options: two runs at one worker count (records thousand-items.json, thousand-executions.json). */
const optOf = (over = {}) => ({
	...DEFAULTS,
	thousandJobs: 100,
	thousandRuns: ['items', 'executions'],
	...over,
});
const plan = (opt) =>
	opt.thousandRuns.map((name) => ({
		name,
		workers: opt.thousandWorkers[0],
		n: opt.thousandJobs,
		jobS: name === 'executions' ? opt.thousandParkJobS : opt.thousandJobS,
		windowMs: opt.thousandWindowMs,
	}));

const FIRST = {
	sources: 'aaaa1111aaaa1111',
	commit: 'abc1234',
	session: '2026-11-28T10:00:00.000Z',
};
const SECOND = { sources: FIRST.sources, commit: 'def5678', session: '2026-11-29T09:00:00.000Z' };

/**
 * One session of the part: `opt`'s runs through runSteps, each measured by a stub that returns a record naming
 * `marker` (or throws for the runs in `fail`). { results, measured: the runs the stub was asked for, logs }.
 */
async function session(opt, at, { marker, fail = [] } = {}) {
	const measured = [];
	const logs = [];
	const results = await runSteps({
		opt,
		plan: plan(opt),
		log: (m) => logs.push(m),
		...at,
		measure: async (step) => {
			measured.push(step.name);
			if (fail.includes(step.name)) throw new Error('the stack did not start');
			return { ...step, marker };
		},
	});
	return { results, measured, logs };
}

describe('bench thousand over sessions: a record of the same settings and sources stands for its run', () => {
	it('the second session runs nothing: each run taken from the first session’s record, the log says whence', async () => {
		const dir = freshDir();
		const opt = optOf({ thousandReuse: dir, thousandDump: dir });
		const one = await session(opt, FIRST, { marker: 'first' });
		assert.deepEqual(one.measured, ['items', 'executions'], 'nothing in the folder yet');
		const file = path.join(dir, 'thousand-items.json');
		const written = JSON.parse(fs.readFileSync(file, 'utf8'));
		assert.deepEqual(written.provenance.settings, stepSettings(plan(opt)[0], opt));
		assert.deepEqual(
			{
				sources: written.provenance.sources,
				commit: written.provenance.commit,
				session: written.provenance.session,
			},
			FIRST,
		);
		assert.ok(Date.parse(written.provenance.measuredAt) > 0, 'the time the run started');
		const before = fs.readFileSync(file, 'utf8');

		const two = await session(opt, SECOND, { marker: 'second' });
		assert.deepEqual(two.measured, [], 'no run measured again');
		assert.deepEqual(
			two.results.map((r) => [r.name, r.marker, r.reused, r.provenance.commit]),
			[
				['items', 'first', file, 'abc1234'],
				['executions', 'first', path.join(dir, 'thousand-executions.json'), 'abc1234'],
			],
		);
		assert.match(
			two.logs[0],
			new RegExp(
				`^ {2}items \\(2 workers\\): reused from ${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}, measured ${written.provenance.measuredAt} at commit abc1234$`,
			),
		);
		assert.equal(fs.readFileSync(file, 'utf8'), before, 'the reused record left as it was');
	});

	it('with --thousand-dump into another folder, a reused record is copied there as it was', async () => {
		const from = freshDir();
		const to = freshDir();
		await session(optOf({ thousandDump: from }), FIRST, { marker: 'first' });
		const two = await session(optOf({ thousandReuse: from, thousandDump: to }), SECOND);
		assert.deepEqual(two.measured, []);
		assert.equal(
			fs.readFileSync(path.join(to, 'thousand-executions.json'), 'utf8'),
			fs.readFileSync(path.join(from, 'thousand-executions.json'), 'utf8'),
		);
	});
});

describe('bench thousand over sessions: a record is not reused', () => {
	/** A first session dumping into a fresh folder, then a second with `over` reusing it. */
	async function twoSessions(over, at = SECOND, first = {}) {
		const dir = freshDir();
		await session(optOf({ thousandDump: dir }), FIRST, { marker: 'first', ...first });
		return session(optOf({ thousandReuse: dir, thousandDump: dir, ...over }), at, {
			marker: 'second',
		});
	}

	it('measured with another setting: run again, and the log names the setting', async () => {
		const two = await twoSessions({ thousandConcurrency: 20 });
		assert.deepEqual(two.measured, ['items', 'executions']);
		assert.match(
			two.logs[0],
			/not reused from .*thousand-items\.json: other settings \(concurrency 10 there, 20 here\)/,
		);
		// one worker count names the records alike (thousand-items.json) at 2 workers and at 4: the settings tell
		const four = await twoSessions({ thousandWorkers: [4] });
		assert.deepEqual(four.measured, ['items', 'executions']);
		assert.match(four.logs[0], /other settings \(workers 2 there, 4 here\)/);
	});

	it('measured on other package sources: run again, and the new record replaces it', async () => {
		const two = await twoSessions({}, { ...SECOND, sources: 'bbbb2222bbbb2222' });
		assert.deepEqual(two.measured, ['items', 'executions']);
		assert.match(
			two.logs[0],
			/other package sources \(aaaa1111aaaa1111 there, bbbb2222bbbb2222 here\)/,
		);
		assert.deepEqual(
			two.results.map((r) => [r.marker, r.reused, r.provenance.commit]),
			[
				['second', undefined, 'def5678'],
				['second', undefined, 'def5678'],
			],
		);
	});

	it('a run that failed: run again; the one that did not is reused', async () => {
		const two = await twoSessions({}, SECOND, { fail: ['executions'] });
		assert.deepEqual(two.measured, ['executions']);
		assert.match(
			two.logs[1],
			/not reused from .*thousand-executions\.json: it failed \(the stack did not start\)/,
		);
		assert.equal(two.results[0].marker, 'first');
	});
});

describe('bench thousand over sessions: a run of n8n’s own nodes stands across changes of the package', () => {
	// a base run runs none of the package's nodes, and its six runs at 2, 4 and 8 workers take about 1.5 hours:
	// a package change must not make them stale; the publish example's S3 node, which it runs, still must
	const opt = (dir) =>
		optOf({ thousandRuns: ['items', 'items-base'], thousandReuse: dir, thousandDump: dir });
	const OTHER_PACKAGE = { ...SECOND, sources: 'bbbb2222bbbb2222' };

	it('the package changed: ours measured again, the base reused; the publish example changed: the base too', async () => {
		const dir = freshDir();
		await session(opt(dir), { ...FIRST, baseSources: 'base0000base0000' }, { marker: 'first' });
		const two = await session(
			opt(dir),
			{ ...OTHER_PACKAGE, baseSources: 'base0000base0000' },
			{ marker: 'second' },
		);
		assert.deepEqual(two.measured, ['items']);
		const said = sessionsText(
			two.results.map((r, k) => ({ ...r, side: k ? 'base' : 'ours' })),
			{ sources: 'bbbb2222bbbb2222', baseSources: 'base0000base0000' },
		);
		assert.match(
			said,
			/\. Every run of ours on the same package sources \(sha256 bbbb2222bbbb2222 of [^)]*\)\. n8n's own nodes run none of the package's, so theirs stand as long as examples\/publish-to-s3\.json is the same \(sha256 base0000base0000\)\.$/,
		);
		assert.deepEqual(
			two.results.map((r) => [r.name, r.marker]),
			[
				['items', 'second'],
				['items-base', 'first'],
			],
		);
		const three = await session(
			opt(dir),
			{ ...OTHER_PACKAGE, baseSources: 'base1111base1111' },
			{ marker: 'third' },
		);
		assert.deepEqual(three.measured, ['items-base']);
		assert.match(
			three.logs[1],
			/not reused from .*thousand-items-base\.json: other examples\/publish-to-s3\.json \(base0000base0000 there, base1111base1111 here\)/,
		);
	});

	it('a record written before records carried it: the publish example at the record’s commit, from git', () => {
		const head = execFileSync('git', ['-C', REPO, 'rev-parse', 'HEAD'], {
			encoding: 'utf8',
		}).trim();
		const record = (commit) => ({
			provenance: { settings: { name: 'items-base' }, sources: 'aaaa1111aaaa1111', commit },
		});
		const expected = (baseSources) => ({
			settings: { name: 'items-base' },
			sources: 'bbbb2222bbbb2222',
			baseSources,
			base: true,
		});
		const atHead = baseSourcesAt(head);
		assert.match(atHead, /^[0-9a-f]{16}$/);
		assert.equal(whyNotReused(record(head), expected(atHead)), undefined);
		assert.match(
			whyNotReused(record(head), expected('base1111base1111')),
			/^other examples\/publish-to-s3\.json \([0-9a-f]{16} there, base1111base1111 here\)$/,
		);
		assert.match(
			whyNotReused(record('0000000'), expected(atHead)),
			/^its commit 0000000 is not in this clone/,
		);
		// a run of ours is still judged by the package's sources
		assert.match(
			whyNotReused(record(head), { ...expected(atHead), base: false }),
			/^other package sources/,
		);
	});

	it('baseSourcesAt hashes the file as it was at that commit, not as the work tree has it', () => {
		const root = freshDir();
		const rel = BASE_INPUTS[0];
		const git = (...args) =>
			execFileSync('git', ['-C', root, '-c', 'user.name=t', '-c', 'user.email=t@t', ...args], {
				encoding: 'utf8',
			}).trim();
		const put = (dir, text) => {
			fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
			fs.writeFileSync(path.join(dir, rel), text);
		};
		fs.mkdirSync(root);
		git('init', '-q');
		put(root, 'v1');
		git('add', '.');
		git('commit', '-qm', 'v1');
		const v1 = git('rev-parse', 'HEAD');
		put(root, 'v2');
		const asV1 = freshDir();
		put(asV1, 'v1');
		assert.equal(baseSourcesAt(v1, root), baseSourcesHash(asV1));
		assert.notEqual(baseSourcesAt(v1, root), baseSourcesHash(root), 'the work tree is v2');
	});
});

describe('bench thousand over sessions: --thousand-reuse on the command line', () => {
	it('takes a folder not there yet (a first session), and refuses a file: hours of runs would reuse nothing', async () => {
		const { PARTS } = await import('../../bench/parts/index.mjs');
		const parse = (dir) =>
			parseArgs(['--only=thousand', `--thousand-reuse=${dir}`], PARTS, '/doc.md');
		const dir = freshDir();
		assert.equal(parse(dir).thousandReuse, dir);
		fs.mkdirSync(dir);
		fs.writeFileSync(path.join(dir, 'thousand-items.json'), '{}');
		assert.throws(
			() => parse(path.join(dir, 'thousand-items.json')),
			/--thousand-reuse: .*thousand-items\.json is a file, not a folder/,
		);
	});
});

describe('bench thousand over sessions: the package sources’ hash', () => {
	it('changes with nodes/, credentials/, package.json and the examples the workflows use; not with the README or other examples', () => {
		const root = freshDir();
		const put = (rel, text) => {
			fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
			fs.writeFileSync(path.join(root, rel), text);
		};
		for (const rel of [
			'package.json',
			'nodes/A/A.node.ts',
			'credentials/A.credentials.ts',
			'README.md',
			'examples/other.json',
			'examples/publish-to-s3.json',
			'examples/many-long-jobs.json',
		])
			put(rel, 'v1');
		const first = sourcesHash(root);
		put('README.md', 'v2');
		put('examples/other.json', 'v2');
		assert.equal(sourcesHash(root), first, 'the README and an example no run uses');
		for (const rel of [
			'nodes/A/A.node.ts',
			'credentials/A.credentials.ts',
			'package.json',
			'examples/publish-to-s3.json',
			'examples/many-long-jobs.json',
		]) {
			const was = sourcesHash(root);
			put(rel, `${rel} changed`);
			assert.notEqual(sourcesHash(root), was, rel);
		}
		assert.ok(SOURCE_INPUTS.includes('nodes') && SOURCE_INPUTS.includes('credentials'));
	});
});

const T0 = 1_800_000_000_000;
const MiB = 2 ** 20;
const ROUTE = { capabilities: 1, quote: 0, create: 100, list: 7, get: 0, download: 100, other: 0 };

/** A run's record with everything the section reads, as thousand-measure.mjs makes it. */
const fullRecord = (over = {}) => ({
	name: 'items',
	shape: 'items',
	side: 'ours',
	label: 'One execution, N items',
	workers: 2,
	n: 100,
	jobS: 30,
	limit: 120,
	windowMs: 60_000,
	t0: T0,
	endAt: T0 + 130_000,
	stackMs: 20_000,
	postgres: '17.10',
	ratio: 1.02,
	lastMp4Ms: 102_000,
	floor: {
		t0: T0 + 1000,
		floorMs: 100_000,
		requests: { capabilities: 1, creates: 100, polls: 7, downloads: 100 },
	},
	timeline: { lastCreate: 50_000, lastEnd: 99_000, lastDownload: 101_000 },
	journalCount: 208,
	route: ROUTE,
	r429: 0,
	windows: { perWindow: [120, 88], full: 1, unused: 0, usedShare: 1 },
	referee: { total: 0, alone: [], shared: [], byKind: {}, byProcess: {} },
	created: { prompts: 100, jobs: 100, once: 100, none: [], more: [], foreign: 0 },
	bucket: {
		verified: 100,
		missing: [],
		badSha: [],
		extra: [],
		lastAt: T0 + 103_000,
		storedAts: [T0 + 50_000, T0 + 103_000],
	},
	executions: { status: { success: 1 } },
	memory: {
		perProcess: {
			main: { peak: 400 * MiB, added: 5 * MiB },
			worker1: { peak: 500 * MiB, added: 30 * MiB },
		},
	},
	database: {
		start: { database: 100 * MiB, tables: {} },
		end: { database: 110 * MiB, tables: {} },
	},
	slots: { seconds: 100, queueJobs: 1, open: 0, parked: 0, busy: {} },
	perProcess: { worker1: { ...ROUTE, looks: 7 } },
	phases: { creating: { create: 100 }, after: { download: 100 } },
	...over,
});

/** The section part 7 emits for `all` (kept, not printed), with the blocks of other pages it wrote. */
function section(all, opt = optOf()) {
	const md = [];
	const report = {
		md,
		charts: [],
		goals: [],
		blocks: [],
		keep: (t) => md.push(t),
	};
	const emit = (t = '') => md.push(t);
	const meta = {
		t0: Date.now(),
		specs: thousandOptions,
		loadAtStart: '0.00 0.00 0.00',
		outputBytes: 4096,
		limit: 120,
		windowMs: 60_000,
		pollMs: 5000,
		postgres: '17.10',
		sources: FIRST.sources,
	};
	emitThousand({ opt, emit, report }, all, meta);
	return { text: md.join('\n'), blocks: report.blocks };
}

describe('bench thousand over sessions: the section says where its runs come from', () => {
	const provenance = (at) => ({ settings: {}, ...at, measuredAt: at.session });
	const reused = fullRecord({ provenance: provenance(FIRST), reused: '/dir/thousand-items.json' });
	const here = fullRecord({
		name: 'executions',
		shape: 'executions',
		label: 'N executions',
		provenance: provenance(SECOND),
	});

	it('names the reused runs with their session and commit, and this session’s runs with its own', () => {
		const { text } = section([reused, here]);
		assert.match(
			text,
			/Measured over 2 sessions \(`--thousand-reuse`[^)]*\): items, 2 workers reused, measured from 2026-11-28T10:00:00\.000Z at commit abc1234; executions, 2 workers measured in this session from 2026-11-29T09:00:00\.000Z at commit def5678\. Every run on the same package sources \(sha256 aaaa1111aaaa1111 of package\.json, tsconfig\.json, nodes, credentials, examples\/publish-to-s3\.json, examples\/many-long-jobs\.json\)\. The date, load averages and time of the line above are this session's\./,
		);
		assert.ok(
			text.indexOf('Measured over') < text.indexOf('| Run'),
			'said before the tables, under the run note',
		);
	});

	it('every run from one earlier session: one session, its commit', () => {
		const { text } = section([reused, { ...here, provenance: provenance(FIRST), reused: '/d/x' }]);
		assert.match(
			text,
			/Measured over 1 session \(.*\): items, 2 workers, executions, 2 workers reused, measured from 2026-11-28T10:00:00\.000Z at commit abc1234\./,
		);
		// the run note's "the part took 0.1 s" and this session's load were read as a measurement's
		assert.match(
			text,
			/ No run was measured in this session: the line above \(its date, load averages and the part's time\) is this render's of the records\./,
		);
		assert.doesNotMatch(text, /are this session's/);
	});

	it('nothing reused: nothing said, as before', () => {
		assert.doesNotMatch(
			section([{ ...reused, reused: undefined }, here]).text,
			/Measured over|session/,
		);
	});

	it('docs/scale.md’s block of a documented run says it too, after its command', () => {
		const { blocks } = section([reused, here], optOf({ thousandJobs: 1000 }));
		assert.equal(blocks.length, 1);
		assert.match(
			blocks[0].text,
			/^Written by `npm run bench -- --only=thousand --thousand-jobs=1000 --thousand-runs=items,executions --doc` .*rate\. Measured over 2 sessions .* at commit abc1234; .* at commit def5678\. Every run on the same package sources .*\)\.\n/,
		);
		assert.doesNotMatch(
			scaleBlock([reused], { n: 100, command: 'npm run bench' }),
			/Measured over/,
			'none reused: as before',
		);
	});
});
