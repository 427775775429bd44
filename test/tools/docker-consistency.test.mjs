// docker/compose.yml and docker/Dockerfile cannot be run here (no image can be pulled), so they are held to what
// the suites really run on n8n 2.41.x without Docker: the same variable names (and values where the suites fix
// them), the same folder layout under the user folder, the n8n version the suites test and package.json's
// version. A name the suites do not run yet is allowed only from NOT_RUN, and must be read by the installed n8n.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';

import { cacheDir } from '../../tools/lib/cache.mjs';
import { HOSTS } from '../../tools/lib/hosts.mjs';
import { PACKAGE, REPO } from '../../tools/lib/repo.mjs';

const read = (p) => fs.readFileSync(path.join(REPO, p), 'utf8');
const COMPOSE = read('docker/compose.yml');
const DOCKERFILE = read('docker/Dockerfile');

/** Variables that configure Postgres's own image, not n8n. */
const NOT_N8N = /^POSTGRES_/;

/** Names docker/compose.yml sets that no suite runs with yet, and why they are there (docs/n8n-3.md). */
const NOT_RUN = {
	OFFLOAD_MANUAL_EXECUTIONS_TO_WORKERS:
		"n8n 2.x's switch for what n8n 3.0 always does in queue mode",
};

/** The code the suites and tools run n8n with. */
function suiteSources() {
	const files = [];
	for (const dir of ['tools/lib', 'test/e2e', 'scripts']) {
		for (const f of fs.readdirSync(path.join(REPO, dir))) {
			if (f.endsWith('.mjs')) files.push(read(path.join(dir, f)));
		}
	}
	return files.join('\n');
}

/** The environment variables a compose file sets: { NAME: value } (the last value wins). */
export function composeEnv(text) {
	const env = {};
	for (const m of text.matchAll(/^\s+([A-Z][A-Z0-9_]+):\s*(.*)$/gm)) {
		env[m[1]] = m[2].replace(/^'(.*)'$/, '$1').trim();
	}
	return env;
}

/** What is wrong with a compose text's n8n variables against the suites' sources. */
export function envProblems(text, sources = suiteSources()) {
	const out = [];
	for (const name of Object.keys(composeEnv(text))) {
		if (NOT_N8N.test(name) || name in NOT_RUN) continue;
		if (!new RegExp(`\\b${name}\\b`).test(sources)) out.push(`${name} is set by no suite`);
	}
	return out;
}

describe('docker/compose.yml and docker/Dockerfile match what the suites run', () => {
	const env = composeEnv(COMPOSE);

	it('every n8n variable is one a suite runs with (or listed in NOT_RUN)', () => {
		assert.ok(Object.keys(env).length >= 15, Object.keys(env).join(' '));
		assert.deepEqual(envProblems(COMPOSE), []);
	});

	it('queue mode as the queue-mode suite runs it (tools/lib/queue-stack.mjs)', () => {
		const stack = read('tools/lib/queue-stack.mjs');
		for (const [name, value] of [
			['DB_TYPE', 'postgresdb'],
			['EXECUTIONS_MODE', 'queue'],
			['N8N_DEFAULT_BINARY_DATA_MODE', 'database'],
		]) {
			assert.equal(env[name], value, name);
			assert.match(stack, new RegExp(`${name}: '${value}'`), `the suite runs ${name}=${value}`);
		}
		assert.equal(env.QUEUE_HEALTH_CHECK_ACTIVE, 'true');
		assert.match(COMPOSE, /command: worker --concurrency=\d+/);
		assert.match(read('tools/lib/queue-processes.mjs'), /'worker'/);
	});

	it('the names allowed without a suite are read by the installed n8n and explained in docs/n8n-3.md', (t) => {
		const doc = read('docs/n8n-3.md');
		const n8nDist = path.join(
			process.env.GS_N8N_CACHE || cacheDir(),
			`n8n-${HOSTS[2].n8n}`,
			'node_modules',
			'n8n',
			'dist',
		);
		for (const name of Object.keys(NOT_RUN)) {
			assert.ok(name in env, `${name} is no longer in compose.yml: remove it from NOT_RUN`);
			assert.match(doc, new RegExp(name), `docs/n8n-3.md explains ${name}`);
		}
		if (!fs.existsSync(n8nDist)) {
			t.skip(`n8n ${HOSTS[2].n8n} is not installed (${n8nDist})`);
			return;
		}
		const sources = ['unverified-packages', 'offload-manual-executions']
			.map((rule) =>
				path.join(n8nDist, 'modules', 'breaking-changes', 'rules', 'v3', `${rule}.rule.js`),
			)
			.map((f) => fs.readFileSync(f, 'utf8'))
			.join('\n');
		for (const name of Object.keys(NOT_RUN)) assert.match(sources, new RegExp(name), name);
	});

	it('the same folder layout under the user folder: <user folder>/.n8n/nodes/node_modules/<package>', () => {
		// the image's user folder is /home/node; the suites' is N8N_USER_FOLDER (tools/lib/instance.mjs)
		assert.match(
			read('tools/lib/instance.mjs'),
			/nodesDir: path\.join\(userFolder, '\.n8n', 'nodes'\)/,
		);
		assert.match(DOCKERFILE, /mkdir -p \/home\/node\/\.n8n\/nodes/);
		assert.match(DOCKERFILE, /cd \/home\/node\/\.n8n\/nodes/);
		assert.match(COMPOSE, /- n8n_data:\/home\/node\/\.n8n$/m);
		assert.match(DOCKERFILE, /--omit=dev --omit=peer/, 'installed as the suites install it');
	});

	it("pins the n8n version the suites test and package.json's version", () => {
		assert.equal(/^ARG N8N_VERSION=(.+)$/m.exec(DOCKERFILE)?.[1], HOSTS[2].n8n);
		assert.equal(/^ARG PACKAGE_VERSION=(.+)$/m.exec(DOCKERFILE)?.[1], PACKAGE.version);
		assert.match(DOCKERFILE, new RegExp(`${PACKAGE.name}@\\$\\{PACKAGE_VERSION\\}`));
		assert.match(
			COMPOSE,
			new RegExp(`image: n8n-generation-service:${PACKAGE.version.replaceAll('.', '\\.')}$`, 'm'),
		);
	});

	it('finds a planted variable no suite runs (the check can fail)', () => {
		const planted = COMPOSE.replace('N8N_DEFAULT_BINARY_DATA_MODE:', 'N8N_BINARY_DATA_MODE:');
		assert.deepEqual(envProblems(planted), ['N8N_BINARY_DATA_MODE is set by no suite']);
	});
});
