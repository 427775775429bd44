// What an n8n execution produced: `n8n execute --rawOutput` prints its run data among log lines, and n8n's
// REST API returns executions with it; these read items and errors out of it.
import { createRequire } from 'node:module';
import path from 'node:path';

/**
 * Extract the run data JSON from `n8n execute --rawOutput` stdout, which also carries log lines.
 * Takes every JSON object or array that starts at the beginning of a line, parses the balanced text, and
 * returns the best candidate: the one that looks like run data (has data.resultData), else the longest.
 */
export function extractResult(stdout) {
	const candidates = [];
	for (let i = 0; i < stdout.length; i++) {
		const ch = stdout[i];
		if ((ch !== '{' && ch !== '[') || (i > 0 && stdout[i - 1] !== '\n')) continue;
		const end = balancedEnd(stdout, i);
		if (end < 0) continue;
		const text = stdout.slice(i, end + 1);
		try {
			candidates.push({ value: JSON.parse(text), length: text.length });
			i = end;
		} catch {
			/* a log line that happens to start with a brace */
		}
	}
	if (!candidates.length) return undefined;
	const runLike = candidates.filter(
		(c) => c.value && typeof c.value === 'object' && c.value.data?.resultData,
	);
	const pool = runLike.length ? runLike : candidates;
	return pool.reduce((a, b) => (b.length > a.length ? b : a)).value;
}

function balancedEnd(s, start) {
	let depth = 0;
	let inStr = false;
	for (let i = start; i < s.length; i++) {
		const c = s[i];
		if (inStr) {
			if (c === '\\') i++;
			else if (c === '"') inStr = false;
			continue;
		}
		if (c === '"') inStr = true;
		else if (c === '{' || c === '[') depth++;
		else if (c === '}' || c === ']') {
			depth--;
			if (depth === 0) return i;
		}
	}
	return -1;
}

/** Items (json) a node produced in its last run, output `outputIndex` (default 0). */
export function nodeOutput(result, nodeName, outputIndex = 0) {
	const runs = result?.data?.resultData?.runData?.[nodeName];
	if (!runs?.length) return undefined;
	const last = runs[runs.length - 1];
	return (last.data?.main?.[outputIndex] ?? []).map((item) => item.json);
}

/** The error of the run (workflow-level), or of any node, or undefined. */
export function runError(result) {
	const rd = result?.data?.resultData;
	if (!rd) return undefined;
	if (rd.error) return rd.error;
	if (result.status === 'error' || result.status === 'crashed')
		return { message: `execution status ${result.status}` };
	for (const [node, runs] of Object.entries(rd.runData ?? {})) {
		for (const r of runs) if (r.error) return { node, ...r.error };
	}
	return undefined;
}

/** Items a node output in an execution (REST, parsed run data). */
export function itemsOf(execution, nodeName) {
	const runs = execution.data?.resultData?.runData?.[nodeName] ?? [];
	return runs.flatMap((r) => r.data?.main?.[0] ?? []);
}

const flattedOf = new Map();

/** n8n stores an execution's data "flatted": parse it with the flatted of the n8n host in `hostDir`. */
export function parseFlatted(hostDir, text) {
	if (!flattedOf.has(hostDir)) {
		const requireFromN8n = createRequire(path.join(hostDir, 'node_modules', 'n8n', 'package.json'));
		flattedOf.set(hostDir, requireFromN8n('flatted').parse);
	}
	return flattedOf.get(hostDir)(text);
}
