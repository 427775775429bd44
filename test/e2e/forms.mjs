// What each form of the package's nodes shows, computed from the node descriptions of the build (dist/),
// with n8n-workflow's own displayOptions logic (NodeHelpers.displayParameter), and what docs/nodes.md promises
// for it (the "| Operation | Fields | Options |" tables under each node's heading). The editor suite
// (editor.test.mjs) compares both with the form that the n8n editor renders.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';

import { trackDir } from '../../tools/lib/exit.mjs';
import { REPO } from './harness.mjs';

const require = createRequire(import.meta.url);

/** Parameters that choose the form rather than being fields of it (the docs/nodes.md row names them). */
const SELECTORS = ['resource', 'operation', 'mode', 'event'];

function nodeHelpers() {
	// the same n8n-workflow the package is built and unit-tested against
	return require('n8n-workflow').NodeHelpers;
}

/**
 * The package as n8n gets it: `tarball` (from packOnce) unpacked into a temp folder whose node_modules is the
 * repo's (for n8n-workflow). Returns the folder; read it with nodeDescriptions(folder).
 */
export function unpacked(tarball) {
	const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gs-e2e-forms-'));
	trackDir(dir); // removed when the suite's process ends
	execFileSync('tar', ['xzf', tarball, '-C', dir]);
	const root = path.join(dir, 'package');
	fs.symlinkSync(path.join(REPO, 'node_modules'), path.join(root, 'node_modules'));
	return root;
}

/** The latest version's description of every node of the package (dist/), in package.json's order. */
export function nodeDescriptions(repo = REPO) {
	const pkg = JSON.parse(fs.readFileSync(path.join(repo, 'package.json'), 'utf8'));
	return pkg.n8n.nodes.map((file) => {
		const mod = require(path.join(repo, file));
		const NodeClass = Object.values(mod).find((v) => typeof v === 'function');
		const node = new NodeClass();
		const description = node.nodeVersions
			? node.nodeVersions[node.currentVersion].description
			: node.description;
		const version = Array.isArray(description.version)
			? Math.max(...description.version)
			: (node.currentVersion ?? description.version);
		return { ...description, version };
	});
}

/** Parameters a form shows for `values` (defaults filled in as n8n does), notices left out. */
function visible(description, values) {
	const NodeHelpers = nodeHelpers();
	const node = { typeVersion: description.version };
	const full =
		NodeHelpers.getNodeParameters(description.properties, values, true, false, node, description) ??
		values;
	const shown = description.properties.filter((p) =>
		NodeHelpers.displayParameter(full, p, node, description),
	);
	return { full, shown };
}

/** Options a collection offers under "Add option" while none is set. */
function collectionOptions(description, collection, rootValues) {
	const NodeHelpers = nodeHelpers();
	const node = { typeVersion: description.version };
	return collection.options
		.filter((o) => NodeHelpers.displayParameter({}, o, node, description, rootValues))
		.map((o) => o.displayName);
}

const optionsOf = (p) => (p?.type === 'options' ? p.options : []);

/**
 * Every form state the suite opens: one per operation (and per mode of Create/Quote, per event of the
 * trigger), plus one per other value of a field that shows or hides fields (Return All, Character From).
 * Each: { node, type, version, row (the docs/nodes.md row's name), key, parameters (what the workflow sets),
 * fields: [{ name, displayName }], options: [displayName] }.
 */
export function formStates(descriptions = nodeDescriptions()) {
	const states = [];
	for (const d of descriptions) {
		// selector values: resource → operation → mode/event, as the form offers them
		const combos = [{}];
		for (const sel of SELECTORS) {
			const next = [];
			for (const c of combos) {
				const { shown } = visible(d, c);
				const params = shown.filter((p) => p.name === sel);
				if (params.length === 0) {
					next.push(c);
					continue;
				}
				for (const o of optionsOf(params[0])) next.push({ ...c, [sel]: o.value });
			}
			combos.splice(0, combos.length, ...next);
		}
		for (const combo of combos) {
			const shownNow = visible(d, combo).shown;
			const label = (sel) =>
				optionsOf(shownNow.find((p) => p.name === sel)).find((o) => o.value === combo[sel])?.name;
			const row = ['operation', 'mode', 'event']
				.map((s) => combo[s] !== undefined && label(s))
				.filter(Boolean)
				.join(' — ');
			const base = visible(d, combo);
			// fields that show or hide other fields of this form: try each of their other values too
			const controllers = base.shown.filter(
				(p) =>
					!SELECTORS.includes(p.name) &&
					(p.type === 'boolean' || p.type === 'options') &&
					base.shown.some((q) =>
						[q.displayOptions?.show, q.displayOptions?.hide].some(
							(c) => c && Object.hasOwn(c, p.name),
						),
					),
			);
			const variants = [{ parameters: combo, suffix: '' }];
			for (const c of controllers) {
				const values = c.type === 'boolean' ? [true, false] : c.options.map((o) => o.value);
				for (const v of values) {
					if (v === base.full[c.name]) continue;
					variants.push({ parameters: { ...combo, [c.name]: v }, suffix: `${c.name}=${v}` });
				}
			}
			for (const { parameters, suffix } of variants) {
				const { full, shown: own } = visible(d, parameters);
				// n8n puts its schedule field "Poll Times" at the top of every polling trigger's form
				const shown = d.polling
					? [{ name: 'pollTimes', displayName: 'Poll Times', type: 'fixedCollection' }, ...own]
					: own;
				const fields = shown
					.filter(
						(p) => p.type !== 'notice' && p.type !== 'collection' && !SELECTORS.includes(p.name),
					)
					.map((p) => ({ name: p.name, displayName: p.displayName, type: p.type }));
				const collections = shown.filter((p) => p.type === 'collection');
				states.push({
					node: d.displayName,
					type: d.name,
					version: d.version,
					row,
					key: [d.displayName.replace(/^Generation Service /, ''), row, suffix]
						.filter(Boolean)
						.join(' · '),
					parameters,
					// what the editor lists at the top of the form: the selectors it shows, then the fields
					shownNames: shown.filter((p) => p.type !== 'notice').map((p) => p.name),
					fields,
					options: collections.flatMap((c) => collectionOptions(d, c, full)),
				});
			}
		}
	}
	return states;
}

/**
 * docs/nodes.md's promise per node and row: { [node]: { [row]: { fields: [...], options: [...] } } }, read from the
 * tables whose header is "| Operation | Fields | Options |" (or "| Event | …" for the trigger) under the
 * node's "### <node name>" heading. Remarks in parentheses after a name are for people ("Limit (when
 * Return All is off)"); names with their own parentheses ("Max Rate-Limit Wait (Seconds)") are matched
 * whole against `knownNames`.
 */
export function readmeForms(readme, knownNames) {
	const out = {};
	let node;
	let inTable = false;
	const names = [...knownNames].sort((a, b) => b.length - a.length);
	const parseList = (cell) => {
		const items = [];
		let depth = 0;
		let cur = '';
		for (const ch of cell) {
			if (ch === '(') depth++;
			if (ch === ')') depth--;
			if (ch === ',' && depth === 0) {
				items.push(cur);
				cur = '';
			} else cur += ch;
		}
		items.push(cur);
		return items
			.map((s) => s.replace(/[*`_]/g, '').trim())
			.filter((s) => s && s !== '—' && s !== '-')
			.map((s) => names.find((n) => s === n || s.startsWith(`${n} (`)) ?? s);
	};
	for (const line of readme.split('\n')) {
		const h = /^###\s+(.+?)\s*$/.exec(line);
		if (h) {
			node = h[1];
			inTable = false;
			continue;
		}
		if (/^#{1,2}\s/.test(line)) {
			node = undefined;
			inTable = false;
			continue;
		}
		if (!node) continue;
		if (/^\|\s*(Operation|Event)\s*\|\s*Fields\s*\|\s*Options\s*\|\s*$/.test(line)) {
			inTable = true;
			continue;
		}
		if (!inTable) continue;
		if (!line.startsWith('|')) {
			inTable = false;
			continue;
		}
		if (/^\|[\s|:-]+\|$/.test(line)) continue;
		const cells = line.split('|').slice(1, -1);
		if (cells.length !== 3) continue;
		const row = cells[0].replace(/[*`]/g, '').trim();
		out[node] ??= {};
		out[node][row] = { fields: parseList(cells[1]), options: parseList(cells[2]) };
	}
	return out;
}

/**
 * Differences between what the descriptions show per docs/nodes.md row (the union over the row's form states) and
 * what docs/nodes.md promises: a list of sentences, empty when they agree.
 */
export function readmeDifferences(states, readme) {
	const known = new Set(
		states.flatMap((s) => [...s.fields.map((f) => f.displayName), ...s.options]),
	);
	const promised = readmeForms(readme, known);
	const problems = [];
	const rows = new Map();
	for (const s of states) {
		const k = `${s.node}\0${s.row}`;
		const r = rows.get(k) ?? { node: s.node, row: s.row, fields: new Set(), options: new Set() };
		for (const f of s.fields) r.fields.add(f.displayName);
		for (const o of s.options) r.options.add(o);
		rows.set(k, r);
	}
	const diff = (what, where, want, got) => {
		const missing = [...want].filter((x) => !got.has(x));
		const extra = [...got].filter((x) => !want.has(x));
		if (missing.length)
			problems.push(
				`${where}: the form shows ${what} ${missing.join(', ')} that docs/nodes.md does not list`,
			);
		if (extra.length)
			problems.push(
				`${where}: docs/nodes.md lists ${what} ${extra.join(', ')} that the form does not show`,
			);
	};
	for (const r of rows.values()) {
		const where = `${r.node}, ${r.row}`;
		const p = promised[r.node]?.[r.row];
		if (!p) {
			problems.push(
				`${where}: docs/nodes.md has no row "${r.row}" in a "| Operation | Fields | Options |" table under "### ${r.node}"`,
			);
			continue;
		}
		diff('fields', where, r.fields, new Set(p.fields));
		diff('options', where, r.options, new Set(p.options));
	}
	for (const [node, byRow] of Object.entries(promised)) {
		for (const row of Object.keys(byRow)) {
			if (!rows.has(`${node}\0${row}`))
				problems.push(`${node}, ${row}: docs/nodes.md has a row for a form the node does not have`);
		}
	}
	return problems;
}

/**
 * One workflow holding a node per form state (disconnected, in a grid), named by the state's key, each with
 * the emulator credential: opening a node opens that form.
 */
export function formsWorkflow(states, { id = 'gsEditorForms', credential } = {}) {
	const cols = 6;
	return {
		id,
		name: 'Editor suite: every form',
		active: false,
		nodes: states.map((s, i) => ({
			id: `00000000-0000-4000-8000-${String(i + 1).padStart(12, '0')}`,
			name: s.key,
			type: `n8n-nodes-generation-service.${s.type}`,
			typeVersion: s.version,
			position: [(i % cols) * 260, Math.floor(i / cols) * 220],
			parameters: { ...s.parameters },
			...(credential
				? { credentials: { generationServiceApi: { id: credential.id, name: credential.name } } }
				: {}),
		})),
		connections: {},
		settings: { executionOrder: 'v1' },
		pinData: {},
	};
}
