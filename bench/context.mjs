// What every part of `npm run bench` is handed (`ctx`): the options, the emulator, the packed package
// (`tarball`, for a part that starts its own n8n: a queue or regular stack of tools/lib), the n8n instance of
// the package under test (`cur`) and of the previous version (`prev`, when a part asked for it), a folder for
// files, the report; keys and credentials to make before the imports; one measured `n8n execute` run; the
// emulator's journal and referee records of one key.
import { executeMeasured, fmtMiB, fmtS } from './measure.mjs';
import { log, ms1 } from './report.mjs';
import * as W from './workflows.mjs';

/** Our nodes' default poll interval (Wait for Completion), in seconds. */
export const POLL_S = 5;

/** A credential of our type for the emulator at `baseUrl`. */
export const ourCredential = (id, secret, baseUrl) => ({
	id,
	name: id,
	type: W.OUR_CRED_TYPE,
	data: { apiKey: secret, baseUrl },
});

/** A Header Auth credential (n8n's own, `Authorization: Bearer <secret>`) for the baseline workflows. */
export const baseCredential = (id, secret) => ({
	id,
	name: id,
	type: W.BASE_CRED_TYPE,
	data: { name: 'Authorization', value: `Bearer ${secret}` },
});

export function benchContext({ opt, emu, tarball, cur, prev, previous, files, report }) {
	const creds = { cur: [], prev: [] };
	const keys = {};
	const ctx = {
		opt,
		emu,
		tarball,
		cur,
		prev,
		previous,
		files,
		report,
		emit: report.emit,
		log,
		keys,
		creds,
		/** A key on the emulator, kept in ctx.keys[name]. */
		key: (name, o) => (keys[name] = emu.control.createKey({ label: name, ...o })),
		/** A credential of our type, imported into the instance `where` ('cur' or 'prev'). */
		ourCred: (id, secret, where = 'cur') =>
			creds[where].push(ourCredential(id, secret, emu.baseUrl)),
		/** A Header Auth credential, imported into `cur`. */
		baseCred: (id, secret) => creds.cur.push(baseCredential(id, secret)),
		/** One measured `n8n execute` of workflow `id` on `inst`, logged. */
		run: async (id, o = {}, inst = cur) => {
			const r = await executeMeasured(inst, id, o);
			log(
				`  ${inst === prev ? '(previous) ' : ''}${id}: ${r.ok ? 'ok' : 'FAILED'} ${fmtS(r.ms)} peak ${fmtMiB(r.peakRssBytes)} (main ${fmtMiB(r.mainPeakRssBytes)}) cpu ${ms1(r.cpuMs)}${r.signal ? ` (${r.signal})` : ''}`,
			);
			return r;
		},
		journalOf: (keyId) => emu.control.journal().filter((e) => e.keyId === keyId),
		violationsOf: (keyId) => emu.control.violations().filter((v) => v.keyId === keyId),
		failText: (r) =>
			r.ok ? '' : JSON.stringify(r.error ?? { stderr: r.stderr.slice(-1500) }).slice(0, 1500),
	};
	return ctx;
}
