/**
 * Which files of nodes/ a Create runs code in, measured: V8's precise coverage (function call counts) is
 * reset once the nodes are loaded, a Create runs against the emulator, and every file of nodes/ in which a
 * function was called is counted (test/helpers/coverage.js). docs/architecture.md states those counts and
 * writes the walks by hand: its counts must be these, and every file of its walks must run (an operations
 * index holds no function: it only names the operations). test/tools/architecture.test.mjs checks that
 * each file of a walk imports the next.
 */
import type { IDataObject } from 'n8n-workflow';

import { GenerationServiceJob } from '../../nodes/GenerationServiceJob/GenerationServiceJob.node';
import { filesRunBy } from '../helpers/coverage';
import type { Emulated } from '../helpers/emulated';
import { startEmulated } from '../helpers/emulated';
import { runNode } from '../helpers/n8n';
import { readSource } from '../helpers/sources';

const node = new GenerationServiceJob();

/** The ordered list of file paths under `heading` in docs/architecture.md (up to the next heading). */
function walkOf(doc: string, heading: string): string[] {
	const start = doc.indexOf(`\n${heading}\n`);
	if (start < 0) throw new Error(`docs/architecture.md has no "${heading}"`);
	const rest = doc.slice(start + heading.length + 2);
	const end = rest.search(/\n#{2,3} /);
	const section = end < 0 ? rest : rest.slice(0, end);
	return [...section.matchAll(/^\d+\. `([^`]+)`/gm)].map((m) => m[1]);
}

/** The count docs/architecture.md states under `heading`: "… runs code in N files …". */
function statedCount(doc: string, heading: string): number {
	const start = doc.indexOf(`\n${heading}\n`);
	const match = /runs code in (\d+) files/.exec(doc.slice(start));
	return Number(match?.[1]);
}

const textToVideo: IDataObject = {
	resource: 'job',
	operation: 'create',
	mode: 'text_to_video',
	prompt: 'a lighthouse in a storm',
};

let env: Emulated;
beforeEach(async () => {
	env = await startEmulated();
});
afterEach(async () => {
	await env.close();
});

describe('the files a Create runs code in (docs/architecture.md)', () => {
	const doc = readSource('docs/architecture.md');

	it.each([
		['## A Create, from the node to HTTP', textToVideo],
		['### With Wait for Completion', { ...textToVideo, options: { waitForCompletion: true } }],
	])('%s', async (heading, parameters) => {
		const files = await filesRunBy('nodes/', async () => {
			const [items] = await runNode({
				node,
				parameters: parameters as never,
				credentials: env.credentials,
			});
			expect(items).toHaveLength(1);
		});
		const walk = walkOf(doc, heading);
		expect(walk.length).toBeGreaterThan(4);
		const runs = (file: string) => files.includes(file) || /\/actions\/\w+\/index\.ts$/.test(file);
		expect(walk.filter((file) => !runs(file))).toEqual([]);
		expect({ heading, count: statedCount(doc, heading), files }).toEqual({
			heading,
			count: files.length,
			files,
		});
	});
});
