// How `npm test` runs the real-n8n suites side by side: the order node:test starts them in, how many queue
// stacks may run at once, and the lock that holds one of several slots.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';

import { pidAlive, withLock } from '../../tools/lib/locks.mjs';
import { queueStackSlots } from '../../tools/lib/queue-stack.mjs';
import { runSuitePool, tapCounts } from '../../tools/lib/suite-pool.mjs';
import {
	E2E_ORDER,
	TEST_STEPS,
	e2eConcurrency,
	e2eFiles,
	isQueueSuite,
} from '../../tools/lib/test-run.mjs';
import { pause, waitUntil } from '../../tools/lib/wait.mjs';

const quiet = () => {};

describe('the real-n8n suites side by side', () => {
	it('start in E2E_ORDER, then the others by name; every suite once', () => {
		const files = fs
			.readdirSync('test/e2e')
			.filter((f) => f.endsWith('.test.mjs'))
			.map((f) => path.join('test/e2e', f));
		const ordered = e2eFiles(files);
		assert.deepEqual([...ordered].sort(), [...files].sort(), 'the same files');
		assert.deepEqual(
			ordered.slice(0, E2E_ORDER.length).map((f) => path.basename(f, '.test.mjs')),
			E2E_ORDER,
			'every name of E2E_ORDER is a suite, started in that order',
		);
		assert.deepEqual(
			ordered.filter(isQueueSuite).map((f) => path.basename(f)),
			['queue-mode.test.mjs', 'queue-scheduler.test.mjs', 'queue-n8n3.test.mjs'],
			'the queue suites, each of which starts a queue stack, are the group the pool holds to 2',
		);
		const rest = ordered.slice(E2E_ORDER.length);
		assert.deepEqual(rest, [...rest].sort());
		assert.deepEqual(
			e2eFiles(['test/e2e/zz.test.mjs', 'test/e2e/editor.test.mjs', 'test/e2e/aa.test.mjs']),
			['test/e2e/editor.test.mjs', 'test/e2e/aa.test.mjs', 'test/e2e/zz.test.mjs'],
		);
	});

	it('the e2e step runs 4 suites at once and lets 2 queue stacks run; the environment overrides both', () => {
		assert.equal(e2eConcurrency({}), 4);
		assert.equal(e2eConcurrency({ GS_E2E_CONCURRENCY: '1' }), 1);
		assert.equal(e2eConcurrency({ GS_E2E_CONCURRENCY: 'x' }), 4);
		const saved = process.env.GS_QUEUE_STACKS;
		try {
			delete process.env.GS_QUEUE_STACKS;
			assert.equal(TEST_STEPS.e2e.env().GS_QUEUE_STACKS, '2');
			process.env.GS_QUEUE_STACKS = '1';
			assert.equal(TEST_STEPS.e2e.env().GS_QUEUE_STACKS, '1');
		} finally {
			if (saved === undefined) delete process.env.GS_QUEUE_STACKS;
			else process.env.GS_QUEUE_STACKS = saved;
		}
	});

	it('queue stacks: 1 unless GS_QUEUE_STACKS says more (the benchmarks keep 1)', () => {
		assert.equal(queueStackSlots({}), 1);
		assert.equal(queueStackSlots({ GS_QUEUE_STACKS: '2' }), 2);
		assert.equal(queueStackSlots({ GS_QUEUE_STACKS: '0' }), 1);
		assert.equal(queueStackSlots({ GS_QUEUE_STACKS: 'two' }), 1);
	});

	it('a lock of two slots: two holders at once, the third waits for one of them', async () => {
		const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gs-slots-'));
		const slots = [path.join(dir, 'a.lock'), path.join(dir, 'b.lock')];
		try {
			const events = [];
			const gates = [];
			const holder = (name) =>
				withLock(slots, quiet, async () => {
					events.push(`${name} in`);
					await new Promise((resolve) => gates.push(resolve));
					events.push(`${name} out`);
				});
			const first = holder('1');
			const second = holder('2');
			await pause(200);
			const third = holder('3');
			await pause(1500);
			assert.deepEqual(events, ['1 in', '2 in'], 'two hold at once, the third waits');
			assert.ok(slots.every((s) => fs.existsSync(s)));
			gates.shift()();
			await first;
			await pause(1500);
			assert.deepEqual(events, ['1 in', '2 in', '1 out', '3 in'], 'the third takes the freed slot');
			gates.shift()();
			gates.shift()();
			await Promise.all([second, third]);
			assert.ok(
				slots.every((s) => !fs.existsSync(s)),
				'both slots released',
			);
		} finally {
			fs.rmSync(dir, { recursive: true, force: true });
		}
	});
});

describe('runSuitePool', () => {
	/** Test files in a temp folder: name → source. */
	const writeFiles = (dir, files) => {
		for (const [name, src] of Object.entries(files)) fs.writeFileSync(path.join(dir, name), src);
		return Object.keys(files);
	};
	/**
	 * A test file that logs its start and its exit into `log`; its first test waits until every file of `waitFor`
	 * has exited (no timing: the order of events decides), then one test passes (or fails) and one is skipped.
	 */
	const file = ({ log, waitFor = [], fail = false }) => `
import fs from 'node:fs';
import { it } from 'node:test';
const me = process.argv[1].split('/').pop();
const note = (what) => fs.appendFileSync(${JSON.stringify(log)}, me + ' ' + what + '\\n');
note('start');
process.on('exit', () => note('end'));
it('waits for the others', async () => {
	const ended = () => (fs.existsSync(${JSON.stringify(log)}) ? fs.readFileSync(${JSON.stringify(log)}, 'utf8') : '');
	for (let i = 0; i < 600 && !${JSON.stringify(waitFor)}.every((f) => ended().includes(f + ' end')); i++)
		await new Promise((r) => setTimeout(r, 50));
	if (!${JSON.stringify(waitFor)}.every((f) => ended().includes(f + ' end'))) throw new Error('waited 30 s');
});
it('then ${fail ? 'fails' : 'passes'}', () => { if (${fail}) throw new Error('planned'); });
it('skipped', { skip: 'planned' }, () => {});
`;

	it('starts the files in the order given, at most `concurrency` at once; prints each whole; counts them', async () => {
		const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gs-pool-'));
		const log = path.join(dir, 'events.log');
		try {
			const others = ['b-short.test.mjs', 'a-next.test.mjs', 'c-fails.test.mjs'];
			const files = writeFiles(dir, {
				// first, and ends only after the three others: they ran beside it, one at a time
				'z-long.test.mjs': file({ log, waitFor: others }),
				'b-short.test.mjs': file({ log }),
				'a-next.test.mjs': file({ log }),
				'c-fails.test.mjs': file({ log, fail: true }),
			});
			let out = '';
			const r = await runSuitePool(files, {
				concurrency: 2,
				cwd: dir,
				env: process.env,
				nodeArgs: [],
				print: (text) => (out += text),
			});
			const events = fs.readFileSync(log, 'utf8').trim().split('\n');
			assert.deepEqual(
				[...out.matchAll(/^── started (\S+)/gm)].map((m) => m[1]),
				files,
				'started in the order given, not by name',
			);
			let running = 0;
			let most = 0;
			for (const e of events) {
				running += e.endsWith(' start') ? 1 : -1;
				most = Math.max(most, running);
			}
			assert.equal(most, 2, 'at most 2 at once, and 2 at some point');
			assert.equal(r.code, 1, 'a failing file fails the pool');
			const byFile = Object.fromEntries(r.results.map((x) => [x.file, x]));
			assert.deepEqual(byFile['z-long.test.mjs'].counts, {
				tests: 3,
				pass: 2,
				fail: 0,
				skipped: 1,
			});
			assert.deepEqual(byFile['c-fails.test.mjs'].counts, {
				tests: 3,
				pass: 1,
				fail: 1,
				skipped: 1,
			});
			assert.equal(byFile['z-long.test.mjs'].code, 0);
			assert.notEqual(byFile['c-fails.test.mjs'].code, 0);
			// each file's output in one piece, between its two lines
			for (const f of files) {
				const body = out.slice(out.indexOf(`── ${f}: `), out.indexOf(`── end of ${f}`));
				assert.match(body, /^# tests 3$/m, `${f} printed whole`);
				assert.doesNotMatch(body, /── (started|end of) /, `${f}: no other line inside`);
			}
			assert.match(out, /4 files +[0-9.]+ s summed, [0-9.]+ s wall +12 +7 +1 +4 +FAILED/);
		} finally {
			fs.rmSync(dir, { recursive: true, force: true });
		}
	});

	it('a group runs at most its max at once: a free slot takes the next file of another group meanwhile', async () => {
		const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gs-pool-'));
		const log = path.join(dir, 'events.log');
		try {
			const files = writeFiles(dir, {
				// q1 ends only after `other` has: other ran beside it although q2 comes first in the order
				'q1.test.mjs': file({ log, waitFor: ['other.test.mjs'] }),
				'q2.test.mjs': file({ log }),
				'other.test.mjs': file({ log }),
				'q3.test.mjs': file({ log }),
			});
			let out = '';
			const r = await runSuitePool(files, {
				concurrency: 2,
				groups: [{ match: (f) => f.startsWith('q'), max: 1 }],
				cwd: dir,
				env: process.env,
				nodeArgs: [],
				print: (text) => (out += text),
			});
			assert.equal(r.code, 0, out);
			assert.deepEqual(
				[...out.matchAll(/^── started (\S+)/gm)].map((m) => m[1]),
				['q1.test.mjs', 'other.test.mjs', 'q2.test.mjs', 'q3.test.mjs'],
			);
			let q = 0;
			for (const e of fs.readFileSync(log, 'utf8').trim().split('\n')) {
				if (!e.startsWith('q')) continue;
				q += e.endsWith(' start') ? 1 : -1;
				assert.ok(q <= 1, `two of the group at once: ${e}`);
			}
		} finally {
			fs.rmSync(dir, { recursive: true, force: true });
		}
	});

	it('tapCounts reads the summary of a TAP run; a file that printed none has no counts', () => {
		assert.deepEqual(
			tapCounts('ok 1 - x\n# tests 5\n# suites 1\n# pass 4\n# fail 1\n# skipped 0\n'),
			{
				tests: 5,
				pass: 4,
				fail: 1,
				skipped: 0,
			},
		);
		assert.deepEqual(tapCounts('crashed'), {
			tests: undefined,
			pass: undefined,
			fail: undefined,
			skipped: undefined,
		});
	});
});

describe(
	'runSuitePool and signals',
	{ skip: process.platform !== 'linux' && 'reads /proc' },
	() => {
		it("SIGINT to the pool's process (a terminal's Ctrl-C reaches it) stops the files it runs, and it ends", async () => {
			const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gs-pool-sig-'));
			try {
				const pidFile = path.join(dir, 'pid');
				fs.writeFileSync(
					path.join(dir, 'long.test.mjs'),
					`import fs from 'node:fs';\nimport { it } from 'node:test';\nfs.writeFileSync(${JSON.stringify(pidFile)}, String(process.pid));\nit('sleeps', async () => { await new Promise((r) => setTimeout(r, 60_000)); });\n`,
				);
				const pool = spawn(
					process.execPath,
					[
						'--input-type=module',
						'-e',
						`import { runSuitePool } from ${JSON.stringify(path.resolve('tools/lib/suite-pool.mjs'))};\nconst r = await runSuitePool(['long.test.mjs'], { concurrency: 1, cwd: ${JSON.stringify(dir)}, nodeArgs: [] });\nprocess.exit(r.code);`,
					],
					{ stdio: 'ignore', env: (({ NODE_TEST_CONTEXT: _, ...e }) => e)(process.env) },
				);
				const ended = new Promise((resolve) => pool.once('exit', (code) => resolve(code)));
				await waitUntil('the file running', () => fs.existsSync(pidFile), { timeoutMs: 15_000 });
				const filePid = Number(fs.readFileSync(pidFile, 'utf8'));
				pool.kill('SIGINT');
				const code = await Promise.race([ended, pause(15_000).then(() => 'still running')]);
				assert.notEqual(code, 'still running', 'the pool ended');
				assert.notEqual(code, 0, 'and says the run did not pass');
				await waitUntil('the file stopped', () => !pidAlive(filePid), { timeoutMs: 5000 });
			} finally {
				fs.rmSync(dir, { recursive: true, force: true });
			}
		});
	},
);
