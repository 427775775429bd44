// `npm start` as a newcomer runs it: the real command (npm start -- --port P --emulator-port Q) in its own
// process group with a fresh user folder; once it prints "n8n is ready", the printed URL and login open a
// session through n8n's REST API, the credential and every example are there, the printed "open" URL leads
// through n8n's sign-in to the example in Chromium, the printed workflow list shows the examples, the MCP
// example's video link takes the printed login, and the emulator it started answers on its printed URL. Then Ctrl-C (SIGINT to the whole process group, as a terminal sends it): the
// command says "stopped.", exits 0, nothing listens on either port and no process of the group is left. A second
// start (the same user folder) is stopped as an IDE's stop button or a process manager does it: SIGINT to the npm
// process alone; again everything stops (package.json `exec`s the node process, to which npm forwards it).
// The emulator's referee saw no client mistake (read over its control API before the stop).
// n8n 2.x only (npm start starts the cached 2.x host).
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';

import { CREDENTIAL, EXAMPLES } from '../../tools/lib/local-editor.mjs';
import { pidAlive } from '../../tools/lib/locks.mjs';
import { N8N_3_DEFAULTS, describeDefaults } from '../../tools/lib/n8n-defaults.mjs';
import { freePort } from '../../tools/lib/net.mjs';
import { processStats } from '../../tools/lib/process.mjs';
import { n8nRest } from '../../tools/lib/rest.mjs';
import { waitUntil, within } from '../../tools/lib/wait.mjs';
import { launchBrowser } from './browser.mjs';
import { INSTALL_TIMEOUT_MS, REPO, e2eHosts, loadExample } from './harness.mjs';

const READY_BOUND_MS = INSTALL_TIMEOUT_MS; // a bound to fail instead of hang (the first start installs n8n)
const STOP_BOUND_MS = 120_000;

const listening = (port) =>
	new Promise((resolve) => {
		const socket = net.connect(port, '127.0.0.1');
		socket.once('connect', () => {
			socket.destroy();
			resolve(true);
		});
		socket.once('error', () => resolve(false));
	});

/**
 * Live processes of this npm start: in the process group of the command, or holding its user folder in their
 * environment or command line (n8n and its task runner run in a group of their own).
 */
function processesOf(pgid, folder) {
	const alive = [];
	for (const { pid, fields } of processStats()) {
		if (pid === process.pid || fields[0] === 'Z') continue;
		try {
			const env = fs.readFileSync(`/proc/${pid}/environ`, 'utf8');
			const cmdline = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8');
			if (Number(fields[2]) === pgid || env.includes(folder) || cmdline.includes(folder)) {
				alive.push(`${pid} ${cmdline.replaceAll('\0', ' ').trim()}`);
			}
		} catch {
			// the process ended while we looked, or is not ours to read
		}
	}
	return alive;
}

describe('npm start', { skip: !e2eHosts().includes('2') && 'npm start runs n8n 2.x' }, () => {
	const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'gs-start-test-'));
	let child;
	const children = [];
	after(() => {
		for (const c of children) {
			if (pidAlive(c.pid)) process.kill(-c.pid, 'SIGKILL');
			for (const p of processesOf(c.pid, folder)) process.kill(Number(p.split(' ')[0]), 'SIGKILL');
		}
		fs.rmSync(folder, { recursive: true, force: true });
	});

	/** `npm start -- --port P --emulator-port Q` in its own process group, once it printed that n8n is ready. */
	async function npmStart(t) {
		const started = Date.now();
		const [port, emulatorPort] = [await freePort(), await freePort()];
		const run = { port, emulatorPort, out: '' };
		run.child = spawn('npm', ['start', '--', '--port', port, '--emulator-port', emulatorPort], {
			cwd: REPO,
			detached: true, // its own process group: SIGINT to -pid is what a terminal's Ctrl-C sends
			env: { ...process.env, GS_START_FOLDER: folder },
			stdio: ['ignore', 'pipe', 'pipe'],
		});
		children.push(run.child);
		run.child.stdout.on('data', (d) => (run.out += d));
		run.child.stderr.on('data', (d) => (run.out += d));
		run.exited = new Promise((resolve) =>
			run.child.once('exit', (code, signal) => resolve({ code, signal })),
		);
		await waitUntil(
			'"n8n is ready" from npm start',
			() => run.out.includes('Ctrl-C stops n8n and the emulator.') || run.child.exitCode !== null,
			{ timeoutMs: READY_BOUND_MS, everyMs: 200 },
		);
		assert.equal(run.child.exitCode, null, `npm start ended early:\n${run.out}`);
		t.diagnostic(`ready after ${((Date.now() - started) / 1000).toFixed(1)} s`);
		return run;
	}

	/** After a stop signal: npm exits, it said "stopped.", no process of it is left, nothing listens. */
	async function everythingStopped(t, run, stopAt) {
		const end = await within(run.exited, STOP_BOUND_MS);
		assert.ok(end, `npm start did not stop within ${STOP_BOUND_MS} ms:\n${run.out}`);
		await waitUntil(
			'every process of npm start to end',
			() => processesOf(run.child.pid, folder).length === 0,
			{ timeoutMs: STOP_BOUND_MS, everyMs: 200 },
		).catch((error) => {
			throw new Error(`${error.message}: ${processesOf(run.child.pid, folder).join('; ')}`);
		});
		assert.ok(run.out.includes('stopped.'), run.out);
		t.diagnostic(`stopped after ${((Date.now() - stopAt) / 1000).toFixed(1)} s`);
		assert.equal(
			await listening(run.port),
			false,
			`something still listens on n8n's port ${run.port}`,
		);
		assert.equal(
			await listening(run.emulatorPort),
			false,
			`something still listens on ${run.emulatorPort}`,
		);
	}

	it('opens a ready editor with the printed login, and Ctrl-C leaves nothing running', async (t) => {
		const run = await npmStart(t);
		const { port, emulatorPort, out } = run;
		child = run.child;

		// what it printed is what works
		const base = /n8n is ready: (\S+)/.exec(out)?.[1];
		assert.match(base, new RegExp(`^http://(localhost|127\\.0\\.0\\.1):${port}$`), out);
		const [, email, password] = /log in\s+(\S+) \/ (\S+)/.exec(out) ?? [];
		const emulatorUrl = /emulator\s+(\S+)/.exec(out)?.[1];
		assert.ok(email && password && emulatorUrl, out);
		assert.ok(emulatorUrl.includes(`:${emulatorPort}/`), emulatorUrl);

		// the printed login opens a session (n8n's REST API, as the sign-in page does)
		const rest = n8nRest(base, undefined, { login: { email, password } });
		const cookie = await rest.session();
		const workflows = await rest.request('GET', '/workflows');
		const names = (Array.isArray(workflows) ? workflows : workflows.data).map((w) => w.name);
		assert.equal(names.length, EXAMPLES.length, names.join(', '));
		const credentials = await rest.request('GET', '/credentials');
		const credential = credentials.find(
			(c) => c.name === CREDENTIAL.name && c.type === 'generationServiceApi',
		);
		assert.ok(credential, JSON.stringify(credentials.map((c) => c.name)));
		// n8n runs under n8n 3.0's defaults (SSRF protection on), and the emulator's address is allowed:
		// n8n's credential test of the printed credential reaches it
		assert.ok(out.includes(`settings     ${describeDefaults('2')}`), out);
		assert.deepEqual(await rest.testCredential(credential.id), {
			status: 'OK',
			message: 'Connection successful!',
		});
		const types = await fetch(`${base}/types/nodes.json`, { headers: { cookie } });
		assert.equal(types.status, 200);
		const ours = (await types.json()).filter((t) =>
			t.name.startsWith('n8n-nodes-generation-service.'),
		);
		assert.ok(
			ours.length >= 5,
			`our node types in the editor: ${ours.map((t) => t.name).join(', ')}`,
		);

		// the printed "open" URL, as a newcomer follows it: n8n's sign-in, then the example, not n8n's home page
		const openUrl = /open\s+(\S+)/.exec(out)?.[1];
		const shown = /after the login it shows "([^"]+)"/.exec(out)?.[1];
		assert.ok(openUrl?.startsWith(`${base}/workflow/`) && shown, out);
		const { page, close } = await launchBrowser();
		try {
			page.setDefaultTimeout(120_000);
			await page.goto(openUrl, { waitUntil: 'domcontentloaded' });
			await page.locator('input[name="emailOrLdapLoginId"]').fill(email);
			await page.locator('input[name="password"]').fill(password);
			await page.locator('input[name="password"]').press('Enter');
			await page.waitForURL((url) => url.pathname === new URL(openUrl).pathname);
			// its canvas, and n8n's window title names it
			const nodeNames = loadExample('character-replacement.json').nodes.map((n) => n.name);
			await page
				.locator('[data-test-id="canvas-node"]')
				.filter({ hasText: 'Upload Video' })
				.first()
				.waitFor();
			assert.ok(nodeNames.includes('Upload Video'));
			await waitUntil(`the window title naming "${shown}"`, async () =>
				(await page.title()).includes(shown),
			);
			t.diagnostic(
				`the printed URL opens "${shown}" after the login (title "${await page.title()}")`,
			);
			// the printed workflow list: n8n's list with the examples
			const workflowsUrl = /workflows\s+(\S+)/.exec(out)?.[1];
			assert.equal(workflowsUrl, `${base}/home/workflows`, out);
			await page.goto(workflowsUrl, { waitUntil: 'domcontentloaded' });
			await page.getByText(shown, { exact: true }).first().waitFor();
			assert.equal(new URL(page.url()).pathname, '/home/workflows');
			// the bare URL, as a newcomer types it: the same list (n8n 2.41.1 would open its blank AI assistant
			// page, /assistant, with the module instance-ai on; local-editor.mjs turns it off)
			await page.goto(`${base}/`, { waitUntil: 'domcontentloaded' });
			await page.getByText(shown, { exact: true }).first().waitFor();
			assert.equal(new URL(page.url()).pathname, '/home/workflows');
			t.diagnostic(`the bare URL ${base}/ opens ${new URL(page.url()).pathname}`);
		} finally {
			await close();
		}

		// the MCP example's video links: refused without a login, let through with the printed one
		const [, linkUser, linkPassword] = /video links .*\(log in (\S+) \/ (\S+)\)/.exec(out) ?? [];
		assert.ok(linkUser && linkPassword, out);
		const link = `${base}/webhook/gs-video?job=job_${'0'.repeat(24)}`;
		assert.equal((await fetch(link)).status, 401);
		const withLogin = await fetch(link, {
			headers: {
				Authorization: `Basic ${Buffer.from(`${linkUser}:${linkPassword}`).toString('base64')}`,
			},
		});
		await withLogin.arrayBuffer();
		assert.ok(
			![401, 403].includes(withLogin.status),
			`with the printed login: ${withLogin.status}`,
		);

		const emulatorRoot = emulatorUrl.replace(/\/v1\/?$/, '');
		const capabilities = await fetch(`${emulatorUrl.replace(/\/$/, '')}/capabilities`);
		assert.equal(capabilities.status, 200);
		const violations = await (await fetch(`${emulatorRoot}/_control/violations`)).json();
		assert.deepEqual(violations.data ?? violations, []);

		// the finder sees n8n and its task runner while they run (so the check below can fail)
		const running = processesOf(child.pid, folder);
		const n8nProcess = running.find((p) => / start$|n8n start/.test(p));
		assert.ok(n8nProcess, `n8n not found among: ${running.join('; ')}`);
		// …and it runs with 3.0's defaults in its environment
		const environ = fs
			.readFileSync(`/proc/${n8nProcess.split(' ')[0]}/environ`, 'utf8')
			.split('\0');
		for (const [name, value] of Object.entries(N8N_3_DEFAULTS))
			assert.ok(environ.includes(`${name}=${value}`), `n8n runs without ${name}=${value}`);

		// Ctrl-C
		const stopAt = Date.now();
		process.kill(-child.pid, 'SIGINT');
		await everythingStopped(t, run, stopAt);
		assert.doesNotMatch(run.out, /svc_sk_/, 'npm start printed an API key');
	});

	it("SIGINT to the npm process alone (an IDE's stop button) stops everything too", async (t) => {
		const run = await npmStart(t);
		// n8n runs (so the check below can fail)
		assert.ok(
			processesOf(run.child.pid, folder).some((p) => / start$|n8n start/.test(p)),
			'n8n is not running',
		);
		const stopAt = Date.now();
		process.kill(run.child.pid, 'SIGINT'); // npm's pid only, not its process group
		await everythingStopped(t, run, stopAt);
	});
});
