// One n8n process in regular mode, shaped as a stack (stack-api.mjs) like queue-stack.mjs, so the soak and the
// bench run on either: an instance with the package, credentials and workflows imported and published before it
// starts (n8n 1.x registers the webhooks of active workflows as it starts), then `n8n start`.
import { createInstance } from './instance.mjs';
import { n8nRest } from './rest.mjs';
import { startServer } from './server.mjs';
import { processFacade, restFacade } from './stack-api.mjs';

/**
 * options: tarball (required), version ('1' by default: the regular-mode soak runs n8n 1.x), credentials,
 * workflows (published before the start), env (extra variables; filesystem binary data by default), log.
 */
export async function startRegularStack({
	tarball,
	version = '1',
	credentials = [],
	workflows = [],
	env = {},
	log,
}) {
	const inst = await createInstance({
		version,
		packageTarball: tarball,
		env: { N8N_DEFAULT_BINARY_DATA_MODE: 'filesystem', ...env },
		log,
	});
	if (credentials.length) await inst.importCredentials(credentials);
	for (const wf of workflows) {
		await inst.importWorkflow(wf);
		const r = await inst.n8n(['update:workflow', `--id=${wf.id}`, '--active=true']);
		if (r.code !== 0) throw new Error(`activating ${wf.id} failed:\n${r.stdout}\n${r.stderr}`);
	}
	let server = await startServer(inst, { log });
	const port = Number(new URL(server.base).port);
	let client = server.rest;
	await client.session();
	const processes = () => [
		{
			name: 'main',
			pid: server.pid,
			running: true,
			logFile: server.logFile,
			userFolder: inst.userFolder,
		},
	];
	const stack = {
		base: server.base,
		names: ['main'],
		workers: [],
		postgres: { version: undefined },
		processes,
		...processFacade(processes),
		// every REST call goes to the current server (a restart keeps its port)
		...restFacade({
			request: (...a) => client.request(...a),
			session: () => client.session(),
			executions: (id) => client.executions(id),
			allExecutions: (n) => client.allExecutions(n),
			execution: (id) => client.execution(id),
			waitForExecutions: (...a) => client.waitForExecutions(...a),
			waitForWebhook: (...a) => client.waitForWebhook(...a),
		}),
		// published before the start
		activate: async () => undefined,
		async restartMain() {
			const t = Date.now();
			await server.stop();
			const stopped = { ms: Date.now() - t };
			const t2 = Date.now();
			server = await startServer(inst, { log, port });
			client = n8nRest(server.base, inst.host.dir);
			await client.session();
			return { stopped, started: { ms: Date.now() - t2 } };
		},
		async stop({ keepLogs } = {}) {
			stack.stopSampling();
			await server.stop();
			if (keepLogs) log?.(`n8n log kept: ${server.logFile}`);
			else await inst.close();
		},
	};
	log?.(
		`n8n ${inst.n8nVersion} in regular mode (SQLite, filesystem binary data) at ${server.base}`,
	);
	return stack;
}
