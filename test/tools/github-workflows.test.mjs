// The GitHub Actions workflows as GitHub reads them: valid against the workflow schema (@action-validator/core,
// offline), and what the release relies on — a tag starts publish.yml, which publishes only after ci.yml's tests
// pass on that commit, with id-token: write, secrets referenced as ${{ secrets.NAME }}, the Node version ci.yml
// tests with, installs without dependency scripts and the release script of package.json.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

import { validateWorkflow } from '@action-validator/core';
import YAML from 'yaml';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const WORKFLOWS = path.join(REPO, '.github', 'workflows');
const read = (name) => fs.readFileSync(path.join(WORKFLOWS, name), 'utf8');
const PACKAGE = JSON.parse(fs.readFileSync(path.join(REPO, 'package.json'), 'utf8'));
const RELEASE_IT = JSON.parse(fs.readFileSync(path.join(REPO, '.release-it.json'), 'utf8'));

/** Every step of every job, with its job's id. */
const stepsOf = (wf) =>
	Object.entries(wf.jobs).flatMap(([job, def]) => (def.steps ?? []).map((s) => ({ job, ...s })));

/** A glob of GitHub's tag filters (`*` = any run of characters but `/`) as a RegExp. */
const tagGlob = (glob) =>
	new RegExp(`^${glob.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '[^/]*')}$`);

/** Problems in how a workflow's text refers to secrets: each must sit inside one ${{ … }} expression. */
export function secretReferenceProblems(text) {
	const problems = [];
	const expressions = [...text.matchAll(/\$\{\{([^}]*)\}\}/g)].map((m) => [
		m.index,
		m.index + m[0].length,
	]);
	for (const m of text.matchAll(/secrets\.[A-Za-z_][A-Za-z0-9_]*/g)) {
		const line = text.slice(text.lastIndexOf('\n', m.index) + 1, m.index);
		if (line.trimStart().startsWith('#')) continue; // a comment
		if (!expressions.some(([a, b]) => m.index > a && m.index < b))
			problems.push(`${m[0]} outside \${{ }}`);
	}
	// an env value that is only a `$` or a shell-style `$NAME` where an expression was meant (`NPM_TOKEN: $`)
	for (const m of text.matchAll(/^\s*[A-Z_][A-Z0-9_]*:\s*['"]?\$(?!\{\{)[^\n]*$/gm))
		problems.push(`env value is not an expression: ${m[0].trim()}`);
	return problems;
}

for (const file of ['ci.yml', 'publish.yml']) {
	describe(`.github/workflows/${file}`, () => {
		const text = read(file);
		it('is a valid workflow (schema, job references)', () => {
			const result = validateWorkflow(text);
			assert.deepEqual(result.errors, [], JSON.stringify(result.errors, null, 2));
		});
		it('refers to secrets only as ${{ secrets.NAME }}', () => {
			assert.deepEqual(secretReferenceProblems(text), []);
		});
		it('installs with npm ci --ignore-scripts, on Node 20 (the version the tests run on)', () => {
			const steps = stepsOf(YAML.parse(text));
			const installs = steps.filter((s) => /\bnpm ci\b/.test(s.run ?? ''));
			assert.ok(installs.length > 0, 'no npm ci step');
			for (const s of installs) assert.match(s.run, /--ignore-scripts/, `${s.job}: ${s.run}`);
			const versions = steps
				.filter((s) => String(s.uses ?? '').startsWith('actions/setup-node@'))
				.map((s) => String(s.with?.['node-version']));
			assert.ok(versions.length > 0, 'no setup-node step');
			assert.deepEqual([...new Set(versions)], ['20']);
		});
	});
}

describe('the release path', () => {
	const ci = YAML.parse(read('ci.yml'));
	const publish = YAML.parse(read('publish.yml'));

	it('a release-it tag starts publish.yml', () => {
		const tag = RELEASE_IT.git.tagName.replace('${version}', '0.3.1');
		const filters = publish.on.push.tags;
		assert.ok(
			filters.some((f) => tagGlob(f).test(tag)),
			`tag ${tag} matches none of ${filters}`,
		);
		assert.equal(publish.on.push.branches, undefined);
	});

	it('publishes only after ci.yml passed on the tagged commit', () => {
		assert.ok('workflow_call' in ci.on, 'ci.yml cannot be called by publish.yml');
		const testJob = Object.entries(publish.jobs).find(
			([, job]) => job.uses === './.github/workflows/ci.yml',
		);
		assert.ok(testJob, 'publish.yml does not run ci.yml');
		const [testId] = testJob;
		const needs = [publish.jobs.publish.needs].flat();
		assert.ok(needs.includes(testId), `the publish job needs ${needs}, not ${testId}`);
	});

	it('the publish job may mint an OIDC token (provenance) and runs n8n-node release', () => {
		const job = publish.jobs.publish;
		assert.equal(job.permissions?.['id-token'], 'write');
		const release = stepsOf({ jobs: { publish: job } }).find((s) =>
			/npm run release:ci/.test(s.run ?? ''),
		);
		assert.ok(release, 'no step runs npm run release:ci');
		assert.equal(PACKAGE.scripts['release:ci'], 'n8n-node release');
		assert.equal(PACKAGE.scripts.prepublishOnly, 'n8n-node prerelease');
		assert.match(release.env?.NPM_TOKEN ?? '', /^\$\{\{\s*secrets\.NPM_TOKEN\s*\}\}$/);
	});

	it('npm runs the prepublishOnly guard: no .npmrc turns scripts off', () => {
		const npmrc = path.join(REPO, '.npmrc');
		const text = fs.existsSync(npmrc) ? fs.readFileSync(npmrc, 'utf8') : '';
		assert.doesNotMatch(text, /^\s*ignore-scripts\s*=\s*true/m);
	});
});

describe('secretReferenceProblems', () => {
	it('finds the lost secret reference and a bare secrets.NAME', () => {
		assert.deepEqual(secretReferenceProblems('    env:\n      NPM_TOKEN: $\n'), [
			'env value is not an expression: NPM_TOKEN: $',
		]);
		assert.deepEqual(secretReferenceProblems('      run: echo secrets.NPM_TOKEN\n'), [
			'secrets.NPM_TOKEN outside ${{ }}',
		]);
		assert.deepEqual(
			secretReferenceProblems('      NPM_TOKEN: ${{ secrets.NPM_TOKEN }}\n# secrets.X\n'),
			[],
		);
	});
});
