// A smoke check of an n8n host with n8n's own nodes only (Manual Trigger -> Set with an expression -> Code
// in the task runner), timed: `node scripts/n8n-host.mjs smoke`.
import { dirSize, ensureHost } from './hosts.mjs';
import { fmtMs, lastLines } from './format.mjs';
import { createInstance } from './instance.mjs';
import { nodeOutput } from './run-data.mjs';
import { code, manualTrigger, set, workflow } from './workflow.mjs';

const defaultLog = (msg) => process.stderr.write(`[n8n-host] ${msg}\n`);
const mb = (b) => (b ? `${Math.round(b / 1024 / 1024)} MB` : '?');

export const builtinSmokeWorkflow = (id = 'gsSmokeBuiltin') =>
	workflow({
		id,
		name: `Smoke ${id}`,
		ids: (k) => `${k}f5532f9-36ba-4bef-86c7-30d607400b15`,
		nodes: [
			manualTrigger(),
			set('Set', [
				{ id: 'a1', name: 'greeting', value: 'hello', type: 'string' },
				{ id: 'a2', name: 'sum', value: '={{ 1 + 2 }}', type: 'number' },
			]),
			code(
				'Code',
				'const first = $input.first().json;\nreturn [1, 2, 3].map((n) => ({ json: { ...first, n, product: first.sum * n } }));',
			),
		],
	});

/** Throws unless `items` is the Code node output of builtinSmokeWorkflow. */
export function checkSmokeOutput(items) {
	const want = [1, 2, 3].map((n) => ({ greeting: 'hello', sum: 3, n, product: 3 * n }));
	if (JSON.stringify(items) !== JSON.stringify(want)) {
		throw new Error(
			`unexpected Code output ${JSON.stringify(items)}; want ${JSON.stringify(want)}`,
		);
	}
}

/** Installs (when needed) and smoke-tests each host of `versions`; prints a report; resolves 0 or 1. */
export async function smoke(versions, { runs = 2, log = defaultLog } = {}) {
	const report = [];
	let failed = false;
	for (const version of versions) {
		const line = { version };
		try {
			const t0 = Date.now();
			const host = await ensureHost({ version, log });
			line.n8n = host.n8nVersion;
			line.install = `${host.fresh ? 'cold' : 'warm'} ${fmtMs(Date.now() - t0)}`;
			const inst = await createInstance({ version, log });
			try {
				const c = await inst.importCredentials([
					{
						id: 'gsSmokeCred',
						name: 'Smoke header auth',
						type: 'httpHeaderAuth',
						data: { name: 'X-Smoke', value: 'secret' },
					},
				]);
				line.importCredentials = fmtMs(c.ms);
				const w = await inst.importWorkflow(builtinSmokeWorkflow());
				line.importWorkflow = fmtMs(w.ms);
				line.executes = [];
				for (let i = 0; i < runs; i++) {
					const r = await inst.execute('gsSmokeBuiltin');
					const items = nodeOutput(r.result, 'Code');
					if (!r.ok)
						throw new Error(
							`execute failed (exit ${r.exitCode}${r.signal ? ` ${r.signal}` : ''}): ${JSON.stringify(r.error) ?? lastLines(r.stdout + '\n' + r.stderr, 30)}`,
						);
					checkSmokeOutput(items);
					if (i === 0) log(`n8n ${host.n8nVersion}: Code output ${JSON.stringify(items)}`);
					line.executes.push(
						`${fmtMs(r.ms)} exit=${r.exitCode}${r.signal ? `/${r.signal}` : ''}${r.crashedAfterResult ? ' (crashed after printing the result)' : ''} peakRSS=${mb(r.peakRssBytes)}`,
					);
				}
			} finally {
				await inst.close();
			}
			line.disk = mb(await dirSize(host.dir));
			line.result = 'ok';
		} catch (e) {
			failed = true;
			line.result = `FAILED: ${e.message}`;
		}
		report.push(line);
		log(`smoke n8n host ${version}: ${JSON.stringify(line, null, 2)}`);
	}
	console.log('\nn8n host smoke report');
	for (const l of report) {
		console.log(`- host ${l.version} (n8n ${l.n8n ?? '?'}): ${l.result}`);
		if (l.install) console.log(`    install/reuse: ${l.install}; disk ${l.disk ?? '?'}`);
		if (l.importCredentials)
			console.log(
				`    import:credentials ${l.importCredentials}; import:workflow ${l.importWorkflow ?? '?'}`,
			);
		for (const [i, e] of (l.executes ?? []).entries()) console.log(`    execute #${i + 1}: ${e}`);
	}
	return failed ? 1 : 0;
}
