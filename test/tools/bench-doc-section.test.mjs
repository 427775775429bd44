// One part's section of docs/benchmarks.md refreshed alone (`npm run bench -- --only=queue --doc`,
// bench/doc-section.mjs): the section between its markers and its rows of the Goals table, nothing else.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import {
	refreshedDoc,
	replaceFindings,
	replaceGoalRows,
	replaceSection,
	runNote,
	sectionEnd,
	sectionStart,
} from '../../bench/doc-section.mjs';

describe('bench doc section (--doc)', () => {
	const section = (body) => [sectionStart('queue'), body, sectionEnd('queue')].join('\n');
	const doc = [
		'# Benchmarks',
		'',
		'## 5. CPU',
		'',
		'text',
		'',
		'## Goals',
		'',
		'| Goal | Result | Met? | Why |',
		'| --- | --- | --- | --- |',
		'| CPU per item | 1 | **met** |  |',
		'',
		'## Findings',
	].join('\n');

	it('puts a new section before the Goals, then replaces only it', () => {
		const once = replaceSection(doc, 'queue', section('## 6. Queue\n\nold'));
		assert.match(
			once,
			/text\n\n<!-- bench:queue:start -->\n## 6\. Queue\n\nold\n<!-- bench:queue:end -->\n\n## Goals/,
		);
		const twice = replaceSection(once, 'queue', section('## 6. Queue\n\nnew $& $1'));
		assert.equal(
			twice,
			once.replace('old', () => 'new $& $1'),
		); // $ patterns kept as text
	});

	it('replaces the part’s goal rows in place, adds them when absent, leaves the others', () => {
		const added = replaceGoalRows(doc, 'Queue mode', ['| Queue mode, a | 1 | **met** | |']);
		assert.match(
			added,
			/\| CPU per item .*\n\| Queue mode, a \| 1 \| \*\*met\*\* \| \|\n\n## Findings/,
		);
		const withTwo = replaceGoalRows(added, 'Queue mode', [
			'| Queue mode, a | 2 | **not met** | x |',
			'| Queue mode, b | 3 | **met** | |',
		]);
		assert.equal((withTwo.match(/Queue mode/g) ?? []).length, 2);
		assert.match(withTwo, /\| CPU per item .*\n\| Queue mode, a \| 2 .*\n\| Queue mode, b \| 3 /);
		assert.equal(replaceGoalRows(withTwo, 'Queue mode', []).includes('Queue mode'), false);
	});

	it('takes the section and the goal rows from the report', () => {
		const report = {
			md: [
				'# Benchmarks',
				sectionStart('queue'),
				'## 6. Queue',
				'figures',
				sectionEnd('queue'),
				'## Goals',
			],
			goals: [
				{ goal: 'CPU per item', result: '9', met: false, note: '' },
				{ goal: 'Queue mode, parked', result: '1.05', met: true, note: 'ok' },
			],
		};
		const out = refreshedDoc(doc, report, [{ name: 'queue', goalPrefix: 'Queue mode' }]);
		assert.match(
			out,
			/<!-- bench:queue:start -->\n## 6\. Queue\nfigures\n<!-- bench:queue:end -->/,
		);
		assert.match(out, /\| Queue mode, parked \| 1\.05 \| \*\*met\*\* \| ok \|/);
		assert.match(out, /\| CPU per item \| 1 \| \*\*met\*\*/); // the other rows stay as they were
	});

	it('takes a part’s goal rows by any of its prefixes, and its findings, leaving the others', () => {
		const withFindings = `${doc}\n\n- **Memory (part 2): old.** 1\n- **Upload: old.** 2\n- **Batches (part 3): b.** 3\n- **Code: c.**\n\n## Reproduce`;
		const withRows = replaceGoalRows(withFindings, 'x', [
			'| Download memory flat | old | **met** | |',
			'| Peak memory added (download) | old | **met** | |',
		]);
		const report = {
			md: [sectionStart('memory'), '## 2. Memory', 'new', sectionEnd('memory')],
			goals: [
				{ goal: 'Download memory flat', result: 'new1', met: false, note: 'n' },
				{ goal: 'Peak memory added (upload)', result: 'new2', met: true, note: '' },
			],
			findings: ['**Memory (part 2): new.** 10', '**Upload: new.** 20', '**Other part.** 9'],
		};
		const part = {
			name: 'memory',
			goalPrefix: ['Download memory flat', 'Peak memory added'],
			findingPrefix: ['**Memory (part 2)', '**Upload:'],
		};
		const out = refreshedDoc(withRows, report, [part]);
		assert.doesNotMatch(out, /old/);
		assert.match(
			out,
			/\| CPU per item .*\n\| Download memory flat \| new1 .*\n\| Peak memory added \(upload\) \| new2 /,
		);
		assert.match(
			out,
			/## Findings\n\n- \*\*Memory \(part 2\): new\.\*\* 10\n- \*\*Upload: new\.\*\* 20\n- \*\*Batches \(part 3\): b\.\*\* 3\n- \*\*Code: c\.\*\*\n\n## Reproduce/,
		);
		assert.doesNotMatch(out, /Other part/); // another part's finding is not this part's to write
		// without any of its findings yet, they go first
		assert.match(
			replaceFindings('## Findings\n\n- **Code: c.**\n', '**Batches (part 3)', [
				'**Batches (part 3): n.**',
			]),
			/## Findings\n\n- \*\*Batches \(part 3\): n\.\*\*\n- \*\*Code: c\.\*\*/,
		);
	});

	it('says how a section alone was run: its options, and which are not the defaults', () => {
		const specs = [
			{ flags: ['batch-sizes'], key: 'batchSizes', default: [10, 50, 100] },
			{ flags: ['batch-job-s'], key: 'batchJobS', default: 30 },
			{ flags: ['dump'], key: 'dump' },
		];
		const note = (opt) =>
			runNote({
				specs,
				opt,
				commit: 'abc1234',
				cores: 2,
				loadAtStart: '1.00',
				loadAtEnd: '2.00',
				partMs: 61_234,
			});
		const changed = note({ batchSizes: [100], batchJobS: 30, dump: '/tmp/x' });
		assert.match(
			changed,
			/\(commit abc1234, 2 cores, load average 1\.00 at the start, 2\.00 at the end\); the part took 61\.2 s/,
		);
		assert.match(
			changed,
			/with `--batch-sizes=100` `--batch-job-s=30` \(not the defaults for `--batch-sizes` \(default 10,50,100\)\)\.$/,
		);
		assert.doesNotMatch(changed, /dump/);
		assert.match(note({ batchSizes: [10, 50, 100], batchJobS: 30 }), /\(the defaults\)\.$/);
	});
});
