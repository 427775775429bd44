// `npm start`: a ready n8n editor on this machine, without an account at the service (tools/lib/local-editor.mjs).
//
// Builds and packs the package, starts the local emulator, and starts the cached n8n 2.x host with the
// package installed as a community package (from the packed tarball, as n8n's installer lays it out), a
// credential "Generation Service (local emulator)" pointing at the emulator, and every example imported
// with its paths set. The owner account is set up through n8n's REST API the first time; the URL and the
// login are printed. Ctrl-C stops n8n and the emulator; nothing is left listening. So does SIGINT or SIGTERM
// to the npm process alone (an IDE's stop button, a process manager) or to this node process alone.
//
// The n8n user folder lasts between starts (~/.cache/n8n-nodes-generation-service/start, or $GS_START_FOLDER):
// workflows you build stay. Each start installs the current build, starts a fresh emulator and points the
// credential at it; the examples are imported once (delete the folder to start over).
//
//   npm start [-- --port 5678 --emulator-port 4010]      npm start -- --help: the options
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { integer, runCommand } from '../tools/lib/cli.mjs';
import {
	CREDENTIAL,
	EXAMPLES,
	LOCAL_MCP,
	LOCAL_VIDEO_LINKS,
	OWNER_LOGIN,
	startLocal,
} from '../tools/lib/local-editor.mjs';
import { describeDefaults } from '../tools/lib/n8n-defaults.mjs';
import { loadExample } from '../tools/lib/repo.mjs';

const say = (msg) => process.stdout.write(`${msg}\n`);

export const START_COMMAND = {
	command: 'npm start',
	summary:
		'A ready n8n 2.x editor on this machine, no account needed: builds and packs the package, starts the local\n' +
		'emulator of the service and n8n with the package, a credential pointing at the emulator and every\n' +
		'example imported. Prints the URL and the login; Ctrl-C stops everything. The first start installs n8n\n' +
		'into ~/.cache/n8n-nodes-generation-service.',
	options: {
		port: {
			type: 'string',
			value: 'PORT',
			default: 5678,
			parse: integer({ min: 1, max: 65535 }),
			help: "n8n's port; a busy one is replaced by a free one, and the printed URL says which",
		},
		'emulator-port': {
			type: 'string',
			value: 'PORT',
			default: 4010,
			parse: integer({ min: 1, max: 65535 }),
			help: "the local emulator's port; likewise",
		},
	},
	notes: [
		'environment: GS_START_FOLDER (the n8n user folder, kept between starts), GS_N8N_CACHE (where n8n is installed)',
	],
};

async function main({ options }) {
	const local = await startLocal({ port: options.port, emulatorPort: options['emulator-port'] });
	let stopping = false;
	const shutdown = async () => {
		if (stopping) return;
		stopping = true;
		say('\nstopping n8n and the emulator…');
		await local.stop();
		say('stopped.');
		process.exit(0);
	};
	// Ctrl-C in a terminal signals the whole process group. An IDE's stop button or a process manager signals
	// npm alone: package.json's `exec node …` makes this process the one npm forwards SIGINT and SIGTERM to
	// (not a shell that would keep them), and a parent that is gone (npm killed outright) stops us too.
	for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, shutdown);
	// a closed terminal or pipe must not turn the stop into a crash
	for (const stream of [process.stdout, process.stderr]) stream.on('error', () => {});
	if (process.env.npm_lifecycle_event) {
		const parent = process.ppid;
		setInterval(() => {
			if (process.ppid !== parent) void shutdown();
		}, 500).unref();
	}
	const [first, ...others] = EXAMPLES.map((file) => loadExample(file));
	say(
		[
			'',
			`n8n is ready: ${local.base}`,
			`  open         ${local.base}/workflow/${first.id}`,
			`               after the login it shows "${first.name}":`,
			`               click "Execute workflow"; its MP4 goes to ${local.outputDir}`,
			`  log in       ${OWNER_LOGIN.email} / ${OWNER_LOGIN.password}`,
			`  emulator     ${local.emu.baseUrl} (the credential "${CREDENTIAL.name}" uses it)`,
			`  settings     ${describeDefaults('2')}`,
			`  MCP server   ${local.base}/mcp/${LOCAL_MCP.path} (Authorization: Bearer ${LOCAL_MCP.token})`,
			`  video links  ${local.base}/webhook/gs-video?job=<job id> (log in ${LOCAL_VIDEO_LINKS.user} / ${LOCAL_VIDEO_LINKS.password})`,
			`  workflows    ${local.base}/home/workflows (${local.base}/ opens it too)`,
			`  also         ${others.map((w) => `"${w.name}"`).join('\n               ')}`,
			`  user folder  ${local.userFolder} (kept between starts; delete it to start over)`,
			'',
			'Ctrl-C stops n8n and the emulator.',
		].join('\n'),
	);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
	runCommand(START_COMMAND, main);
}
