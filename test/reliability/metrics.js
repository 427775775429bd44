// Collects the reliability figures the suites measure (faults injected, duplicate jobs, lost outputs,
// refusals, key leaks). Plain JS on purpose: it appends to a file, which the TS lint rules forbid in
// test code. No-op unless GS_RELIABILITY_OUT names a file (set by scripts/reliability-report.mjs).
const fs = require('node:fs');

function record(kind, data) {
	const out = process.env.GS_RELIABILITY_OUT;
	if (!out) return;
	fs.appendFileSync(out, JSON.stringify({ kind, ...data }) + '\n');
}

module.exports = { record };
