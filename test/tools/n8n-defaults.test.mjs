// n8n 3.0's defaults as the tooling sets them on n8n 2.x (tools/lib/n8n-defaults.mjs): on host 2 only, never the
// in-memory binary mode, every name one the installed n8n 2.41.1 reads, and docs/n8n-3.md's table says the same.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';

import { cacheDir } from '../../tools/lib/cache.mjs';
import { HOSTS } from '../../tools/lib/hosts.mjs';
import {
	LOCAL_SERVICES_ALLOWED,
	N8N_3_DEFAULTS,
	describeDefaults,
	n8nDefaultsEnv,
} from '../../tools/lib/n8n-defaults.mjs';
import { REPO } from '../../tools/lib/repo.mjs';

/** The rows of docs/n8n-3.md's table of the defaults: { NAME: value }. */
export function docTable(doc) {
	const section = doc.split(/^## /m).find((s) => s.startsWith("3.0's defaults in the suites"));
	assert.ok(section, 'docs/n8n-3.md has no section "3.0\'s defaults in the suites"');
	const rows = {};
	for (const m of section.matchAll(/^\|\s*`([A-Z0-9_]+)`\s*\|\s*`([^`]+)`\s*\|/gm))
		rows[m[1]] = m[2];
	return rows;
}

describe("n8n 3.0's defaults on n8n 2.x", () => {
	it('host 2 gets the defaults and the local allowance, host 1 nothing', () => {
		assert.deepEqual(n8nDefaultsEnv('2'), { ...N8N_3_DEFAULTS, ...LOCAL_SERVICES_ALLOWED });
		assert.deepEqual(n8nDefaultsEnv(2), n8nDefaultsEnv('2'));
		assert.deepEqual(n8nDefaultsEnv('1'), {});
		assert.match(describeDefaults('2'), /SSRF protection on \(127\.0\.0\.1\/32 allowed\)/);
	});

	it('never the in-memory binary mode; SSRF on; unverified packages off; only 127.0.0.1 allowed', () => {
		const env = n8nDefaultsEnv('2');
		assert.ok(['filesystem', 'database'].includes(env.N8N_DEFAULT_BINARY_DATA_MODE));
		assert.equal(env.N8N_SSRF_PROTECTION_ENABLED, 'true');
		assert.equal(env.N8N_UNVERIFIED_PACKAGES_ENABLED, 'false');
		assert.equal(env.N8N_SSRF_ALLOWED_IP_RANGES, '127.0.0.1/32');
	});

	it("docs/n8n-3.md's table lists the same variables and values", () => {
		const doc = fs.readFileSync(path.join(REPO, 'docs', 'n8n-3.md'), 'utf8');
		assert.deepEqual(docTable(doc), n8nDefaultsEnv('2'));
		// the check can fail: a changed value in the doc is found
		const planted = doc.replace(/(`N8N_SSRF_PROTECTION_ENABLED`\s*\|\s*)`true`/, '$1`false`');
		assert.notDeepEqual(docTable(planted), n8nDefaultsEnv('2'));
	});

	it('every name is one the installed n8n 2.x reads', (t) => {
		const modules = path.join(
			process.env.GS_N8N_CACHE || cacheDir(),
			`n8n-${HOSTS[2].n8n}`,
			'node_modules',
		);
		if (!fs.existsSync(modules)) {
			t.skip(`n8n ${HOSTS[2].n8n} is not installed (${modules})`);
			return;
		}
		const sources = [
			'@n8n/config/dist/configs/ssrf-protection.config.js',
			'n8n-core/dist/binary-data/binary-data.config.js',
			'n8n/dist/modules/community-packages/community-packages.config.js',
		]
			.map((f) => fs.readFileSync(path.join(modules, f), 'utf8'))
			.join('\n');
		for (const name of Object.keys(n8nDefaultsEnv('2')))
			assert.match(sources, new RegExp(`'${name}'`), `${name} is read by n8n ${HOSTS[2].n8n}`);
	});
});
