// n8n's Migration Report (Settings → Migration Report; n8n 2.41.x, module breaking-changes): refreshed for a
// target version through the owner's REST session, and read for what concerns this package.
import fs from 'node:fs';
import path from 'node:path';

import { PACKAGE, REPO } from './repo.mjs';
import { manualTrigger, node, workflow } from './workflow.mjs';

/** `POST /rest/breaking-changes/report/refresh?version=…` then `GET …/report?version=…`: the report. */
export async function refreshReport(rest, version = 'v3') {
	await rest.request('POST', `/breaking-changes/report/refresh?version=${version}`, {});
	const answer = await rest.request('GET', `/breaking-changes/report?version=${version}`);
	return answer.report ?? answer;
}

/** Workflow-level findings on the given workflow ids: [{ ruleId, severity, workflow }]. */
export async function workflowFindings(rest, report, workflowIds) {
	const ids = new Set(workflowIds.map(String));
	const found = [];
	for (const r of report.workflowResults ?? []) {
		const detail = await rest.request('GET', `/breaking-changes/report/${r.ruleId}`);
		for (const w of detail.affectedWorkflows ?? []) {
			if (ids.has(String(w.id)) && (w.issues?.length ?? 1) > 0) {
				found.push({ ruleId: r.ruleId, severity: r.ruleSeverity, workflow: w.name ?? w.id });
			}
		}
	}
	return found;
}

/** Every finding of a report, one line each (for the closing note): `level ruleId (severity)`. */
export function summary(report) {
	return [
		...(report.instanceResults ?? []).map((r) => `instance ${r.ruleId} (${r.ruleSeverity})`),
		...(report.workflowResults ?? []).map(
			(r) => `workflow ${r.ruleId} (${r.ruleSeverity}, ${r.nbAffectedWorkflows ?? '?'} workflows)`,
		),
	];
}

/** Instance-level rules that concern a community package like this one. */
export const PACKAGE_INSTANCE_RULES = ['unverified-packages-v3'];

/** The examples as n8n's REST API creates them (no id, credentials left to the user). */
export function examplesForRest() {
	const dir = path.join(REPO, 'examples');
	return fs
		.readdirSync(dir)
		.filter((f) => f.endsWith('.json'))
		.sort()
		.map((f) => {
			const wf = JSON.parse(fs.readFileSync(path.join(dir, f), 'utf8'));
			return {
				file: f,
				body: workflow({
					name: `Example ${f}`,
					nodes: wf.nodes.map(({ credentials: _c, ...n }) => n),
					connections: wf.connections,
				}),
			};
		});
}

/** A workflow that uses a node n8n 3.0 removes (n8n-nodes-base.orbit): the report must flag it. */
export function plantedRemovedNodeWorkflow() {
	return workflow({
		name: 'Planted: uses a node 3.0 removes',
		ids: '5b0c1a52',
		nodes: [manualTrigger(), node('Orbit', 'n8n-nodes-base.orbit', 1)],
	});
}

export { PACKAGE };
