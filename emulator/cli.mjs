#!/usr/bin/env node
// Local Generation Service emulator — `npm run emulator [-- --port N] [-- --state file.json]`.
// Plain JS (not linted by the n8n rules) so it may use process, fs, timers and console.
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';

import { startEmulator } from './src/index.ts';

const USAGE = `usage: npm run emulator -- [--port 4010|0] [--state file.json] [--host 127.0.0.1]
       [--rate-window-ms 60000] [--ip-limit <requests>/<windowMs>] [--min-poll-interval-ms 5000]`;

function integer(name, text) {
	const n = Number(text);
	if (!Number.isInteger(n) || n < 0) throw new Error(`${name} needs a non-negative integer`);
	return n;
}

function parseArgs(argv) {
	const args = { port: 4010, state: null, host: '127.0.0.1', settings: {} };
	for (let i = 0; i < argv.length; i++) {
		const a = argv[i];
		const value = () => {
			const v = argv[++i];
			if (v === undefined) throw new Error(`${a} needs a value`);
			return v;
		};
		if (a === '--port') args.port = Number(value());
		else if (a.startsWith('--port=')) args.port = Number(a.slice(7));
		else if (a === '--state') args.state = value();
		else if (a.startsWith('--state=')) args.state = a.slice(8);
		else if (a === '--host') args.host = value();
		else if (a === '--rate-window-ms') args.settings.rateWindowMs = integer(a, value());
		else if (a === '--min-poll-interval-ms') args.settings.minPollIntervalMs = integer(a, value());
		else if (a === '--ip-limit') {
			const m = /^(\d+)\/(\d+)$/.exec(value());
			if (!m) throw new Error('--ip-limit needs <requests>/<windowMs>, e.g. 100/60000');
			args.settings.ipLimit = { requests: Number(m[1]), windowMs: Number(m[2]) };
		} else if (a === '--help' || a === '-h') {
			console.log(USAGE);
			process.exit(0);
		} else throw new Error(`unknown argument ${a}\n${USAGE}`);
	}
	if (!Number.isInteger(args.port) || args.port < 0 || args.port > 65535)
		throw new Error('bad --port');
	return args;
}

const args = parseArgs(process.argv.slice(2));
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
