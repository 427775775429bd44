// One part's section of docs/benchmarks.md refreshed alone (`npm run bench -- --only=queue --doc`,
// bench/doc-section.mjs): the section between its markers and its rows of the Goals table, nothing else.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import {
	refreshedDoc,
	replaceGoalRows,
	replaceSection,
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
});
