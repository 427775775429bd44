#!/usr/bin/env node
// Local Generation Service emulator — `npm run emulator [-- --port N] [-- --state file.json]`.
// Plain JS (not linted by the n8n rules) so it may use process, fs and console.
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';

import { startEmulator } from './src/index.ts';

function parseArgs(argv) {
	const args = { port: 4010, state: null, host: '127.0.0.1' };
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
		else if (a === '--help' || a === '-h') {
			console.log('usage: npm run emulator -- [--port 4010|0] [--state file.json] [--host 127.0.0.1]');
			process.exit(0);
		} else throw new Error(`unknown argument ${a}`);
	}
	if (!Number.isInteger(args.port) || args.port < 0 || args.port > 65535) throw new Error('bad --port');
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

Try: curl ${emulator.baseUrl}/capabilities`);

let closing = false;
async function shutdown(signal) {
	if (closing) return;
	closing = true;
	if (saveTimer) clearTimeout(saveTimer);
	save();
	await emulator.close();
	console.log(`\nemulator stopped (${signal})`);
	process.exit(0);
}
process.on('SIGINT', () => void shutdown('SIGINT'));
process.on('SIGTERM', () => void shutdown('SIGTERM'));
