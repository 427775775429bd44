// The repository as the tooling sees it: where it is, its package.json, its example workflows.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
export const PACKAGE = JSON.parse(fs.readFileSync(path.join(REPO, 'package.json'), 'utf8'));

/** Node type of one of this package's nodes as n8n names it once installed: `<package>.<description.name>`. */
export function packageNodeType(nodeName) {
	return `${PACKAGE.name}.${nodeName}`;
}

/** Read an example workflow from examples/<file> and give it an importable id (1-21 characters). */
export function loadExample(file, id) {
	const wf = JSON.parse(fs.readFileSync(path.join(REPO, 'examples', file), 'utf8'));
	wf.id =
		id ??
		wf.id ??
		path
			.basename(file, '.json')
			.replace(/[^A-Za-z0-9]/g, '')
			.slice(0, 21);
	if (wf.id.length > 21) throw new Error(`workflow id too long: ${wf.id}`);
	wf.active = false;
	return wf;
}

/** Where examples point to the n8n that runs them (the MCP example's link to the MP4): replaced when prepared. */
export const EXAMPLE_N8N_URL = 'https://n8n.example.com';

/**
 * An example ready for this machine: its Paths node set to `samplesDir` and an output folder n8n may write
 * (`outputDir`), and `baseUrl` (the n8n that runs it) in place of EXAMPLE_N8N_URL. Only what is given is set.
 */
export function preparedExample(file, { samplesDir, outputDir, baseUrl } = {}) {
	let wf = loadExample(file);
	if (baseUrl) wf = JSON.parse(JSON.stringify(wf).replaceAll(EXAMPLE_N8N_URL, baseUrl));
	for (const node of wf.nodes.filter((n) => n.name === 'Paths')) {
		for (const a of node.parameters.assignments.assignments) {
			if (a.name === 'samplesDir' && samplesDir) a.value = samplesDir;
			if (a.name === 'outputDir' && outputDir) a.value = outputDir;
		}
	}
	return wf;
}
