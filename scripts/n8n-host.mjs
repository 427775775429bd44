#!/usr/bin/env node
// The real n8n hosts of the end-to-end suites, the demo and npm start (tools/lib/hosts.mjs), from the command
// line. They live in a cache outside the clone (~/.cache/n8n-nodes-generation-service, or $GS_N8N_CACHE).
//
//   node scripts/n8n-host.mjs install [2|1|all|2,1]   install the host(s), one after the other
//   node scripts/n8n-host.mjs smoke [2|1|all]          install if needed, run n8n's own nodes headless, timed
//   node scripts/n8n-host.mjs info | path              what is installed / where
//   node scripts/n8n-host.mjs --help                   the same
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { cacheDir } from '../tools/lib/cache.mjs';
import { UsageError, runCommand } from '../tools/lib/cli.mjs';
import { fmtMs } from '../tools/lib/format.mjs';
import { HOSTS, ensureHost, hostInfo } from '../tools/lib/hosts.mjs';
import { smoke } from '../tools/lib/smoke.mjs';

function parseVersions(arg) {
	if (!arg || arg === 'default')
		return (process.env.GS_N8N_HOSTS || '2')
			.split(',')
			.map((s) => s.trim())
			.filter(Boolean);
	if (arg === 'all') return Object.keys(HOSTS).sort().reverse();
	const versions = arg.split(',');
	for (const v of versions)
		if (!HOSTS[v])
			throw new UsageError(
				`[hosts] is ${Object.keys(HOSTS).join(', ')}, all or a list, not "${arg}"`,
			);
	return versions;
}

export const N8N_HOST_COMMAND = {
	command: 'node scripts/n8n-host.mjs',
	summary:
		'The real n8n hosts of the end-to-end suites, the demo and npm start, in a cache outside the clone\n' +
		`(${cacheDir()}, or $GS_N8N_CACHE). \`npm run n8n:install\` is \`install all\`.`,
	args: [
		{
			name: 'command',
			required: true,
			choices: {
				install:
					'install the host(s) into the cache, one after the other (n8n 2.41.1 on its own Node 24,\n' +
					'n8n 1.123.81; about 4.6 GB together)',
				smoke:
					"install if needed, then run a workflow of n8n's own nodes headless and print timings",
				info: 'show what is installed',
				path: 'print the cache folder',
			},
		},
		{
			name: 'hosts',
			help: '2, 1, all or a list such as 2,1 (default: $GS_N8N_HOSTS, else 2)',
		},
	],
	options: {},
};

async function main({ args: { command, hosts } }) {
	switch (command) {
		case 'install':
			// One host after the other, in the order given ("all": 2 then 1, the order in which npm test needs
			// them). Side by side on 2 cores (beside jest in CI) n8n 2.x was ready only after 7 min, when both
			// were, and the first real-n8n suites waited for it. Each host has its own lock: a suite that needs
			// host 2 starts as soon as host 2 is ready, while host 1 installs.
			for (const v of parseVersions(hosts)) {
				const h = await ensureHost({ version: v });
				console.log(
					`n8n host ${v}: n8n ${h.n8nVersion} in ${h.dir} (${h.fresh ? 'installed' : 'already installed'}, ${fmtMs(h.ms)})`,
				);
			}
			return 0;
		case 'smoke':
			return smoke(parseVersions(hosts));
		case 'path':
			console.log(cacheDir());
			return 0;
		default:
			console.log(await hostInfo());
			return 0;
	}
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
	runCommand(N8N_HOST_COMMAND, main);
}
