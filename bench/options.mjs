// The command line of `npm run bench`: the options every run has (--only, --out, --no-write, --help, --doc) and
// those each part declares in its module (`options`: [{ flags, key, parse, default, fullIf }]). A run is
// "full" (it writes docs/benchmarks.md) when it runs every part but the opt-in ones (`optIn`, run only when
// --only names them) and each option of the parts it runs passes its `fullIf` (by default: the option has
// its default value).
import path from 'node:path';

/** "10,30,60" -> [10, 30, 60] */
export const numbers = (v) => v.split(',').map(Number);
/** "a,b," -> ['a', 'b'] */
export const names = (v) => v.split(',').filter(Boolean);
/** For options that any full run may set (where files go, not what is measured). */
export const anyValue = () => true;

/** Options of the run itself (besides --only, --out, --no-write, --help). */
const RUN_OPTIONS = [
	// the previous version, for the parts that compare with it (needsPrevious)
	{ flags: ['previous'], key: 'previous', parse: (v) => v, default: '6d65147' },
	// write the chosen parts' own sections (and goal rows) into docs/benchmarks.md (bench/doc-section.mjs)
	{ flags: ['doc'], key: 'doc', parse: () => true, default: false, fullIf: anyValue },
];

const isDefault = (spec) => (value) => String(value) === String(spec.default);

/**
 * Options of a run from argv, or { help: true }. `parts` are the part modules (parts/index.mjs); `outDefault`
 * is where a full run writes its report unless --out says or --no-write.
 */
export function parseArgs(argv, parts, outDefault) {
	const partNames = parts.map((p) => p.name);
	// a part with `optIn` (hours long: part 7) runs only when --only names it
	const byDefault = parts.filter((p) => !p.optIn).map((p) => p.name);
	const specs = [...RUN_OPTIONS, ...parts.flatMap((p) => p.options ?? [])];
	const o = { only: byDefault, out: undefined, write: true };
	for (const s of specs) o[s.key] = s.default;
	for (const a of argv) {
		const [k, v = ''] = a.replace(/^--/, '').split('=');
		const spec = specs.find((s) => s.flags.includes(k));
		if (k === 'only') o.only = names(v);
		else if (k === 'out') o.out = v;
		else if (k === 'no-write') o.write = false;
		else if (k === 'help' || k === 'h') return { help: true };
		else if (spec) o[spec.key] = spec.parse(v);
		else throw new Error(`unknown option ${a}`);
	}
	for (const p of o.only)
		if (!partNames.includes(p)) throw new Error(`unknown part ${p} (${partNames})`);
	for (const part of parts) part.check?.(o);
	const noSection = o.only.filter((p) => !parts.find((x) => x.name === p).docSection);
	if (o.doc && noSection.length)
		throw new Error(
			`--doc: ${noSection.join(', ')} ha${noSection.length > 1 ? 've' : 's'} no section of its own in docs/benchmarks.md (only ${parts.filter((p) => p.docSection).map((p) => p.name)}); use --only`,
		);
	const runSpecs = [
		...RUN_OPTIONS,
		...parts.filter((p) => o.only.includes(p.name)).flatMap((p) => p.options ?? []),
	];
	o.full =
		byDefault.every((p) => o.only.includes(p)) &&
		runSpecs.every((s) => (s.fullIf ?? isDefault(s))(o[s.key]));
	// docs/benchmarks.md only from a full default run (or wherever --out says)
	o.outFile = o.out ? path.resolve(o.out) : o.full && o.write ? outDefault : undefined;
	return o;
}
