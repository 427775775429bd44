// The sticky notes of examples/ (n8n's template convention: a workflow explains itself on the canvas), read and
// checked in one place: where each note and node sits on n8n's canvas, what a note names, and how far n8n zooms
// out to show a whole example when it opens it.
//
// How a note names things (CONTRIBUTING.md, "Examples"): **Node Name** is a node of the same workflow (or a
// credential type a node of it uses, e.g. **Generation Service API**); _Field or Option_ is the display name of a
// field or option of one of this package's nodes that the workflow sets (e.g. _Max Credits_); `N8N_…` is an n8n
// setting that README.md documents.
//
// Sizes are n8n 2.41.1's editor (n8n-editor-ui, chunk workflows.store-*.js: default node [96, 96], configuration
// node [80, 80], configurable node [256, 96] wide at least); a node's name and subtitle are drawn below it. A
// node's and a note's `position` is its top-left corner. On opening a workflow the editor fits it into view:
// Vue Flow's fitView with n8n's { maxZoom: 1, padding: 0.2 } (chunk useWorkflowDocumentRenderData-*.js).
import fs from 'node:fs';
import path from 'node:path';

import { PACKAGE, REPO } from './repo.mjs';

export const STICKY_TYPE = 'n8n-nodes-base.stickyNote';
/** n8n 2.41.1's node sizes (canvas units); a configurable node (AI Agent, MCP Server Trigger) grows with its inputs. */
export const NODE_SIZE = { default: [96, 96], configuration: [80, 80], configurable: [320, 96] };
/** The band below a node holding its name and subtitle (two lines, centred), as the editor draws them. */
export const LABEL = { width: 200, height: 60 };
/** The editor's canvas pane in the editor suite's browser (1400 × 900: sidebar collapsed, logs panel closed), measured. */
export const PANE = { width: 1358, height: 798 };
/** n8n's fitView on opening a workflow. */
export const FIT = { maxZoom: 1, padding: 0.2 };

/** examples/*.json, parsed: [{ file, workflow }]. */
export function examples(dir = path.join(REPO, 'examples')) {
	return fs
		.readdirSync(dir)
		.filter((f) => f.endsWith('.json'))
		.sort()
		.map((file) => ({ file, workflow: JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8')) }));
}

export const notesOf = (wf) => wf.nodes.filter((n) => n.type === STICKY_TYPE);
export const nodesOf = (wf) => wf.nodes.filter((n) => n.type !== STICKY_TYPE);

/** A note's rectangle { x, y, w, h }. */
export const noteRect = (note) => ({
	x: note.position[0],
	y: note.position[1],
	w: note.parameters.width ?? 240,
	h: note.parameters.height ?? 160,
});

/** The kind of a node on the canvas, from the workflow's connections (n8n's rule: non-main in or out). */
export function nodeKind(wf, name) {
	const nonMain = (type) => type !== 'main';
	const out = Object.keys(wf.connections?.[name] ?? {});
	if (out.length && out.every(nonMain)) return 'configuration';
	const isTarget = Object.values(wf.connections ?? {}).some((byType) =>
		Object.entries(byType).some(
			([type, outputs]) =>
				nonMain(type) && outputs.some((list) => (list ?? []).some((c) => c.node === name)),
		),
	);
	return isTarget ? 'configurable' : 'default';
}

/** The width of the bolt the editor draws left of a trigger (a node with no input). */
export const TRIGGER_BOLT = 48;

/** What a node takes on the canvas: its box, the label band below it and a trigger's bolt, [{ x, y, w, h }]. */
export function nodeRects(wf, node) {
	const [w, h] = NODE_SIZE[nodeKind(wf, node.name)];
	const [x, y] = node.position;
	const isInput = Object.values(wf.connections ?? {}).some((byType) =>
		(byType.main ?? []).some((list) => (list ?? []).some((c) => c.node === node.name)),
	);
	return [
		{ x, y, w, h },
		{ x: x + w / 2 - LABEL.width / 2, y: y + h, w: LABEL.width, h: LABEL.height },
		...(isInput || nodeKind(wf, node.name) === 'configuration'
			? []
			: [{ x: x - TRIGGER_BOLT, y, w: TRIGGER_BOLT, h }]),
	];
}

export const overlaps = (a, b) =>
	a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;

/** The zoom n8n opens the workflow at in `pane`: Vue Flow's fitView over the nodes' and notes' boxes. */
export function openingZoom(wf, pane = PANE) {
	const boxes = wf.nodes.map((n) => (n.type === STICKY_TYPE ? noteRect(n) : nodeRects(wf, n)[0]));
	const left = Math.min(...boxes.map((b) => b.x));
	const right = Math.max(...boxes.map((b) => b.x + b.w));
	const top = Math.min(...boxes.map((b) => b.y));
	const bottom = Math.max(...boxes.map((b) => b.y + b.h));
	const zoom = Math.min(
		pane.width / ((right - left) * (1 + FIT.padding)),
		pane.height / ((bottom - top) * (1 + FIT.padding)),
	);
	return Math.min(FIT.maxZoom, zoom);
}

/** What a note's Markdown names: { nodes: [**…**], fields: [_…_], settings: [`N8N_…`] }. */
export function namesIn(content) {
	return {
		nodes: [...content.matchAll(/\*\*([^*]+)\*\*/g)].map((m) => m[1]),
		fields: [...content.matchAll(/(?<![\w*])_([^_\n]+)_(?!\w)/g)].map((m) => m[1]),
		settings: [...content.matchAll(/`(N8N_[A-Z0-9_]+)/g)].map((m) => m[1]),
	};
}

/**
 * The display names of this package's nodes' fields and options, by node type name (without the package
 * prefix): { generationServiceJob: Map(displayName → ['options.maxCredits', …]) }. Read from the node
 * descriptions (package.json's n8n.nodes, their TypeScript sources).
 */
export async function fieldNames() {
	const byType = {};
	for (const file of PACKAGE.n8n.nodes) {
		const source = path.join(REPO, file.replace(/^dist\//, '').replace(/\.js$/, '.ts'));
		const mod = await import(source);
		const description = new (Object.values(mod).find((v) => typeof v === 'function'))().description;
		const names = new Map();
		const walk = (props, prefix) => {
			for (const p of props) {
				const key = `${prefix}${p.name}`;
				names.set(p.displayName, [...(names.get(p.displayName) ?? []), key]);
				if (p.type === 'collection' && p.options) walk(p.options, `${key}.`);
			}
		};
		walk(description.properties, '');
		byType[description.name] = names;
	}
	return byType;
}

/** The parameter paths a node sets: top-level keys and, one level down, the keys of its collections. */
export function setParameters(node) {
	const keys = [];
	for (const [k, v] of Object.entries(node.parameters ?? {})) {
		keys.push(k);
		if (v && typeof v === 'object' && !Array.isArray(v) && !('__rl' in v))
			for (const inner of Object.keys(v)) keys.push(`${k}.${inner}`);
	}
	return keys;
}

/** The package's node type name of a workflow node (`generationServiceJob` for its Tool variant too), or undefined. */
export function packageTypeOf(node) {
	const prefix = `${PACKAGE.name}.`;
	if (!node.type.startsWith(prefix)) return undefined;
	return node.type.slice(prefix.length).replace(/Tool$/, '');
}

/** Display names of the n8n credential types the examples use (n8n-nodes-base's credential descriptions). */
const N8N_CREDENTIALS = {
	s3: 'S3',
	httpBearerAuth: 'Bearer Auth',
	httpBasicAuth: 'Basic Auth',
	openAiApi: 'OpenAi',
};

/** Credential type → display name: this package's (from its sources) and n8n's that the examples use. */
export async function credentialNames() {
	const names = { ...N8N_CREDENTIALS };
	for (const file of PACKAGE.n8n.credentials) {
		const source = path.join(REPO, file.replace(/^dist\//, '').replace(/\.js$/, '.ts'));
		const mod = await import(source);
		const credential = new (Object.values(mod).find((v) => typeof v === 'function'))();
		names[credential.name] = credential.displayName;
	}
	return names;
}
