// Part 5 of `npm run bench`: node CPU per item. Get Balance on many items through ours, through n8n's HTTP
// Request node and through NoOp (n8n alone, same shape), CPU time of the n8n process tree, median of
// repetitions in rotated order; then one profiled run of each side (bench/profile.mjs) says where the time
// goes.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { fmtS, median } from '../measure.mjs';
import { anyValue } from '../options.mjs';
import { summariseProfiles } from '../profile.mjs';
import { ms1, table } from '../report.mjs';
import * as W from '../workflows.mjs';

export const name = 'cpu';

export const options = [
	{ flags: ['cpu-reps'], key: 'cpuReps', parse: Number, default: 3, help: 'part 5: repetitions' },
	{
		flags: ['cpu-prof'],
		key: 'cpuProf',
		parse: (v) => path.resolve(v),
		fullIf: anyValue,
		value: 'DIR',
		help: 'part 5: where its V8 CPU profiles are kept (default a temp folder)',
	},
];

const CPU_NODES = 10;
const CPU_RPM = 120; // the emulator's highest rate per key
// Alone on a key the pacer sends a whole window's budget without waiting: items per key stay within
// it, so no request of the measured runs waits (the waiting would add n8n's idle CPU).
const CPU_PER_NODE = CPU_RPM; // alone on a key the pacer sends a whole window without waiting
const N = CPU_NODES * CPU_PER_NODE;

/** Per repetition (and one more for the profiled runs) a set of keys: { ours, http, oursKeys, httpKeys }. */
export function prepare({ opt, emu, key, ourCred, baseCred }) {
	const cpuCreds = [];
	// one more set of keys for the profiled runs (not counted in the figures)
	for (let r = 0; r <= opt.cpuReps; r++) {
		const set = { ours: [], http: [], oursKeys: new Set(), httpKeys: new Set() };
		for (let i = 0; i < CPU_NODES; i++) {
			// own account per rep: an account has at most 20 active keys
			const o = { requestsPerMinute: CPU_RPM, accountId: `acct_bench_cpu${r}` };
			const ko = key(`cpuO${r}_${i}`, o);
			const kh = key(`cpuH${r}_${i}`, o);
			ourCred(`cpuO${r}_${i}`, ko.secret);
			baseCred(`cpuH${r}_${i}`, kh.secret);
			set.ours.push(`cpuO${r}_${i}`);
			set.http.push(`cpuH${r}_${i}`);
			set.oursKeys.add(ko.keyId);
			set.httpKeys.add(kh.keyId);
		}
		cpuCreds.push(set);
	}
	const workflows = [W.cpuNoOp('benchCpuNoOp', CPU_NODES, CPU_PER_NODE)];
	cpuCreds.forEach((set, r) =>
		workflows.push(
			W.cpuOurs(`benchCpuOurs${r}`, set.ours, CPU_PER_NODE),
			W.cpuHttp(`benchCpuHttp${r}`, set.http, CPU_PER_NODE, emu.baseUrl),
		),
	);
	return { workflows, cpuCreds };
}

export async function run(ctx, { cpuCreds }) {
	const { opt } = ctx;
	ctx.log(`part 5: CPU per item (${N} Get Balance)`);
	await ctx.run('benchCpuNoOp', { sampleMs: 100 }); // warm-up (file cache), not counted
	const reps = [];
	for (let rep = 0; rep < opt.cpuReps; rep++) reps.push(await measureRep(ctx, rep, cpuCreds[rep]));
	const profDir = opt.cpuProf ?? path.join(os.tmpdir(), 'gs-bench-cpu-prof');
	const profileText = await profile(ctx, profDir, opt.cpuReps);
	emitCpu(ctx, reps, profDir, profileText);
}

/** One repetition: NoOp, ours and HTTP Request, the order rotated so a drift of the machine favours no side. */
async function measureRep({ emu, run, failText, log }, rep, set) {
	const rec = {};
	const ids = [
		['noop', 'benchCpuNoOp'],
		['ours', `benchCpuOurs${rep}`],
		['http', `benchCpuHttp${rep}`],
	];
	for (let k = 0; k < 3; k++) {
		const [name, id] = ids[(k + rep) % 3];
		emu.control.clearJournal();
		const r = await run(id, { sampleMs: 100 });
		const j = emu.control.journal();
		const mine = name === 'ours' ? set.oursKeys : name === 'http' ? set.httpKeys : new Set();
		const balance = j.filter((e) => mine.has(e.keyId) && e.path === '/v1/balance');
		const okReq =
			name === 'noop' || (balance.length === N && balance.every((e) => e.status === 200));
		if (!r.ok || !okReq)
			log(`  ${id} not clean: ${failText(r)} (${balance.length} balance requests)`);
		rec[name] = {
			cpuMs: r.cpuMs,
			mainCpuMs: r.mainCpuMs,
			ms: r.ms,
			ok: r.ok && okReq,
			requests: balance.length,
			r429: balance.filter((e) => e.status === 429).length,
		};
	}
	return rec;
}

/**
 * Profiled runs on the keys of repetition `rep` (the extra set: the profiler's overhead stays out of the
 * figures): the summary's text.
 */
async function profile({ run, failText, log }, profDir, rep) {
	fs.rmSync(profDir, { recursive: true, force: true });
	for (const [name, id] of [
		['ours', `benchCpuOurs${rep}`],
		['http', `benchCpuHttp${rep}`],
	]) {
		const dir = path.join(profDir, name);
		fs.mkdirSync(dir, { recursive: true });
		const r = await run(id, {
			sampleMs: 100,
			env: { NODE_OPTIONS: `--cpu-prof --cpu-prof-dir=${dir} --cpu-prof-interval=200` },
		});
		if (!r.ok) log(`  profiled ${id} not clean: ${failText(r)}`);
	}
	const summary = summariseProfiles(profDir, {
		ours: { dir: 'ours', match: '/nodes/node_modules/n8n-nodes-generation-service/' },
		http: { dir: 'http', match: '/nodes/HttpRequest/' },
		items: CPU_NODES * CPU_PER_NODE,
	});
	fs.writeFileSync(path.join(profDir, 'summary.md'), summary.text);
	log(`  CPU profiles in ${profDir}; summary:\n${summary.text}`);
	return summary.text;
}

function emitCpu({ opt, emit, report }, reps, profDir, profileText) {
	const m = (name, f = 'cpuMs') => median(reps.map((x) => x[name][f]));
	const perItem = (ms) => `${(ms / N).toFixed(2)} ms`;
	const netOurs = median(reps.map((x) => x.ours.cpuMs - x.noop.cpuMs));
	const netHttp = median(reps.map((x) => x.http.cpuMs - x.noop.cpuMs));
	emit(`## 5. Node CPU per item (${N} Get Balance items)`);
	emit();
	emit(
		`CPU time (utime + stime) of the n8n process tree for one \`n8n execute\` (main process from \`/usr/bin/time\`, other processes of the group from /proc), median of ${opt.cpuReps} runs. ${N} items = ${CPU_NODES} Account nodes (Get Balance) in a row × ${CPU_PER_NODE} items, each node with its own key: the emulator clamps a key to 1–${CPU_RPM} requests/minute (\`createKey\` in emulator/src/keys.ts), so ${N} requests on one key would spend ~${Math.ceil(N / CPU_RPM) - 1} minutes idle waiting for windows (n8n's idle CPU over that time would swamp the figure). ${CPU_PER_NODE} items per key (and a fresh set of keys per repetition): alone on a key, our pacer sends a whole window's budget without waiting, so ${CPU_PER_NODE} = ${CPU_RPM} is the most a key takes without waiting. "Net" = minus the same-shape run of n8n's NoOp node (${CPU_NODES} NoOp × ${CPU_PER_NODE} items), which removes n8n's start-up and per-item engine cost. The HTTP Request row is the same ${N} GET /v1/balance with n8n's own node, for scale.`,
	);
	emit();
	const row = (label, name, net) => [
		label,
		ms1(m(name)),
		ms1(m(name, 'mainCpuMs')),
		perItem(m(name)),
		net === undefined ? '—' : ms1(net),
		net === undefined ? '—' : perItem(net),
		fmtS(m(name, 'ms')),
		reps.map((x) => ms1(x[name].cpuMs)).join(', '),
		reps.every((x) => x[name].ok) ? 'ok' : 'FAILED',
	];
	emit(
		table(
			[
				'Workflow',
				'CPU (median)',
				'of which main process',
				'Raw per item',
				'Net CPU',
				'Net per item',
				'Wall (median)',
				'Runs',
				'Run',
			],
			[
				row('NoOp (n8n only)', 'noop'),
				row('ours: Account Get Balance', 'ours', netOurs),
				row('baseline: HTTP Request GET /v1/balance', 'http', netHttp),
			],
		),
	);
	emit();
	emit('### Where the time goes (CPU profile)');
	emit();
	emit(
		`One more run of each workflow on fresh keys with \`node --cpu-prof\` (profiles in ${profDir}; not counted in the table above), summarised by bench/profile.mjs. The profiler slows a run down, so compare the two columns rather than the absolute figures.`,
	);
	emit();
	emit(profileText);
	emit();
	report.findings.push(
		`**A lone caller on a key goes at the window's pace.** Part 5's runs send ${CPU_PER_NODE} requests per key of ${CPU_RPM}/min without waiting: alone on a key the pacer sends as fast as the window allows and then waits for the reset; it spreads the budget (and keeps one request in reserve) only while the service counts requests of other processes (nodes/shared/service/pacing.ts, pinned by the unit tests "alone on a key: …" and "a shared key is spread …").`,
	);
	const ratio = netOurs / netHttp;
	const cpuMet = ratio <= 0.5 && reps.every((x) => x.ours.ok);
	report.goals.push({
		goal: 'CPU per item ≤ 0.5 × the HTTP Request node (net of n8n)',
		result: `net ${perItem(netOurs)} vs HTTP Request ${perItem(netHttp)} (×${ratio.toFixed(2)}); raw ${perItem(m('ours'))} vs ${perItem(m('http'))}`,
		met: cpuMet,
		note: cpuMet
			? ''
			: `Where the time goes is in the profile under part 5: every request of either node passes through n8n's request path (the credential loaded from the database and decrypted per request, axios, a new TCP connection, the response), which a community node must use (\`httpRequestWithAuthentication\`). Removed from ours: the credential's templated Bearer header, which n8n evaluated through its expression sandbox on every request. What is left is mostly n8n's, so half of the HTTP Request node is not reachable from the node.`,
	});
}
