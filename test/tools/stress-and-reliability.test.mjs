// The library behind two thin commands: `npm run test:stress` (tools/lib/stress.mjs: its options, jest's
// failures by test name across runs) and `npm run test:reliability` (tools/lib/reliability.mjs: the figures
// summed from the suites' rows, docs/reliability.md keeping the soak's section).
//
//   node --import tsx --test test/tools/*.test.mjs        (npm run test:tools)
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import {
	reliabilityDoc,
	summarize,
	summaryLines,
	withSoakSection,
} from '../../tools/lib/reliability.mjs';
import { failuresByName, jestFailures, parseStressArgs } from '../../tools/lib/stress.mjs';

describe('test:stress (tools/lib/stress.mjs)', () => {
	test('options: defaults, the load, and what goes to jest', () => {
		assert.deepEqual(parseStressArgs([], 4), { runs: 3, load: 'spin', spinners: 4, jestArgs: [] });
		assert.deepEqual(
			parseStressArgs(['--runs', '10', '--load', 'jest', 'test/unit', '--', '-t', 'x'], 4),
			{ runs: 10, load: 'jest', spinners: 4, jestArgs: ['test/unit', '-t', 'x'] },
		);
		assert.deepEqual(parseStressArgs(['--spinners', '1', 'test/unit'], 4).jestArgs, ['test/unit']);
		assert.throws(() => parseStressArgs(['--runs', '0']), /--runs/);
		assert.throws(() => parseStressArgs(['--load', 'cpu']), /--load/);
	});

	test("jest's failures by name: a failed test, a file that failed outside its tests; across runs", () => {
		const report = {
			testResults: [
				{
					name: '/repo/test/unit/a.test.ts',
					status: 'failed',
					message: '',
					assertionResults: [
						{ status: 'passed', fullName: 'a works', failureMessages: [] },
						{ status: 'failed', fullName: 'a waits', failureMessages: ['Error: late\n  at x'] },
					],
				},
				{
					name: '/repo/test/unit/b.test.ts',
					status: 'failed',
					message: `Cannot find module\n${'line\n'.repeat(20)}`,
					assertionResults: [],
				},
				{ name: '/repo/test/unit/c.test.ts', status: 'passed', assertionResults: [] },
			],
		};
		const failed = jestFailures(report, '/repo');
		assert.deepEqual(
			failed.map((f) => f.name),
			['test/unit/a.test.ts › a waits', 'test/unit/b.test.ts (the file)'],
		);
		assert.equal(failed[1].message.split('\n').length, 12, 'messages cut to 12 lines');
		const byName = failuresByName([{ failed }, { failed: [] }, { failed: failed.slice(0, 1) }]);
		assert.deepEqual(byName.get('test/unit/a.test.ts › a waits').runs, [1, 3]);
		assert.deepEqual(byName.get('test/unit/b.test.ts (the file)').runs, [1]);
	});
});

describe('test:reliability (tools/lib/reliability.mjs)', () => {
	const rows = [
		{ kind: 'fault', fault: 'reset after commit', duplicateJobs: 0, lostOutputs: 0 },
		{ kind: 'fault', fault: '500 storm', duplicateJobs: 1, lostOutputs: 2 },
		{
			kind: 'contract',
			scenario: 'batch 10',
			items: 10,
			requests: 31,
			rateLimited: 2,
			violations: 0,
		},
		{ kind: 'badInput', name: 'empty prompt', refusedLocally: true },
		{ kind: 'badInput', name: 'long name', repaired: true },
		{ kind: 'badInput', name: 'unknown persona' },
		{ kind: 'secrets', itemsAndErrorsChecked: 40, logLines: 300, leaks: 0 },
	];
	const run = { jest: 0, e2e: 1, seconds: '12.3', hosts: '2' };

	test('the figures are summed from the rows', () => {
		assert.deepEqual(summarize(rows).figures, {
			faultsInjected: 2,
			duplicateJobs: 1,
			lostOutputs: 2,
			badInputs: 3,
			refusedLocally: 1,
			refusedByService: 1,
			repaired: 1,
			checkedForKey: 40,
			logLines: 300,
			keyLeaks: 0,
		});
		assert.equal(summarize([]).figures.keyLeaks, 'not measured', 'no secrets rows: not measured');
	});

	test('the summary and the doc say them, with the exit codes', () => {
		const date = new Date('2026-11-27T10:00:00Z');
		const lines = summaryLines(summarize(rows), run, date);
		assert.equal(
			lines[0],
			'Reliability summary (2026-11-27, jest exit 0, real-n8n suites exit 1, 12.3 s)',
		);
		assert.ok(lines.includes('  duplicate jobs             1'));
		const doc = reliabilityDoc(summarize(rows), run, date);
		assert.match(doc, /jest exit code 0, real-n8n suites exit code 1, 12\.3 s/);
		assert.match(doc, /\| Lost outputs \| 2 \|/);
		assert.match(doc, /\| batch 10 \| 10 \| 31 \| 2 \| 0 \|/);
		assert.match(doc, /- unknown persona: refused by the service/);
		assert.match(doc, /in real n8n \(hosts 2\)/);
	});

	test("the soak's section of the previous file is kept, and only it", () => {
		const previous =
			'old\n<!-- soak:start -->\n## Chaos soak\nfigures\n<!-- soak:end -->\ntrailer\n';
		assert.equal(
			withSoakSection('# Reliability\n', previous),
			'# Reliability\n\n<!-- soak:start -->\n## Chaos soak\nfigures\n<!-- soak:end -->\n',
		);
		assert.equal(withSoakSection('# Reliability\n', 'no section'), '# Reliability\n');
	});
});
