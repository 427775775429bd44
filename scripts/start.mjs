// `npm start`: a ready n8n editor on this machine, without an account at the service.
//
// Builds and packs the package, starts the local emulator, and starts the cached n8n 2.x host with the
// package installed as a community package (from the packed tarball, as n8n's installer lays it out), a
// credential "Generation Service (local emulator)" pointing at the emulator, and every example imported
// with its paths set. The owner account is set up through n8n's REST API the first time; the URL and the
// login are printed. Ctrl-C stops n8n and the emulator; nothing is left listening.
//
// The n8n user folder lasts between starts (~/.cache/n8n-nodes-generation-service/start, or $GS_START_FOLDER):
// workflows you build stay. Each start installs the current build, starts a fresh emulator and points the
// credential at it; the examples are imported once (delete the folder to start over).
//
//   npm start [-- --port 5678] [-- --emulator-port 4010]
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';

import {
	cacheDir,
	createInstance,
	ensureHost,
	loginSession,
	ownerSession,
	startServer,
} from './n8n-host.mjs';
import { REPO, loadExample, packOnce } from '../test/e2e/harness.mjs';

const say = (msg) => process.stdout.write(`${msg}\n`);

export const OWNER_LOGIN = { email: 'owner@example.com', password: 'E2e-owner-2026' };
export const CREDENTIAL = { id: 'gsEmulatorCred', name: 'Generation Service (local emulator)' };
export const EXAMPLES = [
	'character-replacement.json',
	'image-to-video.json',
	'text-to-video-batch.json',
	'account-health.json',
	'ai-agent-job-tools.json',
];

function parseArgs(argv) {
	const args = { port: 5678, emulatorPort: 4010 };
	for (let i = 0; i < argv.length; i++) {
		if (argv[i] === '--port') args.port = Number(argv[++i]);
		else if (argv[i] === '--emulator-port') args.emulatorPort = Number(argv[++i]);
		else
			throw new Error(
				`unknown argument ${argv[i]} (npm start -- --port 5678 --emulator-port 4010)`,
			);
	}
	return args;
}

/** `wanted` when nothing listens there on loopback, else any free port (said in the output). */
async function portOr(wanted) {
	return await new Promise((resolve) => {
		const server = net.createServer();
		server.once('error', () => resolve(0));
		server.listen(wanted, '127.0.0.1', () => server.close(() => resolve(wanted)));
	});
}

/** An example with the Paths node set to this clone's samples and an output folder n8n may write. */
export function preparedExample(file, { samplesDir, outputDir }) {
	const wf = loadExample(file);
	for (const node of wf.nodes.filter((n) => n.name === 'Paths')) {
		for (const a of node.parameters.assignments.assignments) {
			if (a.name === 'samplesDir') a.value = samplesDir;
			if (a.name === 'outputDir') a.value = outputDir;
		}
	}
	return wf;
}

/**
 * Everything `npm start` starts, ready; `stop()` ends it all. Used by the editor suite too, which adds its own
 * `credentials` (a list, or a function of the emulator giving one), `workflows` and a faster `jobTiming`.
 */
export async function startLocal({
	userFolder = process.env.GS_START_FOLDER || path.join(cacheDir(), 'start'),
	port = 5678,
	emulatorPort = 4010,
	log = say,
	jobTiming = { queuedMs: 2000, runningMs: 8000 },
	credentials = [],
	workflows = [],
} = {}) {
	log('1/5 build and pack the package…');
	const tarball = await packOnce();

	log('2/5 start the local Generation Service emulator…');
	const { startEmulator } = await import('../emulator/src/index.ts');
	const emu = await startEmulator({
		port: await portOr(emulatorPort),
		jobTiming,
	});

	log('3/5 prepare n8n 2.x (the first start installs it into ~/.cache: about 5 minutes)…');
	await ensureHost({ version: '2' });
	const firstStart = !fs.existsSync(path.join(userFolder, '.gs-start-ready'));
	const outputDir = path.join(userFolder, 'output');
	fs.mkdirSync(outputDir, { recursive: true });
	const inst = await createInstance({
		version: '2',
		userFolder,
		// the examples read the repo's samples and write their MP4 to the output folder
		env: { N8N_RESTRICT_FILE_ACCESS_TO: [path.join(REPO, 'examples'), outputDir].join(';') },
	});
	let server;
	const stop = async () => {
		await server?.stop();
		await inst.close();
		await emu.close();
	};
	try {
		log('4/5 install the package, the credential and the examples…');
		await inst.installPackage(tarball);
		await inst.importCredentials([
			{
				...CREDENTIAL,
				type: 'generationServiceApi',
				data: { apiKey: emu.keys.full, baseUrl: emu.baseUrl },
			},
			...(typeof credentials === 'function' ? credentials(emu) : credentials),
		]);
		if (firstStart) {
			const dirs = { samplesDir: path.join(REPO, 'examples', 'samples'), outputDir };
			await inst.importWorkflow(EXAMPLES.map((file) => preparedExample(file, dirs)));
		}
		if (workflows.length) await inst.importWorkflow(workflows);

		log('5/5 start n8n…');
		server = await startServer(inst, { port: await portOr(port), log: () => undefined });
		if (firstStart) await ownerSession(server.base);
		else await loginSession(server.base);
		fs.writeFileSync(path.join(userFolder, '.gs-start-ready'), new Date().toISOString());
		return { base: server.base, emu, inst, server, outputDir, userFolder, stop };
	} catch (error) {
		await stop();
		throw error;
	}
}

async function main() {
	const args = parseArgs(process.argv.slice(2));
	const local = await startLocal(args);
	let stopping = false;
	const shutdown = async () => {
		if (stopping) return;
		stopping = true;
		say('\nstopping n8n and the emulator…');
		await local.stop();
		say('stopped.');
		process.exit(0);
	};
	process.on('SIGINT', shutdown);
	process.on('SIGTERM', shutdown);
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
			`  also         ${others.map((w) => `"${w.name}"`).join('\n               ')}`,
			`               (Overview → Workflows)`,
			`  user folder  ${local.userFolder} (kept between starts; delete it to start over)`,
			'',
			'Ctrl-C stops n8n and the emulator.',
		].join('\n'),
	);
}

if (
	process.argv[1] &&
	path.resolve(process.argv[1]) === path.resolve(new URL(import.meta.url).pathname)
) {
	main().catch((error) => {
		process.stderr.write(`${error.stack ?? error}\n`);
		process.exit(1);
	});
}
