// Every example explains itself on n8n's canvas (tools/lib/example-notes.mjs): it has sticky notes; together they
// say what it costs in credits, which credential to set up and where the MP4 goes; a note names only nodes,
// credentials, fields and options the workflow has and n8n settings README.md documents; no note covers a node
// (its box or its name below it) or another note; and n8n opens the example at a zoom where a note's text stays
// readable. The editor suite checks the same in Chromium on the rendered canvas (test/e2e/editor.test.mjs).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { before, describe, it } from 'node:test';

import {
	credentialNames,
	examples,
	fieldNames,
	namesIn,
	nodeRects,
	nodesOf,
	noteRect,
	notesOf,
	openingZoom,
	overlaps,
	packageTypeOf,
	setParameters,
} from '../../tools/lib/example-notes.mjs';
import { REPO } from '../../tools/lib/repo.mjs';

/** The zoom below which a note's 14 px text reads smaller than 11 px in the editor suite's window. */
const READABLE_ZOOM = 0.78;
const README = fs.readFileSync(path.join(REPO, 'README.md'), 'utf8');
/** Nodes whose output carries an MP4 (or that hand it on): their examples must say where it goes. */
const MAKES_MP4 = /waitForJob|downloadOutput|"waitForCompletion":true/;

describe('the examples explain themselves with sticky notes', () => {
	let fields;
	let credentials;
	before(async () => {
		fields = await fieldNames();
		credentials = await credentialNames();
	});

	for (const { file, workflow: wf } of examples()) {
		describe(file, () => {
			const notes = notesOf(wf);
			const text = notes.map((n) => n.parameters.content).join('\n');

			it('has notes that say what it costs, what to set up and where the MP4 goes', () => {
				assert.ok(notes.length > 0, 'no sticky note');
				assert.match(text, /credits?\b/i, 'no word on the cost in credits');
				assert.match(text, /credential/i, 'no word on the credential to set up');
				assert.match(text, /^##? /m, 'no title');
				if (MAKES_MP4.test(JSON.stringify(wf.nodes)))
					assert.match(text, /\bMP4/, 'no word on where the MP4 goes');
				for (const n of notes) assert.ok(n.parameters.content.trim(), `${n.name} is empty`);
			});

			it('names only nodes, credentials, fields and options it has, and documented settings', () => {
				const nodeNames = new Set(nodesOf(wf).map((n) => n.name));
				const usedCredentials = new Set(
					nodesOf(wf).flatMap((n) => Object.keys(n.credentials ?? {}).map((t) => credentials[t])),
				);
				const problems = [];
				for (const note of notes) {
					const named = namesIn(note.parameters.content);
					for (const name of named.nodes)
						if (!nodeNames.has(name) && !usedCredentials.has(name))
							problems.push(`${note.name}: **${name}** is no node or credential of this workflow`);
					for (const field of named.fields) {
						const set = nodesOf(wf).some((n) => {
							const keys = fields[packageTypeOf(n)]?.get(field);
							return keys?.some((k) => setParameters(n).includes(k));
						});
						if (!set)
							problems.push(`${note.name}: _${field}_ is no field or option this workflow sets`);
					}
					for (const setting of named.settings)
						if (!README.includes(setting))
							problems.push(`${note.name}: \`${setting}\` is not in README.md`);
				}
				assert.deepEqual(problems, []);
			});

			it('no note covers a node, its name, or another note', () => {
				const problems = [];
				for (const note of notes) {
					const r = noteRect(note);
					for (const n of nodesOf(wf))
						if (nodeRects(wf, n).some((box) => overlaps(r, box)))
							problems.push(`${note.name} covers ${n.name}`);
					for (const other of notes)
						if (other !== note && overlaps(r, noteRect(other)))
							problems.push(`${note.name} covers ${other.name}`);
				}
				assert.deepEqual(problems, []);
			});

			it('opens at a zoom where the notes read', () => {
				const zoom = openingZoom(wf);
				assert.ok(zoom >= READABLE_ZOOM, `n8n opens it at ${zoom.toFixed(2)}`);
			});
		});
	}
});
