// The workflow builder (tools/lib/workflow.mjs) and its users: every workflow the bench, the soak, the smoke
// check and the fixture package build is the one their own builders made before the builder existed
// (test/tools/fixtures/workflows-before.json, random ids aside); and workflow()'s ids, positions, webhookIds
// and connections.
//
//   node --import tsx --test test/tools/*.test.mjs        (npm run test:tools)
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';

import * as bench from '../../bench/workflows.mjs';
import { queueWorkflows } from '../../bench/parts/queue-workflows.mjs';
import { fixtureWorkflow } from '../../tools/lib/pack.mjs';
import { REPO } from '../../tools/lib/repo.mjs';
import { builtinSmokeWorkflow } from '../../tools/lib/smoke.mjs';
import { soakWorkflows } from '../../tools/lib/soak/workflows.mjs';
import {
	chain,
	createJob,
	manualTrigger,
	waitSeconds,
	webhook,
	workflow,
} from '../../tools/lib/workflow.mjs';

const BEFORE = JSON.parse(
	fs.readFileSync(path.join(REPO, 'test', 'tools', 'fixtures', 'workflows-before.json'), 'utf8'),
);
const EXAMPLE = fs.readFileSync(path.join(REPO, 'examples', 'many-long-jobs.json'), 'utf8');
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * The bench's node ids and webhookIds (random, unlike the soak's and the others', and those the queue part
 * keeps from the example) as <random>.
 */
function withoutRandomIds(name, value) {
	if (!/^(bench|queue)\./.test(name)) return value;
	const walk = (v) => {
		if (Array.isArray(v)) return v.map(walk);
		if (!v || typeof v !== 'object') return v;
		return Object.fromEntries(
			Object.entries(v).map(([k, x]) => [
				k,
				(k === 'id' || k === 'webhookId') && UUID.test(x) && !EXAMPLE.includes(x)
					? '<random>'
					: walk(x),
			]),
		);
	};
	return walk(value);
}

const BASE = 'http://127.0.0.1:4010/v1';
const SINK = 'http://127.0.0.1:9/deliver';
const FILE = '/tmp/x/file-5mib.mp4';

/** The calls whose workflows the fixture holds (the bench's and the queue part's with random ids). */
const BUILT = {
	'bench.jobOurs': () => bench.jobOurs('credA'),
	'bench.jobOurs2': () => bench.jobOurs('credA', 'benchJobOurs7', 'another prompt'),
	'bench.jobBaseline': () => bench.jobBaseline('credB', BASE),
	'bench.jobBaseline2': () => bench.jobBaseline('credB', BASE, 'benchJobBase7', "it's a prompt"),
	'bench.upIdle': () => bench.upIdle(FILE),
	'bench.upOurs': () => bench.upOurs(FILE, 'credA'),
	'bench.upBaseline': () => bench.upBaseline(FILE, 'credB', BASE),
	'bench.upBaseline2': () =>
		bench.upBaseline('/tmp/x/f.mp4', 'credB', BASE, 'benchUpBase2', 'key-2'),
	'bench.dlIdle': () => bench.dlIdle('job_1'),
	'bench.dlOurs': () => bench.dlOurs('job_1', 'credA'),
	'bench.dlBaseline': () => bench.dlBaseline('job_1', 'credB', BASE),
	'bench.batchWait': () => bench.batchWait('benchBatch10', 3, 'credA', '/tmp/out', 17),
	'bench.createsOurs': () => bench.createsOurs(4, 'credA'),
	'bench.createsBaseline': () => bench.createsBaseline(4, 'credB', BASE),
	'bench.cpuOurs': () => bench.cpuOurs('benchCpuOurs', ['c1', 'c2'], 3),
	'bench.cpuHttp': () => bench.cpuHttp('benchCpuHttp', ['c1', 'c2'], 3, BASE),
	'bench.cpuNoOp': () => bench.cpuNoOp('benchCpuNoOp', 2, 3),
	'queue.all': () => queueWorkflows(['wait', 'park', 'trigger'], { sinkUrl: SINK, pollSecond: 23 }),
	soak: () => soakWorkflows({ sinkUrl: SINK, personaId: 'persona_1', pollSecond: 41 }),
	smoke: () => builtinSmokeWorkflow(),
	smoke2: () => builtinSmokeWorkflow('other'),
	pack: () => fixtureWorkflow(),
	pack2: () => fixtureWorkflow('gsOther', 'ho'),
};

describe('the workflows are the ones their builders made before tools/lib/workflow.mjs', () => {
	test('the fixture holds every call, and only those', () => {
		assert.deepEqual(
			Object.keys(BEFORE)
				.filter((k) => k !== '_about')
				.sort(),
			Object.keys(BUILT).sort(),
		);
	});
	for (const [name, build] of Object.entries(BUILT))
		test(name, () => assert.deepStrictEqual(withoutRandomIds(name, build()), BEFORE[name]));

	test('random ids stay random and unique', () => {
		const ids = [bench.jobBaseline('c', BASE), bench.jobBaseline('c', BASE)].flatMap((wf) =>
			wf.nodes.flatMap((n) => [n.id, n.webhookId].filter(Boolean)),
		);
		assert.equal(new Set(ids).size, ids.length);
		for (const id of ids) assert.match(id, UUID);
	});
});

describe('workflow()', () => {
	test('ids from a prefix, the webhook id from it, positions in a line, the nodes chained', () => {
		const wf = workflow({
			id: 'gsT',
			name: 'T',
			ids: 'd1000000',
			nodes: [
				webhook('Hook', { path: 'p', responseMode: 'onReceived' }),
				createJob('Create', { mode: 'text_to_video' }, { credential: { id: 'c', name: 'C' } }),
				manualTrigger('Other', { position: [5, 6], id: 'mine' }),
			],
		});
		assert.deepEqual(
			wf.nodes.map((n) => [n.id, n.position, n.webhookId]),
			[
				['d1000000-0000-4000-8000-000000000001', [0, 0], 'd1000000-0000-4000-8000-0000000000aa'],
				['d1000000-0000-4000-8000-000000000002', [220, 0], undefined],
				['mine', [5, 6], undefined],
			],
		);
		assert.deepEqual(wf.connections, {
			Hook: { main: [[{ node: 'Create', type: 'main', index: 0 }]] },
			Create: { main: [[{ node: 'Other', type: 'main', index: 0 }]] },
		});
		assert.deepEqual(wf.nodes[1].credentials, { generationServiceApi: { id: 'c', name: 'C' } });
		assert.deepEqual(
			{ ...wf, nodes: undefined, connections: undefined },
			{
				id: 'gsT',
				name: 'T',
				active: false,
				nodes: undefined,
				connections: undefined,
				settings: { executionOrder: 'v1' },
				pinData: {},
			},
		);
	});

	test('a Wait node gets a webhookId too; one node alone has no connections', () => {
		const wf = workflow({ id: 'gsW', name: 'W', nodes: [waitSeconds('Wait', 1)] });
		assert.match(wf.nodes[0].webhookId, UUID);
		assert.deepEqual(wf.connections, {});
	});

	test("n8n's workflow ids have 1 to 21 characters", () => {
		assert.throws(
			() => workflow({ id: 'x'.repeat(22), name: 'long', nodes: [manualTrigger()] }),
			/1 to 21 characters/,
		);
		assert.equal(workflow({ id: 'x'.repeat(21), name: 'ok', nodes: [] }).id.length, 21);
	});

	test('chain(): a line, then extra edges on other outputs', () => {
		assert.deepEqual(chain(['A', 'B', 'C'], [['B', 1, 'A']]), {
			A: { main: [[{ node: 'B', type: 'main', index: 0 }]] },
			B: {
				main: [[{ node: 'C', type: 'main', index: 0 }], [{ node: 'A', type: 'main', index: 0 }]],
			},
		});
	});
});
