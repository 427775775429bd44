// `npm run bench`: our nodes against n8n's own nodes (HTTP Request + Wait + IF) and against the previous
// version of this package, in real n8n 2.41.1 (filesystem binary mode, the 2.x default) against the local
// emulator. Prints a table per part and, on a full run, writes docs/benchmarks.md with exactly those figures.
//
//   npm run bench                               all parts, writes docs/benchmarks.md
//   npm run bench -- --only=requests,batch      some parts (requests, memory, batch, creates, cpu); prints only
//   options: --durations=10,30,60  --mem-reps=5  --probe-reps=1  --cpu-reps=3  --batch-sizes=10,50,100
//            --batch-job-s=30  --batch-sides=ours,prev  --previous=6d65147  --creates=100
//            --batch-phases=5,30,55 (ours runs each batch size starting about S s into the clock minute, for each S;
//            the previous version at the middle one; a Wait node in the workflow waits for that second)
//            --dump=<dir> (journal, jobs and probe data of part 3 as JSON)  --out=<file>  --no-write
//            --cpu-prof=<dir> (where part 5 keeps its V8 CPU profiles, summarised by bench/profile.mjs into
//            the report: where the time of our node and of the HTTP Request node goes; default a temp folder)
//
// Run with `node --import tsx scripts/bench.mjs` (the emulator is TypeScript). One n8n process at a time.
import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import * as W from '../bench/workflows.mjs';
import { simulateFloor } from '../bench/floor.mjs';
import { MiB, executeMeasured, fmtMiB, fmtS, median, paddedMp4 } from '../bench/measure.mjs';
import { packCommit } from '../bench/previous.mjs';
import { PROBE_FILE, probeEnv, readProbe, summariseTransfer } from '../bench/probe.mjs';
import { summariseProfiles } from '../bench/profile.mjs';
import { byRoute, perWindow, routeText } from '../bench/journal.mjs';
import { log, mib1, ms1, ratio2, say, signed, table, yes } from '../bench/report.mjs';
import { PACING } from '../nodes/shared/transport/pacer.ts';
import { DOWNLOAD_CONCURRENCY } from '../nodes/shared/jobs/run.ts';
import { startEmulator } from '../tools/lib/emulator.mjs';
import { ensureHost } from '../tools/lib/hosts.mjs';
import { createInstance } from '../tools/lib/instance.mjs';
import { packOnce } from '../tools/lib/pack.mjs';
import { REPO } from '../tools/lib/repo.mjs';
import { nodeOutput } from '../tools/lib/run-data.mjs';

const PARTS = ['requests', 'memory', 'batch', 'creates', 'cpu'];
const POLL_S = 5;
const DEFAULTS = {
	durations: [10, 30, 60],
	memReps: 5,
	probeReps: 1,
	cpuReps: 3,
	batchSizes: [10, 50, 100],
	batchJobS: 30,
	previous: '6d65147',
	creates: 100,
	batchPhases: [5, 30, 55],
};

function parseArgs(argv) {
	const o = {
		only: PARTS,
		...DEFAULTS,
		batchSides: ['ours', 'prev'],
		dump: undefined,
		cpuProf: undefined,
		out: undefined,
		write: true,
	};
	const nums = (v) => v.split(',').map(Number);
	for (const a of argv) {
		const [k, v = ''] = a.replace(/^--/, '').split('=');
		if (k === 'only') o.only = v.split(',').filter(Boolean);
		else if (k === 'durations') o.durations = nums(v);
		else if (k === 'mem-reps') o.memReps = Number(v);
		else if (k === 'probe-reps') o.probeReps = Number(v);
		else if (k === 'cpu-reps') o.cpuReps = Number(v);
		else if (k === 'batch-sizes') o.batchSizes = nums(v);
		else if (k === 'batch-job-s') o.batchJobS = Number(v);
		else if (k === 'previous') o.previous = v;
		else if (k === 'creates' || k === 'batch')
			o.creates = Number(v); // --batch=N: its old name
		else if (k === 'batch-sides') o.batchSides = v.split(',').filter(Boolean);
		else if (k === 'batch-phases' || k === 'batch-phase') o.batchPhases = nums(v);
		else if (k === 'dump') o.dump = path.resolve(v);
		else if (k === 'cpu-prof') o.cpuProf = path.resolve(v);
		else if (k === 'out') o.out = v;
		else if (k === 'no-write') o.write = false;
		else if (k === 'help' || k === 'h') {
			console.log(
				fs
					.readFileSync(new URL(import.meta.url), 'utf8')
					.split('\n')
					.slice(0, 10)
					.join('\n'),
			);
			process.exit(0);
		} else throw new Error(`unknown option ${a}`);
	}
	for (const p of o.only) if (!PARTS.includes(p)) throw new Error(`unknown part ${p} (${PARTS})`);
	if (new Set(o.batchSizes).size !== o.batchSizes.length)
		throw new Error('--batch-sizes: each size once');
	o.full =
		PARTS.every((p) => o.only.includes(p)) &&
		o.batchSides.length === 2 &&
		Object.entries(DEFAULTS).every(([k, v]) => String(o[k]) === String(v));
	// docs/benchmarks.md only from a full default run (or wherever --out says)
	o.outFile = o.out
		? path.resolve(o.out)
		: o.full && o.write
			? path.join(REPO, 'docs', 'benchmarks.md')
			: undefined;
	return o;
}

const sha256 = (buf) => createHash('sha256').update(buf).digest('hex');
const load1 = () => os.loadavg()[0].toFixed(2);

// ---------------------------------------------------------------------------------------------------

async function main() {
	const opt = parseArgs(process.argv.slice(2));
	const t0 = Date.now();
	const startedAt = new Date();
	const md = []; // the report, section by section
	const goals = []; // { goal, result, met, note }
	const findings = []; // measured findings, written with this run's figures
	const durations = {}; // part -> ms
	const emit = (text = '') => {
		say(text);
		md.push(text);
	};

	log('build and pack the package…');
	const tarball = await packOnce();
	const host = await ensureHost({ version: '2' });
	let previous;
	if (opt.only.includes('batch') && opt.batchSides.includes('prev')) {
		log(`build and pack the previous version (${opt.previous})…`);
		previous = await packCommit(REPO, opt.previous, log);
	}
	const emu = await startEmulator({ jobTiming: { queuedMs: 1000, runningMs: 2000 } });
	emu.control.grantCredits(100_000);
	const files = fs.mkdtempSync(path.join(os.tmpdir(), 'gs-bench-files-'));
	const cur = await createInstance({ version: '2', fileAccessDir: files });
	const prev = previous ? await createInstance({ version: '2', fileAccessDir: files }) : undefined;
	const machine = {
		cpu: os.cpus()[0]?.model ?? 'unknown',
		cores: os.cpus().length,
		ramGiB: (os.totalmem() / 2 ** 30).toFixed(1),
		node: process.version,
		n8n: host.n8nVersion,
		kernel: `${os.type()} ${os.release()}`,
		load: os
			.loadavg()
			.map((x) => x.toFixed(2))
			.join(' '),
	};
	const commitNow = (() => {
		try {
			const head = execFileSync('git', ['-C', REPO, 'rev-parse', '--short', 'HEAD'])
				.toString()
				.trim();
			const dirty = execFileSync('git', [
				'-C',
				REPO,
				'status',
				'--porcelain',
				'--',
				'nodes',
				'credentials',
			])
				.toString()
				.trim();
			return `${head}${dirty ? ' + uncommitted changes in nodes/' : ''}`;
		} catch {
			return 'unknown';
		}
	})();
	try {
		await cur.installPackage(tarball);
		if (prev) await prev.installPackage(previous.tarball);
		machine.n8nNode = execFileSync(host.nodeBin, ['--version']).toString().trim();

		// ---- keys and credentials -----------------------------------------------------------------------
		const creds = { cur: [], prev: [] };
		const ourCred = (id, secret, where = 'cur') =>
			creds[where].push({
				id,
				name: id,
				type: W.OUR_CRED_TYPE,
				data: { apiKey: secret, baseUrl: emu.baseUrl },
			});
		const baseCred = (id, secret) =>
			creds.cur.push({
				id,
				name: id,
				type: W.BASE_CRED_TYPE,
				data: { name: 'Authorization', value: `Bearer ${secret}` },
			});
		const keys = {};
		const mk = (name, o) => (keys[name] = emu.control.createKey({ label: name, ...o }));
		mk('ours', { requestsPerMinute: 120 });
		mk('base', { requestsPerMinute: 120 });
		ourCred('benchOurs', keys.ours.secret);
		baseCred('benchBase', keys.base.secret);
		// part 3: a fresh 60 requests/minute key per run, each in its own account (its own job list)
		const batchRuns = []; // { n, side, keyName, account, cred, wfId, outDir }
		if (opt.only.includes('batch')) {
			const prevPhase = opt.batchPhases[Math.floor(opt.batchPhases.length / 2)];
			for (const n of opt.batchSizes) {
				for (const side of opt.batchSides) {
					for (const phase of side === 'ours' ? opt.batchPhases : [prevPhase]) {
						const tag = `${side}_${n}_p${phase}`;
						const account = `acct_bench_batch_${tag}`;
						const keyName = `batch_${tag}`;
						mk(keyName, { requestsPerMinute: 60, accountId: account });
						emu.control.grantCredits(n * 8 + 100, account);
						const cred = `batch${n}p${phase}`;
						ourCred(cred, keys[keyName].secret, side === 'ours' ? 'cur' : 'prev');
						const outDir = path.join(files, `batch-${tag}`);
						fs.mkdirSync(outDir, { recursive: true });
						const wfId = `benchBatch${n}p${phase}`;
						batchRuns.push({ n, side, phase, keyName, account, cred, wfId, outDir });
					}
				}
			}
		}
		if (opt.only.includes('creates')) {
			mk('createsOurs', { requestsPerMinute: 60, accountId: 'acct_bench_creates_ours' });
			mk('createsBase', { requestsPerMinute: 60, accountId: 'acct_bench_creates_base' });
			emu.control.grantCredits(opt.creates * 8 + 100, 'acct_bench_creates_ours');
			emu.control.grantCredits(opt.creates * 8 + 100, 'acct_bench_creates_base');
			ourCred('createsOurs', keys.createsOurs.secret);
			baseCred('createsBase', keys.createsBase.secret);
		}
		const CPU_NODES = 10;
		const CPU_RPM = 120; // the emulator's highest rate per key
		// Alone on a key the pacer sends a whole window's budget without waiting: items per key stay within
		// it, so no request of the measured runs waits (the waiting would add n8n's idle CPU).
		const CPU_PER_NODE = CPU_RPM; // alone on a key the pacer sends a whole window without waiting
		const cpuCreds = []; // per rep: { ours: [ids], http: [ids], oursKeys, httpKeys }
		if (opt.only.includes('cpu')) {
			// one more set of keys for the profiled runs (not counted in the figures)
			for (let r = 0; r <= opt.cpuReps; r++) {
				const set = { ours: [], http: [], oursKeys: new Set(), httpKeys: new Set() };
				for (let i = 0; i < CPU_NODES; i++) {
					// own account per rep: an account has at most 20 active keys
					const o = { requestsPerMinute: CPU_RPM, accountId: `acct_bench_cpu${r}` };
					const ko = mk(`cpuO${r}_${i}`, o);
					const kh = mk(`cpuH${r}_${i}`, o);
					ourCred(`cpuO${r}_${i}`, ko.secret);
					baseCred(`cpuH${r}_${i}`, kh.secret);
					set.ours.push(`cpuO${r}_${i}`);
					set.http.push(`cpuH${r}_${i}`);
					set.oursKeys.add(ko.keyId);
					set.httpKeys.add(kh.keyId);
				}
				cpuCreds.push(set);
			}
		}
		log(`importing ${creds.cur.length + creds.prev.length} credentials…`);
		await cur.importCredentials(creds.cur);
		if (prev && creds.prev.length) await prev.importCredentials(creds.prev);

		// ---- inputs of part 2: files and finished jobs of several sizes --------------------------------------
		const DL = [
			{ k: 't', bytes: 4096, label: '4 KiB' },
			{ k: '5', bytes: 5 * MiB, label: '5 MiB' },
			{ k: '20', bytes: 20 * MiB, label: '20 MiB' },
			{ k: '100', bytes: 100 * MiB, label: '100 MiB' },
		];
		const UP = [
			{ k: 't', label: '2 KiB' },
			{ k: '5', bytes: 5 * MiB, label: '5 MiB' },
			{ k: '20', bytes: 20 * MiB, label: '20 MiB' },
		];
		const memWf = []; // { id, transfer, side, size }
		if (opt.only.includes('memory')) {
			const sample = fs.readFileSync(path.join(REPO, 'examples', 'samples', 'sample-video.mp4'));
			for (const u of UP) {
				u.file = path.join(files, `bench-up-${u.k}.mp4`);
				fs.writeFileSync(u.file, u.bytes ? paddedMp4(sample, u.bytes) : sample);
				u.label = u.bytes ? u.label : `${(sample.length / 1024).toFixed(1)} KiB`;
			}
			// succeeded jobs with outputs of each size, created directly (not part of any measured run)
			emu.control.setJobTiming({ queuedMs: 0, runningMs: 0 });
			for (const d of DL) {
				emu.control.setOutputBytes(d.bytes);
				const res = await fetch(`${emu.baseUrl}/jobs`, {
					method: 'POST',
					headers: {
						Authorization: `Bearer ${emu.keys.full}`,
						'Content-Type': 'application/json',
						'Idempotency-Key': `bench-dl-setup-${d.k}-${Date.now()}`,
					},
					body: JSON.stringify({
						mode: 'text_to_video',
						prompt: `bench ${d.label} output`,
						durationSeconds: 5,
						aspectRatio: '16:9',
					}),
				});
				d.jobId = (await res.json()).data.id;
			}
			emu.control.setOutputBytes(4096);
			emu.control.setJobTiming({ queuedMs: 1000, runningMs: 2000 });
			for (const d of DL) {
				const job = emu.control.jobs().find((j) => j.id === d.jobId);
				if (job?.state !== 'succeeded')
					throw new Error(`setup job not succeeded: ${JSON.stringify(job)}`);
			}
			for (const d of DL) {
				memWf.push({ id: `mDlO${d.k}`, transfer: 'download', side: 'ours', size: d });
				memWf.push({ id: `mDlH${d.k}`, transfer: 'download', side: 'http', size: d });
			}
			for (const u of UP) {
				memWf.push({ id: `mUpO${u.k}`, transfer: 'upload', side: 'ours', size: u });
				memWf.push({ id: `mUpH${u.k}`, transfer: 'upload', side: 'http', size: u });
			}
		}

		// ---- workflows -------------------------------------------------------------------------------
		const wfs = [];
		if (opt.only.includes('requests'))
			for (const T of opt.durations) {
				// a prompt per run, so a look-up for a recent job of the same input (where it is on) picks nothing up
				const prompt = `benchmark: a lighthouse in a storm, ${T} s job`;
				wfs.push(
					W.jobOurs('benchOurs', `benchJobOurs${T}`, prompt),
					W.jobBaseline('benchBase', emu.baseUrl, `benchJobBase${T}`, prompt),
				);
			}
		for (const m of memWf) {
			if (m.transfer === 'download')
				wfs.push(
					m.side === 'ours'
						? W.dlOurs(m.size.jobId, 'benchOurs', m.id)
						: W.dlBaseline(m.size.jobId, 'benchBase', emu.baseUrl, m.id),
				);
			else
				wfs.push(
					m.side === 'ours'
						? W.upOurs(m.size.file, 'benchOurs', m.id)
						: W.upBaseline(
								m.size.file,
								'benchBase',
								emu.baseUrl,
								m.id,
								`bench-baseline-upload-${m.size.k}-0001`,
							),
				);
		}
		if (opt.only.includes('creates'))
			wfs.push(
				W.createsOurs(opt.creates, 'createsOurs'),
				W.createsBaseline(opt.creates, 'createsBase', emu.baseUrl),
			);
		if (opt.only.includes('cpu')) {
			wfs.push(W.cpuNoOp('benchCpuNoOp', CPU_NODES, CPU_PER_NODE));
			cpuCreds.forEach((set, r) =>
				wfs.push(
					W.cpuOurs(`benchCpuOurs${r}`, set.ours, CPU_PER_NODE),
					W.cpuHttp(`benchCpuHttp${r}`, set.http, CPU_PER_NODE, emu.baseUrl),
				),
			);
		}
		const prevWfs = [];
		for (const b of batchRuns) {
			(b.side === 'ours' ? wfs : prevWfs).push(W.batchWait(b.wfId, b.n, b.cred, b.outDir, b.phase));
		}
		log(`importing ${wfs.length + prevWfs.length} workflows…`);
		if (wfs.length) await cur.importWorkflow(wfs);
		if (prev && prevWfs.length) await prev.importWorkflow(prevWfs);
		const setupMs = Date.now() - t0;
		log(`setup done in ${fmtS(setupMs)}`);

		const run = async (id, o = {}, inst = cur) => {
			const r = await executeMeasured(inst, id, o);
			log(
				`  ${inst === prev ? '(previous) ' : ''}${id}: ${r.ok ? 'ok' : 'FAILED'} ${fmtS(r.ms)} peak ${fmtMiB(r.peakRssBytes)} (main ${fmtMiB(r.mainPeakRssBytes)}) cpu ${ms1(r.cpuMs)}${r.signal ? ` (${r.signal})` : ''}`,
			);
			return r;
		};
		const journalOf = (keyId) => emu.control.journal().filter((e) => e.keyId === keyId);
		const failText = (r) =>
			r.ok ? '' : JSON.stringify(r.error ?? { stderr: r.stderr.slice(-1500) }).slice(0, 1500);
		const violationsOf = (keyId) => emu.control.violations().filter((v) => v.keyId === keyId);

		emit("# Benchmarks: our nodes vs n8n's own nodes and vs the previous version");
		emit();
		emit(
			`Written by \`npm run bench\` (scripts/bench.mjs) on ${startedAt.toISOString()}; every figure below is the one this run printed. Package under test: commit ${commitNow}${previous ? `; previous version: commit ${previous.commit.slice(0, 7)}` : ''}.`,
		);
		emit();
		emit(
			table(
				['Machine', ''],
				[
					['CPU', `${machine.cpu} × ${machine.cores} cores`],
					['RAM', `${machine.ramGiB} GiB`],
					['OS', machine.kernel],
					[
						'n8n',
						`${machine.n8n} on Node ${machine.n8nNode} (filesystem binary mode, \`n8n execute\` per run)`,
					],
					[
						'Bench / emulator',
						`Node ${process.version}, emulator in the bench process on 127.0.0.1`,
					],
					['Load average at start', machine.load],
				],
			),
		);
		emit();
		emit(
			"Baseline = the same flow built only from n8n's own nodes: HTTP Request (v4.2) with a Header Auth credential (`Authorization: Bearer <key>`), Wait (v1.1), IF (v2.2). Previous version = this package built from an earlier commit and installed into a separate n8n instance (same node types, same workflow). Every run is a fresh `n8n execute` process, one at a time; requests are counted from the emulator's journal (each side has its own API key). The machine may be shared with other work (its load average is printed at start and end): wall and CPU figures carry that noise.",
		);
		emit();

		// ================================================================================================
		// 1. Requests per finished job
		if (opt.only.includes('requests')) {
			const p0 = Date.now();
			log('part 1: requests per finished job');
			const rows = [];
			const found = [];
			for (const T of opt.durations) {
				emu.control.setJobTiming({ queuedMs: 1000, runningMs: T * 1000 - 1000 });
				for (const side of ['ours', 'base']) {
					emu.control.clearJournal();
					const r = await run(side === 'ours' ? `benchJobOurs${T}` : `benchJobBase${T}`, {
						timeoutMs: T * 1000 + 180_000,
						sampleMs: 250,
					});
					const j = journalOf(keys[side].keyId);
					const polls = j.filter((e) => e.method === 'GET' && /^\/v1\/jobs\/[^/]+$/.test(e.path));
					const jobId = j
						.find((e) => e.method === 'GET' && /^\/v1\/jobs\/[^/]+/.test(e.path))
						?.path.split('/')[3];
					const job = emu.control.jobs().find((x) => x.id === jobId);
					const count = (f) => j.filter(f).length;
					const c = {
						capabilities: count((e) => e.path === '/v1/capabilities'),
						list: count((e) => e.method === 'GET' && e.path === '/v1/jobs'),
						quote: count((e) => e.path === '/v1/jobs/quote'),
						create: count((e) => e.method === 'POST' && e.path === '/v1/jobs'),
						polls: polls.length,
						download: count((e) => /\/output$/.test(e.path)),
						total: j.length,
						non2xx: count((e) => e.status >= 300),
					};
					const end = job?.state === 'succeeded' ? job.updatedAt : NaN;
					const seen = polls.find((e) => e.at >= end);
					const delay = seen ? seen.at - end : NaN;
					const min = 1 + 1 + Math.ceil(T / POLL_S) + 1 + 1;
					const okRun = r.ok && job?.state === 'succeeded' && c.download >= 1 && c.non2xx === 0;
					if (!okRun) log(`  run not clean: ${failText(r)} job=${JSON.stringify(job)}`);
					rows.push([
						`${T} s`,
						side === 'ours' ? 'ours' : 'baseline',
						c.capabilities,
						c.list,
						c.quote,
						c.create,
						c.polls,
						c.download,
						c.total,
						min,
						c.total - min >= 0 ? `+${c.total - min}` : String(c.total - min),
						ms1(delay),
						fmtS(r.ms),
						okRun ? 'ok' : `FAILED`,
					]);
					found.push({ T, side, c, min, delay, ok: okRun });
				}
			}
			durations.requests = Date.now() - p0;
			emit('## 1. Requests per finished job');
			emit();
			emit(
				`A text-to-video job that lasts T seconds on the emulator (queued 1 s, then running), real time. Ours: one **Create** with **Max Credits** 20 (quote first) and **Wait for Completion** (default ${POLL_S} s poll, MP4 downloaded and sha256-checked). Baseline: HTTP quote → IF affordable → HTTP create (Idempotency-Key) → HTTP GET job → IF succeeded/failed → else Wait ${POLL_S} s → GET job again; then HTTP GET output as file. Minimum = 1 quote + 1 create + ceil(T/${POLL_S})+1 polls + 1 download. Detection delay = journal time of the first GET of the job at or after its end (\`updatedAt\`) minus that end. (A lone job is read with \`GET /v1/jobs/{id}\`; part 3 covers batches, which ours follows through the job list.)`,
			);
			emit();
			emit(
				table(
					[
						'Job',
						'Workflow',
						'Capabilities',
						'Job list',
						'Quote',
						'Create',
						'Polls',
						'Download',
						'Total',
						'Minimum',
						'vs min',
						'Detection delay',
						'Execution',
						'Run',
					],
					rows,
				),
			);
			emit();
			const ours = found.filter((f) => f.side === 'ours');
			const reqMet = ours.length > 0 && ours.every((f) => f.ok && f.c.total <= f.min + 1);
			const delayMet = ours.length > 0 && ours.every((f) => f.ok && f.delay <= POLL_S * 1000);
			emit(
				`Ours reads \`GET /v1/capabilities\` once per node run (before the first quote/create) and, where "Reuse Identical Recent Job" looks (by default only n8n's Retry and webhook calls; \`n8n execute\` runs in mode \`cli\`, which creates), one page of \`GET /v1/jobs\` to pick up a recent job of the same input instead of paying twice; both are counted in "Total" above (capabilities ${ours.map((f) => f.c.capabilities).join(', ')}; job list ${ours.map((f) => f.c.list).join(', ')} for the ${ours.length} runs). Each run has its own prompt, so nothing is picked up.`,
			);
			emit();
			goals.push({
				goal: 'Requests per finished job ≤ minimum + 1',
				result: ours.map((f) => `${f.T} s: ${f.c.total} (min ${f.min})`).join('; '),
				met: reqMet,
				note: reqMet
					? `Beyond the minimum's kinds ours sends ${ours.map((f) => `${f.c.capabilities} capabilities + ${f.c.list} job list`)[0]} per run and ${ours.map((f) => `${f.c.polls}`).join(' / ')} polls where the minimum counts ${ours.map((f) => Math.ceil(f.T / POLL_S) + 1).join(' / ')} (looks every ${POLL_S} s from the create answer: the one at T s already sees the job finished, see the detection delay).`
					: ours.every((f) => f.ok && f.c.total - f.c.list <= f.min + 1 && f.c.list > 0)
						? `Without the job-list read the totals would be within minimum + 1 (${ours.map((f) => f.c.total - f.c.list).join(', ')}): the extra request is the look-up for a recent job of the same input (Reuse Identical Recent Job), one per node run where it looks; set it to "Never" (or use an Idempotency Key) to drop it.`
						: 'See part 1: the extra requests are listed per kind.',
			});
			goals.push({
				goal: `Detection delay ≤ one poll interval (${POLL_S} s)`,
				result: ours.map((f) => `${f.T} s: ${ms1(f.delay)}`).join('; '),
				met: delayMet,
				note: delayMet ? '' : 'The first poll after the end came later than one interval.',
			});
			log(`part 1 done in ${fmtS(durations.requests)}`);
		}

		// ================================================================================================
		// 2. Memory moving files of several sizes
		if (opt.only.includes('memory')) {
			await partMemory({
				opt,
				emu,
				cur,
				run,
				emit,
				goals,
				findings,
				durations,
				memWf,
				DL,
				UP,
				files,
				failText,
			});
		}

		// ================================================================================================
		// 3. Batch: N jobs created, waited for and downloaded by one Create node
		if (opt.only.includes('batch')) {
			const p0 = Date.now();
			log(
				`part 3: batches of ${opt.batchSizes.join(', ')} jobs of ${opt.batchJobS} s, 60 requests/minute`,
			);
			emu.control.setJobTiming({ queuedMs: 1000, runningMs: opt.batchJobS * 1000 - 1000 });
			emu.control.setOutputBytes(4096);
			const results = [];
			for (const b of batchRuns) {
				const key = keys[b.keyName];
				const loadAtStart = load1();
				emu.control.clearJournal();
				const r = await run(
					b.wfId,
					{ timeoutMs: 45 * 60_000, sampleMs: 250 },
					b.side === 'ours' ? cur : prev,
				);
				const j = journalOf(key.keyId);
				const c = byRoute(j);
				const downloads = j.filter(
					(e) => /^\/v1\/jobs\/[^/]+\/output$/.test(e.path) && e.status === 200,
				);
				const first = j[0];
				const lastDl = downloads[downloads.length - 1];
				const wallMs = first && lastDl ? lastDl.at - first.at : NaN;
				const jobs = emu.control
					.snapshot()
					.jobs.filter((x) => x.keyId === key.keyId)
					.sort((a, b2) => a.createdAt - b2.createdAt);
				// every MP4 the workflow wrote, checked against the job's output.sha256
				let verified = 0;
				const problems = [];
				for (const job of jobs) {
					const file = path.join(b.outDir, `${job.id}.mp4`);
					if (job.state !== 'succeeded') {
						problems.push(`${job.id} ${job.state}`);
						continue;
					}
					if (!fs.existsSync(file)) {
						problems.push(`${job.id}: no file`);
						continue;
					}
					if (sha256(fs.readFileSync(file)) === job.outputSha256) verified++;
					else problems.push(`${job.id}: sha256 differs`);
				}
				const floor = first
					? simulateFloor({
							t0: first.at,
							n: b.n,
							jobMs: opt.batchJobS * 1000,
							limit: 60,
							pollMs: POLL_S * 1000,
						})
					: undefined;
				const creates = j.filter((e) => e.method === 'POST' && e.path === '/v1/jobs');
				const lastCreate = creates[creates.length - 1];
				const lastEnd = Math.max(...jobs.map((x) => x.updatedAt));
				// the first read after the last job ended that could show it: a list poll or a GET of that job
				const lastJob = jobs.reduce(
					(a, x) => (x.updatedAt > (a?.updatedAt ?? -1) ? x : a),
					undefined,
				);
				const seenLast = j.find(
					(e) =>
						e.at >= lastEnd &&
						e.status === 200 &&
						((e.method === 'GET' && e.path === '/v1/jobs') || e.path === `/v1/jobs/${lastJob?.id}`),
				);
				// per job: the first read that could show it finished (a list poll, or a GET of that job)
				const reads = j.filter(
					(e) => e.status === 200 && e.method === 'GET' && /^\/v1\/jobs(\/[^/]+)?$/.test(e.path),
				);
				const detections = jobs.map((job) => {
					const read = reads.find(
						(e) =>
							e.at >= job.updatedAt && (e.path === '/v1/jobs' || e.path === `/v1/jobs/${job.id}`),
					);
					return read ? read.at - job.updatedAt : NaN;
				});
				const outItems = nodeOutput(r.result, 'Create') ?? [];
				const v = violationsOf(key.keyId);
				const vCounts = {};
				for (const x of v) vCounts[x.kind] = (vCounts[x.kind] ?? 0) + 1;
				const rec = {
					...b,
					r,
					c,
					total: j.length,
					r429: j.filter((e) => e.status === 429).length,
					violations: v.length,
					vCounts,
					created: jobs.length,
					verified,
					problems,
					outItems: outItems.filter((x) => x && !x.error).length,
					wallMs,
					floor,
					ratio: floor ? wallMs / floor.floorMs : NaN,
					phaseS: first ? ((first.at % 60_000) / 1000).toFixed(1) : 'n/a',
					lastCreateMs: lastCreate && first ? lastCreate.at - first.at : NaN,
					lastEndMs: first ? lastEnd - first.at : NaN,
					seenLastMs: seenLast && first ? seenLast.at - first.at : NaN,
					maxDetectionMs: detections.length ? Math.max(...detections) : NaN,
					medianDetectionMs: detections.length ? median(detections) : NaN,
					withinInterval: detections.filter((d) => d <= POLL_S * 1000).length,
					windows: perWindow(j),
					load: loadAtStart,
					ok: r.ok && jobs.length === b.n && verified === b.n && downloads.length >= b.n,
				};
				if (!rec.ok)
					log(
						`  batch ${b.side} ${b.n} not clean: ${failText(r)} created ${jobs.length}, verified ${verified}; ${problems.slice(0, 5).join('; ')}`,
					);
				log(
					`  ${b.side} N=${b.n} phase ${rec.phaseS} s: wall ${fmtS(wallMs)} floor ${fmtS(floor?.floorMs)} ratio ${ratio2(wallMs, floor?.floorMs)}; ${routeText(c)}; 429 ${rec.r429}; violations ${JSON.stringify(vCounts)}; windows ${rec.windows.join('/')}`,
				);
				results.push(rec);
				if (opt.dump) {
					fs.mkdirSync(opt.dump, { recursive: true });
					fs.writeFileSync(
						path.join(opt.dump, `batch-${b.side}-${b.n}-p${b.phase}.json`),
						JSON.stringify({ journal: j, jobs, floor, stderr: r.stderr.slice(-20000) }, null, 1),
					);
				}
			}
			durations.batch = Date.now() - p0;
			reportBatch({ opt, results, previous, emit, goals, findings });
			log(`part 3 done in ${fmtS(durations.batch)}`);
		}

		// ================================================================================================
		// 4. Creates only: N creates on a 60 rpm key, ours vs HTTP Request
		if (opt.only.includes('creates')) {
			const p0 = Date.now();
			log(`part 4: ${opt.creates} creates, 60 requests/minute`);
			emu.control.setJobTiming({ queuedMs: 1000, runningMs: 2000 });
			const res = {};
			for (const side of ['createsOurs', 'createsBase']) {
				emu.control.clearJournal();
				const r = await run(side === 'createsOurs' ? 'benchCreatesOurs' : 'benchCreatesBase', {
					timeoutMs: 600_000,
					sampleMs: 250,
				});
				const j = journalOf(keys[side].keyId);
				const creates = j.filter((e) => e.method === 'POST' && e.path === '/v1/jobs');
				const created = creates.filter((e) => e.status === 202 || e.status === 200).length;
				const out = nodeOutput(r.result, 'Create') ?? [];
				// ours outputs the job; the HTTP Request node outputs the response envelope { data: job }
				const outOk = out.filter(
					(x) => typeof (x?.id ?? x?.data?.id) === 'string' && !x.error,
				).length;
				const first = j.length ? j[0].at : NaN;
				const last = j.length ? j[j.length - 1].at : NaN;
				const v = violationsOf(keys[side].keyId);
				const vCounts = {};
				for (const x of v) vCounts[x.kind] = (vCounts[x.kind] ?? 0) + 1;
				const answers = {};
				for (const e of j)
					answers[`${e.status}${e.errorCode ? ` ${e.errorCode}` : ''}`] =
						(answers[`${e.status}${e.errorCode ? ` ${e.errorCode}` : ''}`] ?? 0) + 1;
				log(`  ${side}: answers ${JSON.stringify(answers)}`);
				res[side] = {
					answers,
					r,
					route: byRoute(j),
					requests: j.length,
					creates: creates.length,
					created,
					status429: j.filter((e) => e.status === 429).length,
					violations: v.length,
					vCounts,
					failedItems: opt.creates - outOk,
					outputItems: outOk,
					spanMs: last - first,
					phaseS: ((first % 60_000) / 1000).toFixed(1),
					windows: perWindow(j),
					error: r.ok ? '' : (r.error?.message ?? 'no result').slice(0, 200),
				};
			}
			durations.creates = Date.now() - p0;
			const minMs = (opt.creates / 60) * 60_000;
			const o = res.createsOurs;
			const b = res.createsBase;
			const windowFloor = (x) => {
				// fixed one-minute windows: the last of ceil(counted/60) windows starts (60 - phase) + 60 × (w - 2) s after the
				// first request (counted = requests against the key: all but the public GET /v1/capabilities)
				const w = Math.ceil((x.requests - x.route.capabilities) / 60);
				return w <= 1 ? 0 : (60 - Number(x.phaseS)) * 1000 + (w - 2) * 60_000;
			};
			emit(`## 4. Creates only: ${opt.creates} text-to-video creates on a 60 requests/minute key`);
			emit();
			emit(
				`Create only (no wait), ${opt.creates} items, a fresh key (and account) per side created with \`requestsPerMinute: 60\`. Rate-limit minimum = creates needed ÷ rate = ${opt.creates} ÷ 60/min = ${fmtS(minMs)}. The emulator counts fixed one-minute windows aligned to the clock minute, so a client that starts late in a minute can finish sooner than that; the "fixed-window floor" column is the earliest possible last request for the phase the run actually started at, counting the requests each side made against the key (the public \`GET /v1/capabilities\` does not count). Ours sends through the key's pacer (nodes/shared/transport/pacer.ts: one pacer per API key per n8n process; alone on a key it sends as fast as the window allows, then waits for the window's reset + ${PACING.resetMarginMs} ms; it spreads the budget only while the service counts requests of other processes). "Failed items" = input items that did not come out of the node as a created job.`,
			);
			emit();
			emit(
				table(
					[
						'Workflow',
						'Requests',
						'Creates sent',
						'Jobs created',
						'429 received',
						'Referee violations',
						'Failed items (no job out of the node)',
						'First request at (s into minute)',
						'Requests per window',
						'Request span',
						'Fixed-window floor',
						'Execution (incl. n8n start)',
						'Workflow result',
					],
					[
						['ours: Create', o],
						['baseline: HTTP Request (defaults)', b],
					].map(([label, x]) => [
						label,
						x.requests,
						x.creates,
						x.created,
						x.status429,
						x.violations ? JSON.stringify(x.vCounts) : 0,
						x.failedItems,
						x.phaseS,
						x.windows.join(' / '),
						fmtS(x.spanMs),
						fmtS(windowFloor(x)),
						fmtS(x.r.ms),
						x.r.ok ? 'success' : `error: ${x.error}`,
					]),
				),
			);
			emit();
			emit(
				`Ours sends ${o.requests - o.creates} request${o.requests - o.creates === 1 ? '' : 's'} besides the creates (${o.route.capabilities} \`GET /v1/capabilities\` and ${o.route.list} \`GET /v1/jobs\`, the look-up for a recent job of the same input, once per node run where Reuse Identical Recent Job looks). ` +
					(b.r.ok
						? `The baseline finished without error here (${b.status429} × 429).`
						: `The baseline sends every item's request at once (n8n's HTTP Request node does not pace unless its Batching option is set by hand); the ${b.status429} requests over the window's limit got 429 and the node failed the whole run (no item reaches the next node), although ${b.created} jobs were created and charged — re-running it creates them again unless the Idempotency-Keys are stable per row.`),
			);
			emit();
			const createsMet =
				o.failedItems === 0 &&
				o.r.ok &&
				o.r.ms <= 1.1 * minMs &&
				o.status429 === 0 &&
				o.violations === 0;
			goals.push({
				goal: `Creates only: 0 failed items, 0 × 429, 0 violations and wall ≤ 1.1 × minimum (${fmtS(1.1 * minMs)})`,
				result: `${o.failedItems} failed, ${o.status429} × 429, ${o.violations} violations, wall ${fmtS(o.r.ms)} (requests span ${fmtS(o.spanMs)}) vs minimum ${fmtS(minMs)}`,
				met: createsMet,
				note: createsMet
					? "The key's pacer keeps the requests inside each window's budget and waits for the reset instead of drawing 429s."
					: 'See part 4.',
			});
			log(`part 4 done in ${fmtS(durations.creates)}`);
		}

		// ================================================================================================
		// 5. CPU per item
		if (opt.only.includes('cpu')) {
			const p0 = Date.now();
			const N = CPU_NODES * CPU_PER_NODE;
			log(`part 5: CPU per item (${N} Get Balance)`);
			await run('benchCpuNoOp', { sampleMs: 100 }); // warm-up (file cache), not counted
			const reps = [];
			for (let rep = 0; rep < opt.cpuReps; rep++) {
				const set = cpuCreds[rep];
				const rec = {};
				const ids = [
					['noop', 'benchCpuNoOp'],
					['ours', `benchCpuOurs${rep}`],
					['http', `benchCpuHttp${rep}`],
				];
				// rotate the order so a drift of the machine does not favour one side
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
				reps.push(rec);
			}
			const profDir = opt.cpuProf ?? path.join(os.tmpdir(), 'gs-bench-cpu-prof');
			let profileText = '';
			{
				// profiled runs on their own keys; the profiler's overhead stays out of the figures above
				const set = cpuCreds[opt.cpuReps];
				fs.rmSync(profDir, { recursive: true, force: true });
				const sides = [
					['ours', `benchCpuOurs${opt.cpuReps}`],
					['http', `benchCpuHttp${opt.cpuReps}`],
				];
				for (const [name, id] of sides) {
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
				profileText = summary.text;
			}
			durations.cpu = Date.now() - p0;
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
			findings.push(
				`**A lone caller on a key goes at the window's pace.** Part 5's runs send ${CPU_PER_NODE} requests per key of ${CPU_RPM}/min without waiting: alone on a key the pacer sends as fast as the window allows and then waits for the reset; it spreads the budget (and keeps one request in reserve) only while the service counts requests of other processes (nodes/shared/transport/pacer.ts, pinned by the unit tests "alone on a key: …" and "a shared key is spread …").`,
			);
			const ratio = netOurs / netHttp;
			const cpuMet = ratio <= 0.5 && reps.every((x) => x.ours.ok);
			goals.push({
				goal: 'CPU per item ≤ 0.5 × the HTTP Request node (net of n8n)',
				result: `net ${perItem(netOurs)} vs HTTP Request ${perItem(netHttp)} (×${ratio.toFixed(2)}); raw ${perItem(m('ours'))} vs ${perItem(m('http'))}`,
				met: cpuMet,
				note: cpuMet
					? ''
					: `Where the time goes is in the profile under part 5: every request of either node passes through n8n's request path (the credential loaded from the database and decrypted per request, axios, a new TCP connection, the response), which a community node must use (\`httpRequestWithAuthentication\`). Removed from ours: the credential's templated Bearer header, which n8n evaluated through its expression sandbox on every request. What is left is mostly n8n's, so half of the HTTP Request node is not reachable from the node.`,
			});
			log(`part 5 done in ${fmtS(durations.cpu)}`);
		}

		// ================================================================================================
		const total = Date.now() - t0;
		emit('## Goals');
		emit();
		emit(
			table(
				['Goal', 'Result (ours)', 'Met?', 'Why / what would fix it'],
				goals.map((g) => [g.goal, g.result, yes(g.met), g.note]),
			),
		);
		emit();
		emit('## Findings (from these runs and the code)');
		emit();
		for (const f of [...findings, ...FINDINGS]) emit(`- ${f}`);
		emit();
		emit('## Reproduce');
		emit();
		emit('```sh');
		emit('npm install');
		emit('npm run bench                               # all parts; writes docs/benchmarks.md');
		emit(
			'npm run bench -- --only=requests,batch      # some parts (requests, memory, batch, creates, cpu); prints only',
		);
		emit('npm run bench -- --mem-reps=5 --cpu-reps=5  # more repetitions');
		emit('npm run bench -- --only=batch --batch-sizes=10 --previous=<commit>');
		emit('```');
		emit();
		emit(
			`The first run installs n8n ${machine.n8n} into \`~/.cache/n8n-nodes-generation-service\` (about 5 minutes) and builds the previous version into \`${path.join(os.tmpdir(), 'gs-bench-prev')}\`. Durations of this run: setup ${fmtS(setupMs)}${Object.entries(
				durations,
			)
				.map(([k, v]) => `, ${k} ${fmtS(v)}`)
				.join('')}; total ${fmtS(total)}; load average at the end ${os
				.loadavg()
				.map((x) => x.toFixed(2))
				.join(
					' ',
				)} (other work on the machine during the run shows in CPU and wall figures). Each part runs one n8n process at a time; job timings are real time, so parts 1 and 3 cannot be much shorter than their jobs and rate windows.`,
		);
		if (opt.outFile) {
			fs.mkdirSync(path.dirname(opt.outFile), { recursive: true });
			fs.writeFileSync(opt.outFile, md.join('\n') + '\n');
			log(`wrote ${path.relative(process.cwd(), opt.outFile)}`);
		} else {
			log('not a full default run: nothing written (use --out=<file> to write this report)');
		}
		log(`total ${fmtS(total)}`);
	} finally {
		await cur.close();
		if (prev) await prev.close();
		// the baseline of part 4 draws 429s on purpose: the referee's records are reported, not a failure here
		emu.control.clearViolations();
		await emu.close();
		fs.rmSync(files, { recursive: true, force: true });
	}
}

// ---------------------------------------------------------------------------------------------------
// Part 2: memory

async function partMemory({
	opt,
	emu,
	cur,
	run,
	emit,
	goals,
	findings,
	durations,
	memWf,
	DL,
	UP,
	files,
	failText,
}) {
	const p0 = Date.now();
	log(
		`part 2: memory, downloads of ${DL.map((d) => d.label).join(', ')}, uploads of ${UP.map((u) => u.label).join(', ')}`,
	);
	const peaks = Object.fromEntries(memWf.map((m) => [m.id, { tree: [], main: [] }]));
	const okAll = Object.fromEntries(memWf.map((m) => [m.id, true]));
	const check = (m, r) => {
		const j = emu.control.journal();
		let ok = r.ok;
		if (m.transfer === 'upload') ok &&= j.some((e) => e.path === '/v1/assets' && e.status < 300);
		else {
			ok &&= j.some((e) => /\/output$/.test(e.path) && e.status === 200);
			const node = m.side === 'ours' ? 'Wait for Job' : 'Download';
			const bin =
				r.result?.data?.resultData?.runData?.[node]?.at(-1)?.data?.main?.[0]?.[0]?.binary?.data;
			ok &&= Boolean(bin?.mimeType);
		}
		if (!ok) log(`  ${m.id} not clean: ${failText(r)}`);
		return ok;
	};
	for (let rep = 0; rep < opt.memReps; rep++) {
		// interleaved: every workflow once per repetition, the order rotated so drift favours no side
		const order = memWf.map((_, i) => memWf[(i + rep * 3) % memWf.length]);
		for (const m of order) {
			emu.control.clearJournal();
			const r = await run(m.id, { timeoutMs: 300_000, sampleMs: 20 });
			okAll[m.id] &&= check(m, r);
			peaks[m.id].tree.push(r.peakRssBytes);
			peaks[m.id].main.push(r.mainPeakRssBytes);
		}
	}
	const med = (id, k = 'main') => median(peaks[id][k]);
	const idOf = (transfer, side, k) =>
		memWf.find((m) => m.transfer === transfer && m.side === side && m.size.k === k).id;
	const added = (transfer, side, k, what = 'main') =>
		med(idOf(transfer, side, k), what) - med(idOf(transfer, side, 't'), what);

	// ---- the probe: where the added memory is --------------------------------------------------------
	log('part 2: probed runs (process.memoryUsage() every 10 ms inside n8n, GC events, HTTP events)');
	const probeDir = path.join(files, 'probe');
	fs.mkdirSync(probeDir, { recursive: true });
	const probeSet = memWf.filter((m) => m.size.k !== '5');
	const probes = {}; // id|mode -> [summary]
	let probeSeq = 0;
	const probeRun = async (m, mode, attempt = 1) => {
		const file = path.join(probeDir, `${m.id}-${mode}-${++probeSeq}.ndjson`);
		emu.control.clearJournal();
		const r = await run(m.id, {
			timeoutMs: 300_000,
			sampleMs: 20,
			env: probeEnv(file, mode === 'scavenge' ? { gcMs: 10, gc: 'minor' } : {}),
		});
		const ok = check(m, r);
		const data = readProbe(file);
		const s = summariseTransfer(
			data,
			m.transfer === 'download'
				? { method: 'GET', pathRe: /\/output$/ }
				: { method: 'POST', pathRe: /\/v1\/assets$/ },
		);
		if (!s) {
			// e.g. the process died before the probe wrote the transfer's lines: once more, else left out
			log(
				`  probe of ${m.id} (${mode}): no transfer found (${data.samples.length} samples, ${data.events.length} events, exit ${r.exitCode}${r.signal ? ` ${r.signal}` : ''})`,
			);
			if (attempt < 2) await probeRun(m, mode, attempt + 1);
			return;
		}
		const key = `${m.id}|${mode}`;
		(probes[key] ??= []).push({
			...s,
			ok,
			mainPeak: r.mainPeakRssBytes,
			firstSample: data.samples[0],
		});
	};
	for (let rep = 0; rep < opt.probeReps; rep++) {
		for (const m of probeSet) await probeRun(m, 'plain');
		for (const m of probeSet.filter((x) => x.size.k !== 't')) await probeRun(m, 'scavenge');
		for (const m of probeSet.filter((x) => x.size.k === 't')) await probeRun(m, 'scavenge');
	}
	// the same HTTP client outside n8n: bench/http-alone.cjs with n8n's Node, young generation as in a fresh
	// process and as large as the probe saw in n8n
	const newSpace = median(
		Object.entries(probes)
			.filter(([k]) => k.endsWith('|plain'))
			.flatMap(([, v]) => v.map((x) => x.newSpace)),
	);
	const alone = await httpAlone(cur.host.nodeBin, [20, 100], newSpace);
	durations.memory = Date.now() - p0;

	// ---- report ---------------------------------------------------------------------------------
	emit('## 2. Memory moving files (downloads and uploads of several sizes)');
	emit();
	emit(
		`Peak RSS of n8n's main process (where the nodes run) and of the whole process tree (main + task runner + helpers, summed from /proc every 20 ms) during one \`n8n execute\`; median of ${opt.memReps} runs, all workflows interleaved in each repetition. Downloads: a finished job's output (\`setOutputBytes\`) through ours (**Wait for Job**, download on; Download Output uses the same download path) and through n8n's **HTTP Request** (GET output, response format File). Uploads: a valid MP4 (the sample padded with an ISO-BMFF \`free\` box) read from disk by Read/Write Files, then ours (**Asset Upload**) or HTTP Request (POST /v1/assets, binary body). **Added** = the median peak minus the median peak of the same workflow with the tiny file (${DL[0].label} output / ${UP[0].label} upload): n8n, the node's code and the HTTP client are loaded in both, so the difference is what the file's size costs.`,
	);
	emit();
	const rows = [];
	for (const [transfer, sizes] of [
		['download', DL],
		['upload', UP],
	]) {
		for (const s of sizes) {
			const o = idOf(transfer, 'ours', s.k);
			const h = idOf(transfer, 'http', s.k);
			const isT = s.k === 't';
			rows.push([
				transfer,
				s.label,
				fmtMiB(med(o)),
				fmtMiB(med(h)),
				isT ? '—' : signed(added(transfer, 'ours', s.k)),
				isT ? '—' : signed(added(transfer, 'http', s.k)),
				isT ? '—' : ratio2(added(transfer, 'ours', s.k), added(transfer, 'http', s.k)),
				isT
					? '—'
					: `${signed(added(transfer, 'ours', s.k, 'tree'))} / ${signed(added(transfer, 'http', s.k, 'tree'))}`,
				peaks[o].main.map(mib1).join(', '),
				peaks[h].main.map(mib1).join(', '),
				okAll[o] && okAll[h] ? 'ok' : 'FAILED',
			]);
		}
	}
	emit(
		table(
			[
				'Transfer',
				'Size',
				'Peak main, ours',
				'Peak main, HTTP Request',
				'Added, ours',
				'Added, HTTP Request',
				'Ratio ours/HTTP',
				'Added (tree), ours / HTTP',
				'Runs main, ours (MiB)',
				'Runs main, HTTP (MiB)',
				'Run',
			],
			rows,
		),
	);
	emit();
	const flat = (side) => added('download', side, '100') / added('download', side, '20');
	emit(
		`Flatness of downloads (added at 100 MiB ÷ added at 20 MiB, main process): ours **${flat('ours').toFixed(2)}**, HTTP Request ${flat('http').toFixed(2)} (goal ≤ 1.2).`,
	);
	emit();

	// probe tables
	const P = (id, mode) => probes[`${id}|${mode}`] ?? [];
	const pm = (id, mode, f) => median(P(id, mode).map(f));
	emit('### Where the added memory is (probed runs)');
	emit();
	emit(
		`Bench-only instrumentation: \`NODE_OPTIONS=--require bench/${path.basename(PROBE_FILE)}\` in the n8n process of these runs only (nothing in nodes/ changes) samples \`process.memoryUsage()\` every 10 ms, records every garbage collection (perf_hooks) and the HTTP client's request/response events (diagnostics_channel). ${opt.probeReps} run${opt.probeReps === 1 ? '' : 's'} per row (median when more). "Before" = the last sample before the transfer's request started; "max" = the highest value from the request's start to 500 ms after its response ended; Δ = max − before. "Scavenge every 10 ms" = the same run with a young-generation collection (\`gc({type: 'minor'})\`, --expose-gc) every 10 ms from the start of the process: what is left is memory still referenced, the rest was garbage waiting for a collection (the frequent scavenges also change n8n's start-up, so only the Δ columns of those rows compare).`,
	);
	emit();
	const probeRows = [];
	for (const m of probeSet) {
		for (const mode of ['plain', 'scavenge']) {
			const runs = P(m.id, mode);
			if (!runs.length) continue;
			const d = (k) => pm(m.id, mode, (x) => x.max[k] - x.before[k]);
			const gcText = () => {
				const counts = {};
				for (const x of runs)
					for (const [k, v] of Object.entries(x.gcCount ?? {})) counts[k] = (counts[k] ?? 0) + v;
				const parts = Object.entries(counts).map(([k, v]) => `${v / runs.length} ${k}`);
				return parts.length ? parts.join(', ') : 'none';
			};
			const beforeMajor = runs.flatMap((x) => x.arrayBuffersBeforeMajor ?? []);
			probeRows.push([
				m.transfer,
				m.side === 'ours' ? 'ours' : 'HTTP Request',
				m.size.label,
				mode === 'plain' ? '—' : 'every 10 ms',
				ms1(pm(m.id, mode, (x) => x.transferMs)),
				fmtMiB(pm(m.id, mode, (x) => x.before.rss)),
				signed(d('rss')),
				signed(d('heapUsed')),
				signed(d('heapTotal')),
				signed(d('external')),
				signed(d('arrayBuffers')),
				gcText(),
				beforeMajor.length ? beforeMajor.map(fmtMiB).join(', ') : '—',
				fmtMiB(pm(m.id, mode, (x) => x.runPeakRss)),
				runs.every((x) => x.ok) ? 'ok' : 'FAILED',
			]);
		}
	}
	emit(
		table(
			[
				'Transfer',
				'Node',
				'Size',
				'Scavenge',
				'Transfer time',
				'RSS before',
				'Δ RSS',
				'Δ heapUsed',
				'Δ heapTotal',
				'Δ external',
				'Δ arrayBuffers',
				'GCs during the transfer',
				'arrayBuffers at each mark-compact',
				'Run peak RSS (probe)',
				'Run',
			],
			probeRows,
		),
	);
	emit();
	// uploads: what was already there when the POST started (Read/Write Files' copy into the store, and for ours the sha256 pass)
	const upStart = (id) =>
		pm(id, 'plain', (x) => x.before.arrayBuffers - (x.firstSample?.arrayBuffers ?? 0));
	const up20o = idOf('upload', 'ours', '20');
	const up20h = idOf('upload', 'http', '20');
	const upTo = idOf('upload', 'ours', 't');
	const upTh = idOf('upload', 'http', 't');
	emit(
		table(
			[
				'Upload',
				'arrayBuffers when the POST starts (above the first sample)',
				'Δ arrayBuffers during the POST',
			],
			[
				[
					'ours, ' + UP[0].label,
					signed(upStart(upTo)),
					signed(pm(upTo, 'plain', (x) => x.max.arrayBuffers - x.before.arrayBuffers)),
				],
				[
					'ours, 20 MiB',
					signed(upStart(up20o)),
					signed(pm(up20o, 'plain', (x) => x.max.arrayBuffers - x.before.arrayBuffers)),
				],
				[
					'HTTP Request, ' + UP[0].label,
					signed(upStart(upTh)),
					signed(pm(upTh, 'plain', (x) => x.max.arrayBuffers - x.before.arrayBuffers)),
				],
				[
					'HTTP Request, 20 MiB',
					signed(upStart(up20h)),
					signed(pm(up20h, 'plain', (x) => x.max.arrayBuffers - x.before.arrayBuffers)),
				],
			],
		),
	);
	emit();
	emit(
		`The same HTTP client without n8n (bench/http-alone.cjs on n8n's Node ${alone.node}: a loopback server in another process sends the body, the client reads it to the end and drops it, no file, no n8n, no node of ours): the highest \`arrayBuffers\` above its start. In the probed n8n runs V8's new space (young generation) was ${fmtMiB(newSpace)} when the first request left (median): V8 grows it while n8n starts (it allocates a lot), so in the node's run a scavenge — the cheap collection that frees dead Buffers of the young generation — comes only after that much new allocation.`,
	);
	emit();
	emit(
		table(
			[
				'Body',
				`Young generation as a fresh process (new space ${fmtMiB(alone.rows[0]?.freshNewSpace)})`,
				`New space fixed at ${fmtMiB(alone.rows[0]?.bigNewSpace)} as in n8n (\`--min/max-semi-space-size=${alone.semiMiB}\`)`,
			],
			alone.rows.map((x) => [`${x.mib} MiB`, fmtMiB(x.fresh), fmtMiB(x.big)]),
		),
	);
	emit();

	// findings written from these figures
	const dl100o = idOf('download', 'ours', '100');
	const dl20o = idOf('download', 'ours', '20');
	const dl100h = idOf('download', 'http', '100');
	const dAB = (id, mode = 'plain') =>
		pm(id, mode, (x) => x.max.arrayBuffers - x.before.arrayBuffers);
	const dRSS = (id, mode = 'plain') => pm(id, mode, (x) => x.max.rss - x.before.rss);
	const majors100 = P(dl100o, 'plain').flatMap((x) => x.arrayBuffersBeforeMajor ?? []);
	findings.push(
		`**Memory (part 2): the added memory is the HTTP client's garbage, not a copy of the file.** During a download, RSS grows with \`arrayBuffers\` (Buffers outside the JS heap): 20 MiB through ours Δ RSS ${signed(dRSS(dl20o))} with Δ arrayBuffers ${signed(dAB(dl20o))}; 100 MiB Δ RSS ${signed(dRSS(dl100o))} with Δ arrayBuffers ${signed(dAB(dl100o))} (HTTP Request: ${signed(dRSS(dl100h))} / ${signed(dAB(dl100h))}). With a young-generation collection every 10 ms the same transfers leave Δ arrayBuffers ${signed(dAB(dl20o, 'scavenge'))} (20 MiB) and ${signed(dAB(dl100o, 'scavenge'))} (100 MiB) and Δ RSS ${signed(dRSS(dl20o, 'scavenge'))} / ${signed(dRSS(dl100o, 'scavenge'))}: the chunks were already written to the store and unreferenced, waiting for a collection. n8n's young generation is ${fmtMiB(newSpace)} by the time a node runs, so the per-chunk JS objects of a transfer never fill it and no scavenge comes; the socket's Buffers pile up, about twice the body (Node's HTTP client alone, with the same young generation, leaves ${fmtMiB(alone.rows.find((x) => x.mib === 20)?.big)} for a 20 MiB body it drops, against ${fmtMiB(alone.rows.find((x) => x.mib === 20)?.fresh)} in a fresh process: table above). Only V8's external-memory pressure starts a mark-compact (${majors100.length ? `seen at ${majors100.map(fmtMiB).join(', ')} of arrayBuffers in the 100 MiB download through ours` : 'none seen in the 100 MiB download through ours'}), so the pile is bounded but not flat: "added" keeps growing past 20 MiB, for HTTP Request as for ours, and how far is V8's heuristic, not the node's code.`,
	);
	findings.push(
		`**Upload: the memory is added before the POST, and the sha256 pass is one more file's worth of it.** The POST itself adds little (Δ arrayBuffers during it: ours ${signed(pm(up20o, 'plain', (x) => x.max.arrayBuffers - x.before.arrayBuffers))}, HTTP Request ${signed(pm(up20h, 'plain', (x) => x.max.arrayBuffers - x.before.arrayBuffers))} for 20 MiB). When it starts, ${signed(upStart(up20o))} of arrayBuffers have piled up in ours since the process started (Read/Write Files' copy of the file into n8n's store, then our hash pass over the stored file for the Idempotency-Key), against ${signed(upStart(up20h))} for HTTP Request (the Read/Write Files copy only); with the tiny file both are ${signed(upStart(upTo))} / ${signed(upStart(upTh))}. The difference is our second read of the file; like the rest it is garbage (with a scavenge every 10 ms, arrayBuffers when the POST starts are ${signed(pm(up20o, 'scavenge', (x) => x.before.arrayBuffers - (x.firstSample?.arrayBuffers ?? 0)))} for ours and ${signed(pm(up20h, 'scavenge', (x) => x.before.arrayBuffers - (x.firstSample?.arrayBuffers ?? 0)))} for HTTP Request), and it is the price of a key derived from the bytes, which makes an upload replay-safe across executions.`,
	);

	const memMet = (o, h) => h > 0 && o <= 0.5 * h;
	const ok = Object.values(okAll).every(Boolean);
	const a20 = {
		dl: [added('download', 'ours', '20'), added('download', 'http', '20')],
		up: [added('upload', 'ours', '20'), added('upload', 'http', '20')],
	};
	goals.push({
		goal: 'Download memory flat: added at 100 MiB ≤ 1.2 × added at 20 MiB (main process)',
		result: `ours ${signed(added('download', 'ours', '100'))} vs ${signed(added('download', 'ours', '20'))} (×${flat('ours').toFixed(2)}); HTTP Request ×${flat('http').toFixed(2)}`,
		met: ok && flat('ours') <= 1.2,
		note:
			flat('ours') <= 1.2
				? ''
				: 'The growth from 20 to 100 MiB is garbage Buffers of the HTTP client waiting for V8 (see "Where the added memory is"): at 20 MiB no collection has run yet, at 100 MiB V8 caps the pile with a mark-compact. HTTP Request behaves the same. A node cannot call the garbage collector (n8n\'s lint forbids `global`/`process`); n8n could bound it for every node, e.g. with a smaller young generation or `--max-semi-space-size`.',
	});
	for (const [label, key] of [
		['download', 'dl'],
		['upload', 'up'],
	]) {
		const [o, h] = a20[key];
		goals.push({
			goal: `Peak memory added ≤ 0.5 × HTTP Request's (${label}, 20 MiB, main process)`,
			result: `ours ${signed(o)} vs HTTP Request ${signed(h)} (ratio ${ratio2(o, h)})`,
			met: ok && memMet(o, h),
			note: memMet(o, h)
				? ''
				: `Neither node holds the file: n8n 2.41.1's HTTP Request node streams in filesystem mode too, so this compares two streaming clients, and what both add is the same kind of garbage (part 2).${label === 'upload' ? ' Ours adds one more pass of garbage for the sha256 key.' : ''} Half of a streaming client is not reachable by streaming better.`,
		});
	}
	log(`part 2 done in ${fmtS(durations.memory)}`);
}

/** bench/http-alone.cjs with n8n's Node: peak arrayBuffers of Node's HTTP client reading a body it drops. */
async function httpAlone(nodeBin, sizes, newSpaceBytes) {
	const script = path.join(REPO, 'bench', 'http-alone.cjs');
	// V8 reports the new space of --min/max-semi-space-size=S as S MiB: ask for what n8n had
	const semiMiB = Number.isFinite(newSpaceBytes)
		? Math.max(1, Math.round(newSpaceBytes / MiB))
		: 64;
	const rows = [];
	for (const mib of sizes) {
		const one = (extra) =>
			JSON.parse(
				execFileSync(nodeBin, [...extra, script, String(mib)], { timeout: 120_000 }).toString(),
			);
		const fresh = one([]);
		const big = one([`--min-semi-space-size=${semiMiB}`, `--max-semi-space-size=${semiMiB}`]);
		rows.push({
			mib,
			fresh: fresh.peakArrayBuffers,
			big: big.peakArrayBuffers,
			freshNewSpace: fresh.newSpace,
			bigNewSpace: big.newSpace,
		});
	}
	return { node: execFileSync(nodeBin, ['--version']).toString().trim(), semiMiB, rows };
}

// ---------------------------------------------------------------------------------------------------
// Part 3: report

/** Why a batch saw some job later than one poll interval after its end, from the run's own figures. */
function detectionMiss(x, limitMs) {
	const floorMax = x.floor?.maxDetectionMs ?? NaN;
	const full = x.windows.filter((w) => w >= 60).length;
	const budget = `${full} of its ${x.windows.length} windows were used up (requests per window ${x.windows.join('/')}, the public capabilities request included)`;
	const cause =
		'between looks, creates and the downloads of jobs already seen spend the budget; the pacer keeps the last request of a window for a look that is due (nodes/shared/jobs/watcher.ts), but a window already spent on creates has none left, and the look waits for the next window';
	if (floorMax > limitMs) {
		const later = x.maxDetectionMs - floorMax;
		const than =
			later < 50 ? 'Ours is no later than that' : `Ours is ${fmtS(later)} later than that`;
		return `Partly the key's budget: the perfect client under the same windows also sees a job ${fmtS(floorMax)} after its end. ${than}: ${budget}; ${cause}. No client under these windows can look sooner without holding back creates, which would lengthen the batch.`;
	}
	return `Not the key's budget as such (the perfect client sees every job within ${fmtS(floorMax)}): ${budget}; ${cause}.`;
}

function reportBatch({ opt, results, previous, emit, goals, findings }) {
	const prevName = previous ? previous.commit.slice(0, 7) : 'n/a';
	const label = (side) =>
		side === 'ours' ? 'ours (list poll)' : `previous ${prevName} (per-job polls)`;
	emit(
		`## 3. Batch: ${opt.batchSizes.join(', ')} jobs created, waited for and downloaded by one node, from seconds ${opt.batchPhases.join(', ')} of the minute`,
	);
	emit();
	emit(
		`One Job node **Create** (text to video, Wait for Completion with its defaults: ${POLL_S} s poll, download on) fed N prompts, then Read/Write Files writes each MP4 to disk. Jobs last ${opt.batchJobS} s on the emulator (queued 1 s, then running), outputs 4 KiB. Each run uses a fresh key of 60 requests/minute in its own account, and starts near second ${opt.batchPhases.join(', ')} of the minute for ours, near ${opt.batchPhases[Math.floor(opt.batchPhases.length / 2)]} for the previous version: a Wait node after the trigger waits for that second of the clock minute (the emulator's windows are fixed clock minutes, so the phase decides how much of the first window a batch finds). **Wall** = from the run's first request to the answer of its last download (emulator journal). **Floor** = the perfect client under the same fixed one-minute windows, starting at the same second of the minute as the measured run (bench/floor.mjs): 1 capabilities (public, not counted against the key) + N creates as fast as the windows allow, one list poll every ${POLL_S} s while jobs are unfinished, each download as soon as a list poll shows its job done, polls first, then creates, then downloads; requests take no time; floor = its last download. Ours follows a batch with one \`GET /v1/jobs?limit=100\` per poll interval and starts downloads as soon as a job is seen finished (${DOWNLOAD_CONCURRENCY} at a time); the previous version (${prevName}, built and packed by the bench, installed into a separate n8n instance) creates every job, then follows them 5 at a time with one \`GET /v1/jobs/{id}\` per job per interval. Every MP4 on disk is checked against its job's \`output.sha256\` on the emulator. Violations = the emulator referee's records for the run's key.`,
	);
	emit();
	emit(
		table(
			[
				'N',
				'Version',
				'Wall',
				'Floor',
				'Wall / floor',
				'Requests by route',
				'Floor requests',
				'429',
				'Violations',
				'MP4s verified',
				'Start (s into minute)',
				'Requests per window',
				'Last create',
				'Last job ended',
				'Last job seen',
				'Detection: longest, median, jobs ≤ 5 s',
				'Floor: longest detection',
				'Floor: last create',
				'Load (1 min) at start',
				'Run',
			],
			results.map((x) => [
				x.n,
				label(x.side),
				fmtS(x.wallMs),
				fmtS(x.floor?.floorMs),
				ratio2(x.wallMs, x.floor?.floorMs),
				routeText(x.c),
				x.floor
					? `${x.floor.requests.creates} create + ${x.floor.requests.polls} list + ${x.floor.requests.downloads} download`
					: 'n/a',
				x.r429,
				x.violations ? JSON.stringify(x.vCounts) : 0,
				`${x.verified}/${x.n}`,
				x.phaseS,
				x.windows.join(' / '),
				fmtS(x.lastCreateMs),
				fmtS(x.lastEndMs),
				fmtS(x.seenLastMs),
				`${fmtS(x.maxDetectionMs)}, ${fmtS(x.medianDetectionMs)}, ${x.withinInterval}/${x.created}`,
				x.floor ? fmtS(x.floor.maxDetectionMs) : 'n/a',
				x.floor ? fmtS(x.floor.lastCreateAt - (x.floor.finishAt - x.floor.floorMs)) : 'n/a',
				x.load,
				x.ok
					? 'ok'
					: `FAILED${x.r.ok ? '' : ` (${(x.r.error?.message ?? 'no result').slice(0, 120)})`}`,
			]),
		),
	);
	emit();
	emit(
		`"Last create", "Last job ended", "Last job seen" (the first read after that end that could show it) are times from the run's first request; the rest of the wall after "Last job seen" is the download tail. "Detection" = for each job, from its end (\`updatedAt\`) to the first read that could show it (a list poll, or a GET of that job): the longest over the batch, and how many jobs were seen within one poll interval (${POLL_S} s); the floor's is the same for the perfect client, whose polls also wait when a window has no budget left.`,
	);
	emit();
	const ours = results.filter((x) => x.side === 'ours');
	const prevR = results.filter((x) => x.side === 'prev');
	for (const x of ours) {
		const p = prevR.find((y) => y.n === x.n);
		const met = x.ok && x.ratio <= 1.05 && x.r429 === 0 && x.violations === 0 && x.verified === x.n;
		const why = [];
		if (!x.ok)
			why.push(
				`the run was not clean (${x.problems.slice(0, 3).join('; ') || (x.r.error?.message ?? 'see log')})`,
			);
		if (x.ratio > 1.05 && x.lastCreateMs > 1000)
			why.push(
				`the ${x.n} creates took ${fmtS(x.lastCreateMs)} (the floor's requests take no time; n8n's request latency on this machine, load ${x.load} at the start), so the last jobs ended that much later than the floor's`,
			);
		if (x.ratio > 1.05)
			why.push(
				`wall ${fmtS(x.wallMs)} vs floor ${fmtS(x.floor?.floorMs)}: last create at ${fmtS(x.lastCreateMs)} (floor ${fmtS(x.floor.lastCreateAt - (x.floor.finishAt - x.floor.floorMs))}), last job seen at ${fmtS(x.seenLastMs)}, requests per window ${x.windows.join('/')} (${routeText(x.c)})`,
			);
		if (x.r429) why.push(`${x.r429} × 429`);
		if (x.violations) why.push(`violations ${JSON.stringify(x.vCounts)}`);
		if (x.verified !== x.n) why.push(`${x.verified}/${x.n} MP4s verified`);
		goals.push({
			goal: `Batch of ${x.n} from second ${x.phaseS} (${opt.batchJobS} s jobs, 60 req/min): wall ≤ 1.05 × floor, 0 × 429, 0 violations, every MP4 verified`,
			result: `wall ${fmtS(x.wallMs)} / floor ${fmtS(x.floor?.floorMs)} = ${ratio2(x.wallMs, x.floor?.floorMs)}; ${x.r429} × 429; ${x.violations} violations; ${x.verified}/${x.n} MP4s${p ? ` (previous version: ${ratio2(p.wallMs, p.floor?.floorMs)}, ${p.r429} × 429, ${p.violations} violations, ${p.verified}/${p.n})` : ''}`,
			met,
			note: met ? '' : why.join('; '),
		});
	}
	for (const x of ours) {
		const limitMs = POLL_S * 1000;
		const met = x.withinInterval === x.created && x.created === x.n;
		goals.push({
			goal: `Batch of ${x.n} from second ${x.phaseS}: every job's completion detected ≤ one poll interval (${POLL_S} s) after it happens`,
			result: `longest ${fmtS(x.maxDetectionMs)}, median ${fmtS(x.medianDetectionMs)}; ${x.withinInterval}/${x.n} jobs within ${POLL_S} s (floor's longest: ${fmtS(x.floor?.maxDetectionMs)})`,
			met,
			note: met ? '' : detectionMiss(x, limitMs),
		});
	}
	if (ours.length && prevR.length) {
		findings.push(
			`**Batches (part 3): list polling against per-job polling.** ${ours
				.map((x) => {
					const p = prevR.find((y) => y.n === x.n);
					return `N = ${x.n} from second ${x.phaseS}: ours ${x.total} requests in ${fmtS(x.wallMs)}${p ? `, previous ${p.total} in ${fmtS(p.wallMs)} (${p.c.get} GET /jobs/{id})` : ''}`;
				})
				.join('; ')}.`,
		);
	}
}

/** Observations about our nodes that the code shows (no figures: those are in the findings above). */
const FINDINGS = [
	"**Batches are followed through the job list.** Create with Wait for Completion (and Wait for Job) create or read every item, and one watcher per node run follows the unfinished jobs with one `GET /v1/jobs?limit=100` per poll interval (a lone job: `GET /v1/jobs/{id}`); each job's download starts as soon as a page shows it finished (nodes/shared/jobs/watcher.ts, nodes/shared/router.ts).",
	'**One pacer per API key per n8n process** (nodes/shared/transport/pacer.ts) decides when each request may leave: it learns the window from `X-RateLimit-*`, counts its own requests in flight, honours every Retry-After for the whole key, gives job reads priority over other requests and transfers the lowest.',
	"**Downloads are one pass**: the response is hashed while n8n's `prepareBinaryData` streams it into the binary store (nodes/shared/transport/download.ts); **uploads are two**: a hashing pass for the sha256-derived Idempotency-Key, then the stream as the body (nodes/shared/transport/upload.ts).",
	'**Wait after Create starts with a full interval**: the first look at a new job comes one poll interval after its create answer (always `queued`), which is right for jobs of ≥ 5 s; for very short jobs it adds up to one interval of latency (never an extra request).',
];

main().catch((error) => {
	process.stderr.write(`${error.stack ?? error}\n`);
	process.exitCode = 1;
});
