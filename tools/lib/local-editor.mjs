// A ready n8n editor on this machine (`npm start`, and the suites that need the editor): the cached n8n 2.x
// with the package installed as a community package, the local emulator, a credential pointing at it and
// every example imported with its paths set, the owner set up. The user folder lasts between starts.
import fs from 'node:fs';
import path from 'node:path';

import { cacheDir } from './cache.mjs';
import { ensureHost } from './hosts.mjs';
import { createInstance } from './instance.mjs';
import { portOr } from './net.mjs';
import { packOnce } from './pack.mjs';
import { REPO, preparedExample } from './repo.mjs';
import { OWNER } from './rest.mjs';
import { startServer } from './server.mjs';

const say = (msg) => process.stdout.write(`${msg}\n`);

export const OWNER_LOGIN = OWNER;
export const CREDENTIAL = { id: 'gsEmulatorCred', name: 'Generation Service (local emulator)' };
export const EXAMPLES = [
	'character-replacement.json',
	'image-to-video.json',
	'text-to-video-batch.json',
	'account-health.json',
	'ai-agent-job-tools.json',
	'many-long-jobs.json',
	'mcp-video-server.json',
	'publish-to-s3.json',
	'publish-to-youtube.json',
];
/** Examples published on the first start (their webhooks and the MCP server answer right away). */
export const PUBLISHED_EXAMPLES = ['gsManyLongJobs', 'gsMcpVideoServer'];
/** The MCP example's credentials on this machine (a loopback-only n8n): printed by npm start. */
export const LOCAL_MCP = { token: 'gs-local-mcp-token-0123456789', path: 'generation-service' };
export const LOCAL_VIDEO_LINKS = { user: 'videos', password: 'gs-local-videos' };

/**
 * The bare URL (http://127.0.0.1:5678/) opens the workflow list, where the examples are. n8n 2.41.1's editor sends
 * `/` to its AI assistant page (`/assistant`, blank here: no model is set up) while the module `instance-ai` is
 * active, else to `/home/workflows` (n8n-editor-ui, router-*.js: the route `/`'s beforeEnter). The module is one
 * of n8n's default modules (@n8n/backend-common, modules.config.js); N8N_DISABLED_MODULES turns it off. n8n 2.x
 * only: n8n 1.x knows no such module and refuses an unknown name.
 */
export const HOME_IS_WORKFLOW_LIST = { N8N_DISABLED_MODULES: 'instance-ai' };

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
	const { startEmulator } = await import('../../emulator/src/index.ts');
	const emu = await startEmulator({
		port: await portOr(emulatorPort),
		jobTiming,
	});

	log(
		'3/5 prepare n8n 2.x (the first start installs it into ~/.cache: 7 min 36 s on a 2-core machine)…',
	);
	await ensureHost({ version: '2' });
	const firstStart = !fs.existsSync(path.join(userFolder, '.gs-start-ready'));
	const outputDir = path.join(userFolder, 'output');
	fs.mkdirSync(outputDir, { recursive: true });
	const inst = await createInstance({
		version: '2',
		userFolder,
		env: {
			// the examples read the repo's samples and write their MP4 to the output folder
			N8N_RESTRICT_FILE_ACCESS_TO: [path.join(REPO, 'examples'), outputDir].join(';'),
			...HOME_IS_WORKFLOW_LIST,
		},
	});
	let server;
	const n8nPort = await portOr(port); // the MCP example's instructions link to this n8n
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
			{
				id: 'gsMcpBearer',
				name: 'MCP clients (add your own token)',
				type: 'httpBearerAuth',
				data: { token: LOCAL_MCP.token },
			},
			{
				id: 'gsVideoLinks',
				name: 'Video links (add your own user name and password)',
				type: 'httpBasicAuth',
				data: LOCAL_VIDEO_LINKS,
			},
			...(typeof credentials === 'function' ? credentials(emu) : credentials),
		]);
		if (firstStart) {
			const baseUrl = `http://127.0.0.1:${n8nPort}`;
			const dirs = { samplesDir: path.join(REPO, 'examples', 'samples'), outputDir, baseUrl };
			await inst.importWorkflow(EXAMPLES.map((file) => preparedExample(file, dirs)));
			for (const id of PUBLISHED_EXAMPLES) {
				const r = await inst.n8n(['publish:workflow', `--id=${id}`]);
				if (r.code !== 0) throw new Error(`publishing ${id} failed:\n${r.stdout}${r.stderr}`);
			}
		}
		if (workflows.length) await inst.importWorkflow(workflows);

		log('5/5 start n8n…');
		server = await startServer(inst, { port: n8nPort, log: () => undefined });
		await server.rest.session(); // the owner: set up on the first start, logged in later
		fs.writeFileSync(path.join(userFolder, '.gs-start-ready'), new Date().toISOString());
		return { base: server.base, emu, inst, server, outputDir, userFolder, stop };
	} catch (error) {
		await stop();
		throw error;
	}
}
