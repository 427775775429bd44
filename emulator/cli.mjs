#!/usr/bin/env node
// Local Generation Service emulator — `npm run emulator [-- --port N --state file.json]` (--help: the options,
// read by tools/lib/cli.mjs).
// Plain JS (not linted by the n8n rules) so it may use process, fs, timers and console.
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';

import { UsageError, integer, runCommand } from '../tools/lib/cli.mjs';
import { startEmulator } from './src/index.ts';

/** <requests>/<windowMs>, e.g. 100/60000 */
function ipLimit(text, flag) {
	const m = /^(\d+)\/(\d+)$/.exec(text);
	if (!m)
		throw new UsageError(`${flag} takes <requests>/<windowMs>, e.g. 100/60000, not "${text}"`);
	return { requests: Number(m[1]), windowMs: Number(m[2]) };
}

export const EMULATOR_COMMAND = {
	command: 'npm run emulator',
	summary:
		"The local Generation Service emulator (emulator/README.md): the service's API v1 on loopback, with seeded\n" +
		'API keys (printed at start), a control API and the referee of client mistakes. Ctrl-C stops it.',
	options: {
		port: {
			type: 'string',
			value: 'PORT',
			default: 4010,
			parse: integer({ min: 0, max: 65535 }),
			help: 'where it listens; 0 picks a free port',
		},
		host: {
			type: 'string',
			value: 'HOST',
			default: '127.0.0.1',
			help: 'the address it listens on',
		},
		state: {
			type: 'string',
			value: 'FILE',
			help: 'JSON file loaded at start if it exists, saved after every change and on exit',
		},
		'rate-window-ms': {
			type: 'string',
			value: 'MS',
			parse: integer({ min: 1 }),
			help: "the keys' rate-limit window (default 60000)",
		},
		'ip-limit': {
			type: 'string',
			value: 'N/MS',
			parse: ipLimit,
			help: 'requests per window per client address, e.g. 100/60000 (default: none)',
		},
		'min-poll-interval-ms': {
			type: 'string',
			value: 'MS',
			parse: integer(),
			help: "the referee's shortest allowed interval between reads of one job (default 5000)",
		},
	},
};

const args = await new Promise((resolve) =>
	runCommand(EMULATOR_COMMAND, ({ options }) =>
		resolve({
			port: options.port,
			host: options.host,
			state: options.state ?? null,
			settings: {
				...(options['rate-window-ms'] !== undefined && { rateWindowMs: options['rate-window-ms'] }),
				...(options['ip-limit'] && { ipLimit: options['ip-limit'] }),
				...(options['min-poll-interval-ms'] !== undefined && {
					minPollIntervalMs: options['min-poll-interval-ms'],
				}),
			},
		}),
	),
);
let state;
if (args.state && existsSync(args.state)) {
	state = JSON.parse(readFileSync(args.state, 'utf8'));
}

let saveTimer = null;
let latest = null;
function save() {
	if (!args.state || !latest) return;
	const tmp = `${args.state}.tmp`;
	writeFileSync(tmp, JSON.stringify(latest.snapshot()));
	renameSync(tmp, args.state);
}

const emulator = await startEmulator({
	port: args.port,
	host: args.host,
	state,
	...args.settings,
	onChange: (control) => {
		latest = control;
		if (!args.state || saveTimer) return;
		saveTimer = setTimeout(() => {
			saveTimer = null;
			save();
		}, 200);
	},
});
latest = emulator.control;
save();

console.log(`Generation Service emulator listening
  base URL : ${emulator.baseUrl}
  control  : ${emulator.origin}/_control  (loopback only; see emulator/README.md)
  state    : ${args.state ? `${args.state}${state ? ' (restored)' : ' (new)'}` : 'in memory'}

Seeded API keys (local emulator only):
  full (every scope)     ${emulator.keys.full}
  read-only              ${emulator.keys.readOnly}
  tiny ceiling (10 cr.)  ${emulator.keys.tinyCeiling}

Referee (client mistakes): curl ${emulator.origin}/_control/violations

Try: curl ${emulator.baseUrl}/capabilities`);

// A closed stdout (e.g. the reader of a pipe is gone) must not turn a shutdown into a crash.
for (const stream of [process.stdout, process.stderr]) stream.on('error', () => {});

let closing = false;
async function shutdown(reason) {
	if (closing) return;
	closing = true;
	if (saveTimer) clearTimeout(saveTimer);
	// Requests held by a `delay` fault could keep close() waiting: never hang on the way out.
	setTimeout(() => process.exit(0), 3000).unref();
	save();
	const counts = Object.entries(emulator.control.violationCounts()).filter(([, n]) => n > 0);
	await emulator.close();
	console.log(`\nemulator stopped (${reason})`);
	if (counts.length > 0) {
		console.log(`referee violations: ${counts.map(([kind, n]) => `${kind} ${n}`).join(', ')}`);
	}
	process.exit(0);
}
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
	process.on(signal, () => void shutdown(signal));
}

// `npm run emulator` starts us through `sh -c "node …"`. A process manager's SIGTERM goes to the
// npm process, which forwards it to that shell only; the shell (dash, bash) dies without passing it
// on, and this process would be left running, orphaned, still holding the port. So, when started
// by an npm script, stop as soon as the parent that started us is gone (we get re-parented).
if (process.env.npm_lifecycle_event) {
	const parent = process.ppid;
	setInterval(() => {
		if (process.ppid !== parent) void shutdown('parent process exited');
	}, 250).unref();
}
