// Installing the package as users do: Settings → Community Nodes → Install in a real browser, against a local
// npm registry (verdaccio, started here, no uplinks) that serves the packed package. n8n runs its own
// `npm pack` / `npm install` from N8N_COMMUNITY_PACKAGES_REGISTRY and loads the nodes without a restart. Then
// a release is rehearsed (tools/lib/release.mjs): `npm run release` (release-it) in a temporary clone bumps the
// version, dates the CHANGELOG, commits, tags and pushes; a plain `npm publish` of the tag is refused by the
// prerelease guard; publish.yml's `npm run release:ci` (n8n-node release as GitHub runs it) publishes the tag
// to the registry — only provenance differs from GitHub (no OIDC here). n8n offers that version as an update
// (its `npm outdated`), installs it, runs it, and uninstalls.
//
// Offline on purpose: every registry call n8n makes goes to the local registry (install and update through
// N8N_COMMUNITY_PACKAGES_REGISTRY, its `npm outdated` update check through npm_config_registry); the
// "verified packages" list is switched off (N8N_VERIFIED_PACKAGES_ENABLED=false); n8n's package-status lookup
// (api.n8n.io) fails here and n8n treats that as "not banned", as it does for every user offline.
//
// One thing is not as for every user: n8n 2.41.1 allows a registry other than the public npm registry only
// with an Enterprise licence feature; no licence exists here, so n8n is started with a preload that answers
// that single licence question with yes (registry.n8nEnv(), writeLicensePreload in scripts/local-registry.mjs).
// Users install from the public registry, where that check does not apply.
//
// n8n runs under n8n 3.0's defaults (tools/lib/n8n-defaults.mjs): SSRF protection on with 127.0.0.1 allowed, and
// N8N_UNVERIFIED_PACKAGES_ENABLED=false, under which n8n refuses the install (the first test, n8n's exact
// answer). Then n8n is restarted with the fix a 3.0 user applies, N8N_UNVERIFIED_PACKAGES_ENABLED=true, and
// the rest runs under it.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, afterEach, before, describe, it } from 'node:test';

import { trackDir } from '../../tools/lib/exit.mjs';
import {
	PACKAGE_INSTANCE_RULES,
	examplesForRest,
	plantedRemovedNodeWorkflow,
	refreshReport,
	summary,
	workflowFindings,
} from '../../tools/lib/migration-report.mjs';
import { outsideAllowList, tarballFiles } from '../../tools/lib/package-contents.mjs';
import { changelogDate, rehearseRelease } from '../../tools/lib/release.mjs';
import { startRegistry } from '../../tools/lib/registry.mjs';
import { LOCAL_SERVICES_ALLOWED } from '../../tools/lib/n8n-defaults.mjs';
import { startServer } from '../../tools/lib/server.mjs';
import { pause } from '../../tools/lib/wait.mjs';
import { account, manualTrigger, workflow } from '../../tools/lib/workflow.mjs';
import { dismissPopups, launchBrowser } from './browser.mjs';
import {
	INSTALL_TIMEOUT_MS,
	PACKAGE,
	REPO,
	ensureHost,
	openInstance,
	packOnce,
	startEmulator,
} from './harness.mjs';

const log = (msg) => process.stderr.write(`[install] ${msg}\n`);

/** n8n 2.41.1's answer to an install with N8N_UNVERIFIED_PACKAGES_ENABLED=false (README's troubleshooting). */
const REFUSAL = {
	status: 500,
	message:
		'Error loading package "n8n-nodes-generation-service" :Installation of unverified community packages is forbidden!',
};
/** n8n 2.41.1's credential test of a Base URL SSRF protection blocks (README's troubleshooting). */
const CREDENTIAL_TEST_BLOCKED = {
	status: 'Error',
	message: 'The request was blocked because it resolves to a restricted IP address',
};

/** The display names of the package's nodes, read from its built descriptions (not typed twice). */
function nodeDisplayNames(distRoot) {
	return PACKAGE.n8n.nodes.map((file) => {
		const src = fs.readFileSync(path.join(distRoot, file), 'utf8');
		const m = /displayName:\s*'([^']+)'/.exec(src);
		assert.ok(m, `no displayName in ${file}`);
		return m[1];
	});
}

describe(
	'Community Nodes install from a registry, in the browser (n8n 2.41.1)',
	{ timeout: INSTALL_TIMEOUT_MS + 15 * 60_000 },
	() => {
		let registry;
		let inst;
		let server;
		let emu;
		let browser;
		let page;
		let cookie;
		let tarball;
		let displayNames;
		let identityWorkflow;
		let installed = false; // the later steps need the install step
		let released; // the rehearsal's release
		const work = fs.mkdtempSync(path.join(os.tmpdir(), 'gs-install-'));
		trackDir(work);

		before(
			async () => {
				await ensureHost({ version: '2' });
				tarball = await packOnce();
				const unpacked = path.join(work, 'unpacked');
				fs.mkdirSync(unpacked);
				execFileSync('tar', ['-xzf', tarball, '-C', unpacked]);
				displayNames = nodeDisplayNames(path.join(unpacked, 'package'));

				[registry, emu] = await Promise.all([
					startRegistry({ log }),
					startEmulator({ jobTiming: { queuedMs: 0, runningMs: 0 } }),
				]);
				await registry.publish(tarball);

				inst = await openInstance({ version: '2' });
				// n8n installs, updates and checks for updates against the local registry only; 3.0's default
				// for unverified packages (false) until the first test has seen the refusal
				assert.equal(inst.env.N8N_UNVERIFIED_PACKAGES_ENABLED, 'false');
				server = await startServer(inst, { log, env: registry.n8nEnv() });
				({ page, close: browser } = await launchBrowser());
				// generous bounds (to fail instead of hanging), not speed expectations: the machine may be busy
				page.setDefaultTimeout(120_000);
				page.setDefaultNavigationTimeout(180_000);
				await signInBrowser();
			},
			{ timeout: INSTALL_TIMEOUT_MS },
		);

		after(async () => {
			await browser?.();
			await server?.stop();
			await inst?.close();
			await registry?.stop();
			await emu?.close(); // the referee: fails unless it saw no client mistake
			fs.rmSync(work, { recursive: true, force: true });
		});

		afterEach(async (t) => {
			// a failed step leaves a screenshot of the page behind (kept, its path printed)
			if (page && t.passed === false) {
				const file = path.join(os.tmpdir(), `gs-install-failure-${Date.now()}.png`);
				await page.screenshot({ path: file }).catch(() => {});
				log(`screenshot of the failed step: ${file}`);
			}
		});

		const rest = (method, p, body) => server.rest.request(method, p, body);

		/** The browser gets the owner's session cookie for the current server. */
		async function signInBrowser() {
			cookie = await server.rest.session();
			const [name, value] = cookie.split(';')[0].split('=');
			await page.context().addCookies([{ name, value, url: server.base }]);
		}

		it("N8N_UNVERIFIED_PACKAGES_ENABLED=false (n8n 3.0's default): n8n refuses the install with its own message; set to true, n8n is restarted", async (t) => {
			try {
				const t0 = Date.now();
				const answer = await server.rest.raw('POST', '/community-packages', {
					name: PACKAGE.name,
				});
				t.diagnostic(
					`n8n answered HTTP ${answer.status} in ${((Date.now() - t0) / 1000).toFixed(1)} s: ${JSON.stringify(answer.body)}`,
				);
				assert.equal(answer.status, REFUSAL.status);
				assert.equal(answer.body?.message, REFUSAL.message);
				assert.deepEqual(await rest('GET', '/community-packages'), []);
				assert.equal(fs.existsSync(path.join(inst.nodesDir, 'node_modules', PACKAGE.name)), false);
			} finally {
				// the fix: the variable set to true on the n8n process, and a restart
				const t1 = Date.now();
				await server.stop();
				server = await startServer(inst, {
					log,
					env: { ...registry.n8nEnv(), N8N_UNVERIFIED_PACKAGES_ENABLED: 'true' },
				});
				await signInBrowser();
				t.diagnostic(`restart with the fix: ${((Date.now() - t1) / 1000).toFixed(1)} s`);
			}
		});

		const packageCard = () =>
			page.locator('[data-test-id="community-package-card"]').filter({ hasText: PACKAGE.name });

		async function openCommunityNodes() {
			await page.goto(`${server.base}/settings/community-nodes`, { waitUntil: 'domcontentloaded' });
			await page
				.getByText('Community nodes', { exact: false })
				.first()
				.waitFor({ timeout: 300_000 });
			await dismissPopups(page);
		}

		/** Node-panel search on a new workflow: the names of the items found. */
		async function searchNodePanel(query) {
			await page.goto(`${server.base}/workflow/new`, { waitUntil: 'domcontentloaded' });
			await page.locator('[data-test-id="canvas-add-button"]').waitFor({ timeout: 300_000 });
			await dismissPopups(page);
			await page.locator('[data-test-id="canvas-add-button"]').click();
			const search = page.locator('[data-test-id="node-creator-search-bar"]');
			await search.waitFor();
			await search.fill(query);
			// the list settles after the search is typed: wait until two reads agree
			let last;
			for (let i = 0; i < 40; i++) {
				await pause(500);
				const names = await page
					.locator('[data-test-id="node-creator-item-name"]')
					.allInnerTexts()
					.catch(() => []);
				const key = JSON.stringify(names);
				if (key === last) return names.map((s) => s.trim());
				last = key;
			}
			return JSON.parse(last ?? '[]');
		}

		it('installs from Settings → Community Nodes; the nodes appear in the node panel', async (t) => {
			await openCommunityNodes();
			// the empty page's call to action (the header button once a package is installed)
			await page.getByRole('button', { name: 'Install a community node' }).first().click();
			await page.locator('input[data-test-id="package-name-input"]').fill(PACKAGE.name);
			await page.locator('[data-test-id="user-agreement-checkbox"]').click();
			const t0 = Date.now();
			await page.locator('[data-test-id="install-community-package-button"]').click();
			// installed (the package's card), or n8n's error notification (e.g. a node file it cannot load)
			const failure = page.getByText('Error installing new package');
			const outcome = await Promise.race([
				packageCard()
					.waitFor({ timeout: 300_000 })
					.then(
						() => 'installed',
						() => 'timeout',
					),
				failure
					.first()
					.waitFor({ timeout: 300_000 })
					.then(
						() => 'error',
						() => 'timeout',
					),
			]);
			if (outcome !== 'installed') {
				const text = await page
					.locator('.el-notification')
					.allInnerTexts()
					.catch(() => []);
				assert.fail(`n8n did not install the package (${outcome}): ${text.join('\n')}`);
			}
			t.diagnostic(`install through the page: ${((Date.now() - t0) / 1000).toFixed(1)} s`);
			await assertCard({ version: PACKAGE.version });

			installed = true;
			const found = await searchNodePanel('Generation Service');
			for (const name of displayNames)
				assert.ok(
					found.includes(name),
					`node panel lacks "${name}"; it shows ${JSON.stringify(found)}`,
				);
		});

		/** Account → Get Identity through n8n's REST API: the identity it output. */
		async function runIdentity() {
			const execution = await server.rest.runFromTrigger(identityWorkflow.id, 'Manual');
			const runs = execution.data.resultData.runData.Identity;
			assert.ok(
				runs?.length,
				`the node did not run: ${JSON.stringify(execution.data.resultData.error ?? {})}`,
			);
			assert.equal(runs[0].error, undefined, JSON.stringify(runs[0].error));
			const out = runs[0].data.main[0].map((i) => i.json);
			assert.equal(out.length, 1);
			assert.ok(Object.keys(out[0]).length > 0, `empty identity: ${JSON.stringify(out)}`);
			assert.doesNotMatch(JSON.stringify(out), new RegExp(emu.keys.full.replace(/[.]/g, '\\.')));
			emu.assertNoViolations();
			return out[0];
		}

		it('a workflow with an installed node runs against the emulator without a restart', async () => {
			assert.ok(installed, 'the install step failed');
			const credential = await rest('POST', '/credentials', {
				name: 'Generation Service (local emulator)',
				type: 'generationServiceApi',
				data: { apiKey: emu.keys.full, baseUrl: emu.baseUrl },
			});
			identityWorkflow = await rest(
				'POST',
				'/workflows',
				workflow({
					name: 'Installed from the registry',
					ids: '5b0c1a52',
					nodes: [manualTrigger(), account('Identity', 'getIdentity', { credential })],
				}),
			);
			await runIdentity();
		});

		it("SSRF protection on (n8n 3.0's defaults): the credential test of a Base URL on a blocked address gives n8n's own message", async (t) => {
			assert.ok(installed, 'the install step failed');
			// an emulator on a loopback address the allowance (127.0.0.1/32) does not cover
			assert.equal(
				inst.env.N8N_SSRF_ALLOWED_IP_RANGES,
				LOCAL_SERVICES_ALLOWED.N8N_SSRF_ALLOWED_IP_RANGES,
			);
			const blockedEmu = await startEmulator({ host: '127.0.0.2' });
			try {
				const credential = await rest('POST', '/credentials', {
					name: 'Generation Service (blocked address)',
					type: 'generationServiceApi',
					data: { apiKey: blockedEmu.keys.full, baseUrl: blockedEmu.baseUrl },
				});
				// as the editor's Test button does
				const blocked = await server.rest.testCredential(credential.id);
				t.diagnostic(`credential test on ${blockedEmu.baseUrl}: ${JSON.stringify(blocked)}`);
				assert.deepEqual(blocked, CREDENTIAL_TEST_BLOCKED);
				assert.equal(blockedEmu.control.journal().length, 0, 'nothing reached the service');
				// the same test on the allowed address passes (the allowance is what differs)
				const allowed = await rest('POST', '/credentials', {
					name: 'Generation Service (allowed address)',
					type: 'generationServiceApi',
					data: { apiKey: emu.keys.full, baseUrl: emu.baseUrl },
				});
				assert.equal((await server.rest.testCredential(allowed.id)).status, 'OK');
				for (const c of [credential, allowed]) await rest('DELETE', `/credentials/${c.id}`);
			} finally {
				await blockedEmu.close();
			}
		});

		it("n8n's Migration Report for v3: no finding on any example; the package's instance-level findings", async (t) => {
			assert.ok(installed, 'the install step failed');
			const started = Date.now();
			const examples = [];
			for (const { file, body } of examplesForRest()) {
				examples.push({ file, id: (await rest('POST', '/workflows', body)).id });
			}
			const ids = examples.map((e) => e.id);
			const report = await refreshReport(server.rest, 'v3');
			for (const line of summary(report))
				t.diagnostic(`report v3 (package and ${ids.length} examples): ${line}`);
			assert.deepEqual(
				await workflowFindings(server.rest, report, ids),
				[],
				'findings on the examples',
			);
			const ours = (report.instanceResults ?? []).filter((r) =>
				PACKAGE_INSTANCE_RULES.includes(r.ruleId),
			);
			// N8N_UNVERIFIED_PACKAGES_ENABLED is set (to true, the fix of the first test): n8n's rule
			// unverified-packages-v3 only flags an instance where the variable is not set at all
			assert.deepEqual(
				ours.map((r) => `${r.ruleId} (${r.ruleSeverity})`),
				[],
				'the instance-level findings about community packages',
			);
			// the guard can fail: a workflow using a node 3.0 removes is found, then removed again
			const planted = await rest('POST', '/workflows', plantedRemovedNodeWorkflow());
			try {
				const again = await refreshReport(server.rest, 'v3');
				assert.deepEqual(await workflowFindings(server.rest, again, [...ids, planted.id]), [
					{
						ruleId: 'removed-nodes-v3',
						severity: 'low',
						workflow: 'Planted: uses a node 3.0 removes',
					},
				]);
			} finally {
				await rest('POST', `/workflows/${planted.id}/archive`, {}).catch(() => {});
				await server.rest.raw('DELETE', `/workflows/${planted.id}`);
			}
			t.diagnostic(`migration report step: ${((Date.now() - started) / 1000).toFixed(1)} s`);
		});

		it('a release rehearsal publishes the next version; a plain npm publish is refused', async (t) => {
			const t0 = Date.now();
			released = await rehearseRelease({ repo: REPO, registry, log });
			const { version, previousVersion } = released;
			t.diagnostic(
				`release ${previousVersion} → ${version} in ${((Date.now() - t0) / 1000).toFixed(1)} s: ${Object.entries(
					released.steps,
				)
					.map(([step, s]) => `${step} ${s.toFixed(1)} s`)
					.join(', ')}`,
			);
			// npm run release: bump, CHANGELOG, commit, tag (the tag publish.yml's filter matches: its own test)
			const [maj, min, patch] = previousVersion.split('.').map(Number);
			assert.equal(version, `${maj}.${min}.${patch + 1}`);
			assert.equal(released.lockVersion, version);
			assert.equal(released.lockRootVersion, version);
			assert.equal(released.tag, version);
			assert.equal(released.commitSubject, `Release ${version}`);
			const section = new RegExp(
				`## \\[Unreleased\\]\\n\\n## \\[${version.replace(/\./g, '\\.')}\\] - ${changelogDate()}\\n\\n### Fixed\\n\\n- A change to release`,
			);
			assert.match(released.changelog, section);
			// a laptop's plain npm publish: the guard refuses, nothing reaches the registry
			assert.notEqual(released.refusal.code, 0);
			assert.match(
				released.refusal.out,
				/n8n-node prerelease[\s\S]*Run `npm run release` to publish/,
			);
			assert.ok(
				!released.refusal.registryVersions.includes(version),
				'published despite the guard',
			);
			// publish.yml's release:ci: the registry has it, and what it got passes the tarball's allow-list
			assert.equal(
				released.published.code,
				0,
				`npm run release:ci failed:\n${released.published.out.slice(-4000)}`,
			);
			assert.match(
				released.published.out,
				new RegExp(`\\+ ${PACKAGE.name}@${version.replace(/\./g, '\\.')}`),
			);
			const doc = await registry.view(PACKAGE.name);
			assert.ok(doc?.versions?.[version], `the registry lacks ${version}`);
			const file = path.join(work, `released-${version}.tgz`);
			fs.writeFileSync(
				file,
				Buffer.from(await (await fetch(doc.versions[version].dist.tarball)).arrayBuffer()),
			);
			assert.deepEqual(outsideAllowList(tarballFiles(file)), [], 'the released tarball');
		});

		it('the page offers the released version, installs it, and it runs', async (t) => {
			assert.ok(installed && released, 'the install or the release step failed');
			const nextVersion = released.version;
			await openCommunityNodes();
			const update = packageCard().getByRole('button', { name: 'Update' });
			await update.waitFor({ timeout: 300_000 });
			const t0 = Date.now();
			await update.click();
			await page.getByRole('button', { name: 'Confirm update' }).click();
			// the card shows the new version once n8n has installed and reloaded it
			await packageCard().getByText(`v${nextVersion}`).waitFor({ timeout: 300_000 });
			t.diagnostic(`update through the page: ${((Date.now() - t0) / 1000).toFixed(1)} s`);
			await assertCard({ version: nextVersion });
			const onDisk = JSON.parse(
				fs.readFileSync(
					path.join(inst.nodesDir, 'node_modules', PACKAGE.name, 'package.json'),
					'utf8',
				),
			);
			assert.equal(onDisk.version, nextVersion);
			// a reload of the page: up to date now, no Update button
			await openCommunityNodes();
			await packageCard().getByText(`v${nextVersion}`).waitFor({ timeout: 300_000 });
			assert.equal(await packageCard().getByRole('button', { name: 'Update' }).count(), 0);
			// the released version runs: Account → Get Identity
			await runIdentity();
		});

		it('uninstalls from the page; the nodes are gone from n8n and the node panel', async () => {
			assert.ok(installed, 'the install step failed');
			await openCommunityNodes();
			const card = packageCard();
			await card.locator('[data-test-id="action-toggle"] button').click();
			await page.getByText('Uninstall package', { exact: true }).click();
			await page.getByRole('button', { name: 'Confirm uninstall' }).click();
			await card.waitFor({ state: 'detached', timeout: 300_000 });
			assert.deepEqual(await rest('GET', '/community-packages'), []);
			assert.equal(fs.existsSync(path.join(inst.nodesDir, 'node_modules', PACKAGE.name)), false);
			const found = await searchNodePanel('Generation Service');
			for (const name of displayNames)
				assert.ok(
					!found.includes(name),
					`"${name}" is still in the node panel: ${JSON.stringify(found)}`,
				);
		});

		/** n8n's own record: the package at `version`, every node loaded (not "failed loading"). */
		async function assertCard({ version }) {
			const packages = await rest('GET', '/community-packages');
			const pkg = packages.find((p) => p.packageName === PACKAGE.name);
			assert.ok(pkg, `n8n lists no ${PACKAGE.name}: ${JSON.stringify(packages)}`);
			assert.equal(pkg.installedVersion, version);
			assert.notEqual(pkg.failedLoading, true, 'n8n says the package failed loading');
			assert.deepEqual(
				pkg.installedNodes.map((n) => n.name).sort(),
				[...displayNames].sort(),
				'installed nodes',
			);
			const card = await packageCard().innerText();
			assert.match(card, new RegExp(`v${version.replace(/\./g, '\\.')}`));
			for (const name of displayNames)
				assert.ok(card.includes(name), `card lacks ${name}: ${card}`);
		}
	},
);
