// docker/compose.yml and docker/Dockerfile cannot be run here (no image can be pulled), so they are held to what
// the suites really run on n8n 2.41.x without Docker: the same variable names (and values where the suites fix
// them), the same folder layout under the user folder, the n8n version the suites test and package.json's
// version. A name the suites do not run yet is allowed only from NOT_RUN, and must be read by the installed n8n.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';

import YAML from 'yaml';

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

/** A compose text's services, with YAML merge keys (<<) applied. */
export function composeServices(text) {
	return YAML.parse(text, { merge: true }).services;
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
		// compose runs n8n's own image: the package comes from N8N_COMMUNITY_PACKAGES (below)
		assert.match(
			COMPOSE,
			new RegExp(`^  image: n8nio/n8n:${HOSTS[2].n8n.replaceAll('.', '\\.')}$`, 'm'),
		);
	});

	it('installs the package from environment variables as test/e2e/queue-n8n3.test.mjs runs it', () => {
		const suite = read('test/e2e/queue-n8n3.test.mjs');
		const services = composeServices(COMPOSE);
		const n8nServices = Object.entries(services).filter(([, s]) =>
			s.image?.startsWith('n8nio/n8n:'),
		);
		const workers = n8nServices.filter(([, s]) => /^worker\b/.test(s.command)).map(([n]) => n);
		assert.ok(workers.length >= 2, `workers: ${workers}`);
		for (const [name, s] of n8nServices) {
			// every process: unverified packages off (3.0's default), the list with a checksum (the suite's)
			assert.equal(s.environment.N8N_UNVERIFIED_PACKAGES_ENABLED, 'false', name);
			assert.equal(s.environment.N8N_COMMUNITY_PACKAGES_MANAGED_BY_ENV, 'true', name);
			const list = JSON.parse(s.environment.N8N_COMMUNITY_PACKAGES);
			assert.deepEqual(
				list.map((p) => Object.keys(p)),
				[['name', 'version', 'checksum']],
				name,
			);
			assert.equal(list[0].name, PACKAGE.name);
			assert.match(list[0].version, /^\$\{GS_PACKAGE_VERSION:\?/);
			assert.match(list[0].checksum, /^\$\{GS_PACKAGE_CHECKSUM:\?/);
			// its own user folder on a volume: a worker started later with an empty one lacks the package
			assert.ok(
				(s.volumes ?? []).some((v) => /^[\w-]+:\/home\/node\/\.n8n$/.test(v)),
				`${name} keeps /home/node/.n8n on a volume`,
			);
		}
		for (const name of ['N8N_UNVERIFIED_PACKAGES_ENABLED', 'N8N_COMMUNITY_PACKAGES_MANAGED_BY_ENV'])
			assert.match(suite, new RegExp(`${name}: '${services.main.environment[name]}'`), name);
		assert.match(
			suite,
			/name: PACKAGE\.name, version: PACKAGE\.version, \.\.\.\(checksum && \{ checksum \}\)/,
		);
		const volumes = n8nServices.flatMap(([, s]) => s.volumes);
		assert.equal(new Set(volumes).size, volumes.length, 'one volume per process');
		// the workers start first and hear the main's install (the suite's workersFirst)
		assert.match(suite, /workersFirst: true/);
		for (const w of workers)
			assert.equal(services.main.depends_on?.[w]?.condition, 'service_healthy', `main after ${w}`);
		// the checksum command compose's header gives is the one docs/n8n-3.md gives (the suite runs it)
		assert.match(COMPOSE, new RegExp(`npm view \\$PKG dist\\.integrity`));
		assert.match(
			COMPOSE,
			new RegExp(`PKG=${PACKAGE.name}@${PACKAGE.version.replaceAll('.', '\\.')}$`, 'm'),
		);
		assert.match(
			read('docs/n8n-3.md'),
			new RegExp(`npm view ${PACKAGE.name}@\\S+ dist\\.integrity`),
		);
	});

	it('finds a planted variable no suite runs (the check can fail)', () => {
		const planted = COMPOSE.replace('N8N_DEFAULT_BINARY_DATA_MODE:', 'N8N_BINARY_DATA_MODE:');
		assert.deepEqual(envProblems(planted), ['N8N_BINARY_DATA_MODE is set by no suite']);
	});
});
