// Every relative link and anchor in README.md, CONTRIBUTING.md and docs/*.md resolves (anchors as GitHub makes
// them from headings), and every `npm run …` (and `npm start` / `npm test`) they name is a package.json script.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';

import { anchorsOf, docFiles, docProblems, slug } from '../../tools/lib/doc-links.mjs';
import { REPO } from '../../tools/lib/repo.mjs';

const readRepo = (f) => fs.readFileSync(path.join(REPO, f), 'utf8');

describe('links, anchors and npm scripts in the docs', () => {
	it('reads README, CONTRIBUTING and every docs/*.md', () => {
		const files = docFiles();
		for (const f of ['README.md', 'CONTRIBUTING.md', 'docs/nodes.md', 'docs/benchmarks.md'])
			assert.ok(files.includes(f), `${f} not checked: ${files.join(', ')}`);
	});

	it('all resolve', () => {
		assert.deepEqual(docProblems(), []);
	});

	it("makes GitHub's anchors", () => {
		assert.equal(
			slug('Unverified community packages (n8n 3.0)'),
			'unverified-community-packages-n8n-30',
		);
		assert.equal(slug('Running at scale (queue mode)'), 'running-at-scale-queue-mode');
		assert.equal(slug('Under load: one pacer per key'), 'under-load-one-pacer-per-key');
		assert.equal(slug('`npm test` and the **demo**'), 'npm-test-and-the-demo');
		assert.deepEqual(
			[...anchorsOf('# A\n## Notes\n```\n# not a heading\n```\n### Notes\n')],
			['a', 'notes', 'notes-1'],
		);
	});

	// the check can fail: a planted broken link, anchor and script are each found
	const planted = (extra) =>
		docProblems(['README.md'], {
			read: (f) => (f === 'README.md' ? `${readRepo(f)}\n${extra}\n` : readRepo(f)),
		});
	it('finds a link to a file that does not exist', () => {
		const problems = planted('See [the guide](docs/no-such-guide.md).');
		assert.equal(problems.length, 1, problems.join('\n'));
		assert.match(problems[0], /no file docs\/no-such-guide\.md/);
	});
	it('finds an anchor no heading makes, in another file and in the same one', () => {
		const problems = planted('[a](docs/nodes.md#no-such-heading) and [b](#no-such-section)');
		assert.equal(problems.length, 2, problems.join('\n'));
		assert.match(problems[0], /#no-such-heading in docs\/nodes\.md/);
		assert.match(problems[1], /#no-such-section in README\.md/);
	});
	it('finds an npm script package.json does not have', () => {
		const problems = planted('```sh\nnpm run no-such-script\n```');
		assert.equal(problems.length, 1, problems.join('\n'));
		assert.match(problems[0], /npm run no-such-script: no such script/);
	});
	it('finds an image that does not exist', () => {
		const problems = planted('<img src="docs/images/nothing.png" alt="">');
		assert.equal(problems.length, 1, problems.join('\n'));
	});
});
