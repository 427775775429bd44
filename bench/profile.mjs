// Summarising V8 CPU profiles (`node --cpu-prof`) of `n8n execute` runs: where the CPU time of one side's
// run goes, by the code that was running (the sample's own frame: our package, n8n's engine, the HTTP
// client, Node's internals, garbage collection…) and by the functions most often on the stack.
//
// Async code has no caller on the stack after an `await`, so "time inside a node" cannot be read from the
// stacks: the summary compares whole runs of the same shape instead (ours vs HTTP Request, same items).
import fs from 'node:fs';
import path from 'node:path';

/** The kind of code a frame belongs to, from its script URL. */
export function categoryOf(frame, ownMatch) {
	const url = frame.url || '';
	const fn = frame.functionName;
	if (fn === '(idle)') return 'idle';
	if (fn === '(garbage collector)') return 'garbage collection';
	if (fn === '(program)') return 'V8 (compiler, runtime)';
	if (!url) return 'V8 (compiler, runtime)';
	if (ownMatch && url.includes(ownMatch)) return 'the node itself';
	if (url.startsWith('node:')) return 'Node.js internals (net, http, streams, timers)';
	const m = /node_modules\/((?:@[^/]+\/)?[^/]+)\//g;
	let pkg;
	for (let x = m.exec(url); x; x = m.exec(url)) pkg = x[1]; // the innermost package
	if (!pkg) return 'other';
	if (['axios', 'follow-redirects', 'form-data', 'proxy-from-env', 'agent-base'].includes(pkg))
		return 'HTTP client (axios)';
	if (pkg === 'n8n-core') return 'n8n-core (execution engine, request helpers, credentials)';
	if (pkg === 'n8n-workflow') return 'n8n-workflow (expressions, parameters)';
	if (pkg === 'n8n' || pkg.startsWith('@n8n/')) return 'n8n (CLI, database, DI)';
	if (/typeorm|sqlite|pg|better-sqlite3/.test(pkg)) return 'database drivers';
	return `other packages (${pkg})`;
}

function loadProfiles(dir) {
	if (!fs.existsSync(dir)) return [];
	return fs
		.readdirSync(dir)
		.filter((f) => f.endsWith('.cpuprofile'))
		.map((f) => JSON.parse(fs.readFileSync(path.join(dir, f), 'utf8')));
}

/**
 * Sampled ms by category (self frame), by self function, and by function on the stack (inclusive), counted
 * from the first sample inside the node's `execute` (a frame of that name whose URL holds `ownMatch`) to the end of the
 * profile: n8n's start-up (loading modules, the database) is left out; what follows is the node's run.
 */
export function analyse(profiles, ownMatch) {
	const byCategory = new Map();
	const bySelf = new Map();
	const byStack = new Map();
	let total = 0;
	let idle = 0;
	const add = (m, k, v) => m.set(k, (m.get(k) ?? 0) + v);
	for (const p of profiles) {
		const nodes = new Map(p.nodes.map((n) => [n.id, n]));
		const parent = new Map();
		for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
		const label = (n) => {
			const f = n.callFrame;
			const file = f.url ? f.url.split('/').slice(-2).join('/') : '';
			return `${f.functionName || '(anonymous)'} ${file}:${f.lineNumber + 1}`;
		};
		// the node's run starts with its `execute` (loading its module at n8n's start does not count)
		const own = new Set(
			p.nodes
				.filter(
					(n) => n.callFrame.url.includes(ownMatch) && /^execute/.test(n.callFrame.functionName),
				)
				.map((n) => n.id),
		);
		const first = p.samples.findIndex((id) => {
			for (let x = id; x !== undefined; x = parent.get(x)) if (own.has(x)) return true;
			return false;
		});
		if (first < 0) continue; // a process that never ran the node (e.g. the task runner)
		for (let i = first; i < p.samples.length; i++) {
			const ms = (p.timeDeltas[i + 1] ?? 0) / 1000; // the time until the next sample
			const n = nodes.get(p.samples[i]);
			const cat = categoryOf(n.callFrame, ownMatch);
			if (cat === 'idle') {
				idle += ms;
				continue;
			}
			total += ms;
			add(byCategory, cat, ms);
			add(bySelf, `${label(n)} [${cat}]`, ms);
			const seen = new Set();
			for (let id = n.id; id !== undefined; id = parent.get(id)) {
				const f = nodes.get(id);
				const key = label(f);
				if (seen.has(key) || f.callFrame.url === '') continue;
				seen.add(key);
				add(byStack, `${key} [${categoryOf(f.callFrame, ownMatch)}]`, ms);
			}
		}
	}
	const sorted = (m) => [...m].sort((a, b) => b[1] - a[1]);
	return {
		total,
		idle,
		byCategory: sorted(byCategory),
		bySelf: sorted(bySelf),
		byStack: sorted(byStack),
	};
}

/**
 * Markdown summary of two profiled runs of the same shape: `ours` and `http`, each { dir (under `root`),
 * match (a URL part naming the node's own code) }, `items` per run.
 */
export function summariseProfiles(root, { ours, http, items }) {
	const a = analyse(loadProfiles(path.join(root, ours.dir)), ours.match);
	const b = analyse(loadProfiles(path.join(root, http.dir)), http.match);
	const f = (ms) => `${Math.round(ms)} ms`;
	const per = (ms) => `${(ms / items).toFixed(2)} ms`;
	const lines = [];
	lines.push(
		`Sampled CPU (V8 profiler, every 0.2 ms, from the node's first sample to the end of the run, n8n's start-up left out; idle excluded): ours ${f(a.total)} (${per(a.total)} per item), HTTP Request ${f(b.total)} (${per(b.total)} per item).`,
	);
	lines.push('');
	lines.push(
		"| Code running (the sample's own frame) | ours | per item | HTTP Request | per item |",
	);
	lines.push('| --- | --- | --- | --- | --- |');
	const cats = new Set([...a.byCategory.map((x) => x[0]), ...b.byCategory.map((x) => x[0])]);
	const get = (r, k) => r.byCategory.find((x) => x[0] === k)?.[1] ?? 0;
	for (const c of [...cats].sort((x, y) => get(a, y) + get(b, y) - get(a, x) - get(b, x)))
		lines.push(
			`| ${c} | ${f(get(a, c))} | ${per(get(a, c))} | ${f(get(b, c))} | ${per(get(b, c))} |`,
		);
	lines.push('');
	const top = (title, rows, n) => {
		lines.push(`${title}:`);
		lines.push('');
		for (const [k, v] of rows.slice(0, n)) lines.push(`- ${f(v)} (${per(v)}/item) ${k}`);
		lines.push('');
	};
	top('Ours, functions by own time', a.bySelf, 15);
	top(
		'Ours, functions on the stack (inclusive, synchronous part only)',
		a.byStack.filter(([k]) => !/^\(|processTicksAndRejections|runMicrotasks|listOnTimeout/.test(k)),
		25,
	);
	top('HTTP Request, functions by own time', b.bySelf, 10);
	return { text: lines.join('\n'), ours: a, http: b };
}
