/**
 * The subtitle n8n shows under each node on the canvas names the operation (and Create's / Quote's mode) with the
 * labels the form shows — "Quote: Character Replacement", "Wait for Job" — never the internal values
 * ("quote: character_replacement", "waitForJob"). Each subtitle expression is evaluated by n8n-workflow's
 * expression engine, as the editor evaluates it, for every operation (every version's) and mode the node
 * descriptions define; the expected labels are read from the same descriptions, not typed again here.
 */
import type { INode, INodePropertyOptions, INodeType, INodeTypeDescription } from 'n8n-workflow';
import { Workflow } from 'n8n-workflow';

import { GenerationServiceAccount } from '../../nodes/GenerationServiceAccount/GenerationServiceAccount.node';
import { GenerationServiceAsset } from '../../nodes/GenerationServiceAsset/GenerationServiceAsset.node';
import { GenerationServiceJob } from '../../nodes/GenerationServiceJob/GenerationServiceJob.node';
import { GenerationServicePersona } from '../../nodes/GenerationServicePersona/GenerationServicePersona.node';
import { GenerationServiceTrigger } from '../../nodes/GenerationServiceTrigger/GenerationServiceTrigger.node';

/** The subtitle as the editor shows it for a node with these parameters. */
function subtitleOf(type: INodeType, parameters: Record<string, string>): unknown {
	const d = type.description;
	const node: INode = {
		id: 'n1',
		name: d.defaults.name ?? d.displayName,
		type: `n8n-nodes-generation-service.${d.name}`,
		typeVersion: Array.isArray(d.version) ? d.version[d.version.length - 1] : d.version,
		position: [0, 0],
		parameters,
	};
	const nodeTypes = {
		getByName: () => type,
		getByNameAndVersion: () => type,
		getKnownTypes: () => ({}),
	};
	const workflow = new Workflow({ nodes: [node], connections: {}, active: false, nodeTypes });
	return workflow.expression.getSimpleParameterValue(node, d.subtitle as string, 'internal', {});
}

/** Every option of every property named `name` (a node may define one per version). */
function optionsOf(d: INodeTypeDescription, name: string): INodePropertyOptions[] {
	const seen = new Map<string, INodePropertyOptions>();
	for (const p of d.properties.filter((p) => p.name === name))
		for (const o of (p.options ?? []) as INodePropertyOptions[]) seen.set(String(o.value), o);
	return [...seen.values()];
}

const ACTION_NODES: Array<[string, INodeType]> = [
	['Account', new GenerationServiceAccount()],
	['Asset', new GenerationServiceAsset()],
	['Persona', new GenerationServicePersona()],
	['Job', new GenerationServiceJob()],
];

describe('node subtitles on the canvas', () => {
	it.each(ACTION_NODES)('%s: every operation by its label', (_name, type) => {
		const operations = optionsOf(type.description, 'operation');
		const modes = optionsOf(type.description, 'mode').map((m) => m.name);
		expect(operations.length).toBeGreaterThan(1);
		for (const op of operations) {
			// n8n fills the parameters' defaults: Quote and Create name their default mode too
			const shown = [op.name, ...modes.map((m) => `${op.name}: ${m}`)];
			const subtitle = subtitleOf(type, { operation: String(op.value) });
			expect([op.value, shown.includes(subtitle as string) ? 'a label' : subtitle]).toEqual([
				op.value,
				'a label',
			]);
		}
	});

	it("Job: both versions' Get Many value (getAll, getMany) reads Get Many", () => {
		const job = new GenerationServiceJob();
		expect(subtitleOf(job, { operation: 'getMany' })).toBe('Get Many');
		expect(subtitleOf(job, { operation: 'getAll' })).toBe('Get Many');
		expect(subtitleOf(job, { operation: 'waitForJob' })).toBe('Wait for Job');
	});

	it('Job: Quote and Create with each mode by its label', () => {
		const job = new GenerationServiceJob();
		const operations = optionsOf(job.description, 'operation');
		const modes = optionsOf(job.description, 'mode');
		expect(modes.map((m) => m.value)).toEqual([
			'character_replacement',
			'image_to_video',
			'text_to_video',
		]);
		for (const value of ['quote', 'create']) {
			const op = operations.find((o) => o.value === value)!;
			for (const mode of modes)
				expect(subtitleOf(job, { operation: value, mode: String(mode.value) })).toBe(
					`${op.name}: ${mode.name}`,
				);
		}
		expect(subtitleOf(job, { operation: 'quote', mode: 'character_replacement' })).toBe(
			'Quote: Character Replacement',
		);
	});

	it('Trigger: the event and the job state by their labels', () => {
		const trigger = new GenerationServiceTrigger();
		const [event] = optionsOf(trigger.description, 'event');
		const states = optionsOf(trigger.description, 'jobState');
		expect(states.length).toBe(3);
		for (const state of states)
			expect(
				subtitleOf(trigger, { event: String(event.value), jobState: String(state.value) }),
			).toBe(`${event.name}: ${state.name}`);
	});
});
