// README's "Installation" as a user follows it today, when no version is on npm: the release tarball installed
// into n8n's nodes folder with README's own lines, taken from README.md and run in a shell as written (only the
// placeholders README tells the reader to replace are replaced: `/path/to`, and the Docker line's `/pkg`, the
// tarball's folder mounted into the container). `~` is the user folder of a fresh n8n 2.41.1 instance (HOME), so
// `~/.n8n/nodes` is that instance's nodes folder. Then n8n loads the nodes: Account → Get Identity runs against
// the emulator. Docker itself cannot run here (no image can be pulled): the Docker line is run without the
// container, with the command it runs inside it (n8n's image has the same npm and shell).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';

import { codeBlocks } from '../../tools/lib/doc-links.mjs';
import { trackDir } from '../../tools/lib/exit.mjs';
import { run } from '../../tools/lib/process.mjs';
import { account, manualTrigger, workflow } from '../../tools/lib/workflow.mjs';
import {
	INSTALL_TIMEOUT_MS,
	PACKAGE,
	REPO,
	assertRunOk,
	e2eHosts,
	ensureHost,
	openInstance,
	outputOf,
	packOnce,
	startEmulator,
} from './harness.mjs';

const README = fs.readFileSync(path.join(REPO, 'README.md'), 'utf8');
const CREDENTIAL = { id: 'gsReadmeCred', name: 'Generation Service (local emulator)' };

/** README's code block whose introduction says `intro`. */
function readmeBlock(intro) {
	const blocks = codeBlocks(README).filter((b) => b.intro.includes(intro));
	assert.equal(blocks.length, 1, `README has one code block after "${intro}"`);
	return blocks[0].code;
}

/** The lines README gives for an install into ~/.n8n/nodes, and what they are about. */
function readmeInstallLines() {
	const plain = readmeBlock('for n8n installed with npm');
	const docker = readmeBlock('installs the tarball into that volume');
	// the command n8n's image runs: the `-c '…'` of `docker run … --entrypoint sh … -c '…'`
	const inside = /-c '([^']+)'/.exec(docker.replace(/\\\n\s*/g, ''))?.[1];
	assert.ok(inside, `no -c '…' in README's Docker line:\n${docker}`);
	return { plain, docker, inside };
}

describe(
	"README's install of a release tarball, on n8n 2.41.1",
	{
		skip: !e2eHosts().includes('2') && 'README names n8n 2.41.1 for it',
		timeout: INSTALL_TIMEOUT_MS + 10 * 60_000,
	},
	() => {
		const work = fs.mkdtempSync(path.join(os.tmpdir(), 'gs-readme-install-'));
		trackDir(work);
		let emu;
		let pkgDir;
		before(
			async () => {
				await ensureHost({ version: '2' });
				// the tarball as `npm pack` names it, alone in its folder (README's glob takes the one there)
				const tarball = await packOnce();
				pkgDir = path.join(work, 'release');
				fs.mkdirSync(pkgDir);
				fs.copyFileSync(tarball, path.join(pkgDir, path.basename(tarball)));
				assert.match(path.basename(tarball), /^n8n-nodes-generation-service-\d+\.\d+\.\d+\.tgz$/);
				emu = await startEmulator({ jobTiming: { queuedMs: 0, runningMs: 0 } });
			},
			{ timeout: INSTALL_TIMEOUT_MS },
		);
		after(async () => {
			await emu?.close(); // the referee: fails unless it saw no client mistake
			fs.rmSync(work, { recursive: true, force: true });
		});

		it('README says plainly that no version is on npm yet, and how to install a tarball', () => {
			assert.match(README, /No version is on npm yet/);
			assert.match(README, /`npm view n8n-nodes-generation-service` answers 404/);
			assert.match(readmeBlock('build it in a clone'), /\bnpm pack\b/);
		});

		for (const variant of ['plain', 'inside']) {
			const what =
				variant === 'plain' ? 'n8n installed with npm' : "Docker (the container's command)";
			it(`${what}: README's line installs the tarball into ~/.n8n/nodes; n8n loads and runs the nodes`, async (t) => {
				const lines = readmeInstallLines();
				const command =
					variant === 'plain'
						? lines.plain.replaceAll('/path/to', pkgDir)
						: lines.inside.replaceAll('/pkg/', `${pkgDir}/`);
				const inst = await openInstance({ version: '2' });
				try {
					// ~ is the instance's user folder: ~/.n8n/nodes is where n8n looks for community packages
					const r = await run('sh', ['-c', command], {
						cwd: work,
						env: { ...process.env, HOME: inst.userFolder },
						timeoutMs: 300_000,
					});
					t.diagnostic(`$ ${command}\n(exit ${r.code} in ${(r.ms / 1000).toFixed(1)} s)`);
					assert.equal(r.code, 0, `${r.stdout}\n${r.stderr}`);
					const installed = path.join(inst.nodesDir, 'node_modules', PACKAGE.name);
					assert.equal(
						JSON.parse(fs.readFileSync(path.join(installed, 'package.json'), 'utf8')).version,
						PACKAGE.version,
					);
					// no runtime dependencies, and the n8n-workflow peer left to n8n (--omit=peer)
					assert.deepEqual(
						fs
							.readdirSync(path.join(inst.nodesDir, 'node_modules'))
							.filter((d) => !d.startsWith('.')),
						[PACKAGE.name],
					);
					await inst.importCredentials([
						{
							...CREDENTIAL,
							type: 'generationServiceApi',
							data: { apiKey: emu.keys.full, baseUrl: emu.baseUrl },
						},
					]);
					const wf = workflow({
						id: `gsReadme${variant}`,
						name: `README install (${variant})`,
						nodes: [
							manualTrigger(),
							account('Identity', 'getIdentity', { credential: CREDENTIAL }),
						],
					});
					await inst.importWorkflow(wf);
					const res = await inst.execute(wf.id, { timeoutMs: 120_000 });
					assertRunOk(t, res);
					const [identity] = outputOf(res, 'Identity');
					assert.ok(identity && Object.keys(identity).length > 0, JSON.stringify(identity));
					emu.assertNoViolations();
				} finally {
					await inst.close();
				}
			});
		}
	},
);
