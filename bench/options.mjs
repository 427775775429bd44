// The command line of `npm run bench`, read by tools/lib/cli.mjs: the options every run has (--only, --out,
// --no-write, --help, --doc) and those each part declares in its module (`options`: [{ flags, key, parse, default,
// fullIf, help }]). A run is "full" (it writes docs/benchmarks.md) when it runs every part but the opt-in ones
// (`optIn`, run only when --only names them) and each option of the parts it runs passes its `fullIf` (by
// default: the option has its default value).
import path from 'node:path';

import { UsageError, parseCommandLine } from '../tools/lib/cli.mjs';

/** "10,30,60" -> [10, 30, 60] */
export const numbers = (v) => v.split(',').map(Number);
/** "a,b," -> ['a', 'b'] */
export const names = (v) => v.split(',').filter(Boolean);
/** For options that any full run may set (where files go, not what is measured). */
export const anyValue = () => true;

/** Options of the run itself (besides --only, --out, --no-write, --help). */
const RUN_OPTIONS = [
	// the previous version, for the parts that compare with it (needsPrevious)
	{
		flags: ['previous'],
		key: 'previous',
		parse: (v) => v,
		default: '6d65147',
		value: 'COMMIT',
		help: 'the previous version the parts compare with',
	},
	// write the chosen parts' own sections (and goal rows) into docs/benchmarks.md (bench/doc-section.mjs)
	{
		flags: ['doc'],
		key: 'doc',
		boolean: true,
		default: false,
		fullIf: anyValue,
		help: "write the chosen parts' own sections of docs/benchmarks.md (with --only)",
	},
];

/** The command line of `npm run bench` (tools/lib/cli.mjs): the run's options, then each part's. */
export function benchCommand(parts) {
	const specs = [...RUN_OPTIONS, ...parts.flatMap((p) => p.options ?? [])];
	const options = {
		only: {
			type: 'string',
			value: 'PARTS',
			help: `the parts to run, of ${parts.map((p) => p.name).join(', ')} (default all but ${parts
				.filter((p) => p.optIn)
				.map((p) => p.name)
				.join(', ')}: run only when named)`,
		},
		out: { type: 'string', value: 'FILE', help: 'write the report there' },
		'no-write': { type: 'boolean', help: 'write no report (a full run writes docs/benchmarks.md)' },
	};
	for (const s of specs)
		s.flags.forEach((flag, k) => {
			options[flag] = s.boolean
				? { type: 'boolean', help: s.help }
				: {
						type: 'string',
						value: s.value ?? (Array.isArray(s.default) ? 'A,B' : 'N'),
						parse: s.parse,
						help: k === 0 ? `${s.help}${fmtDefault(s.default)}` : `the old name of --${s.flags[0]}`,
					};
		});
	return {
		command: 'npm run bench',
		summary:
			"Benchmarks in real n8n 2.41.1 against the local emulator: our nodes beside n8n's own (HTTP Request + Wait +\n" +
			'IF) and beside the previous version of this package. Prints a table per part; a full default run writes\n' +
			'docs/benchmarks.md with exactly those figures. One n8n process at a time (parts 6 and 7: one queue-mode stack).',
		options,
		notes: [
			'e.g. npm run bench                              all parts but 7, writes docs/benchmarks.md',
			'     npm run bench -- --only=requests,batch     some parts; prints only',
			'     npm run bench -- --only=queue --doc        part 6 alone; replaces only its section, goal rows,',
			'                                                findings and charts in docs/benchmarks.md',
			'     npm run bench -- --only=thousand --thousand-jobs=1000 --doc',
			'                                                part 7 as documented (more than an hour); also',
			"                                                writes docs/scale.md's table",
			'     npm run bench -- --only=thousand --thousand-jobs=1000 --thousand-workers=2,4,8',
			'          --thousand-runs=items,executions,items-base,executions-base,items-large --doc',
			'                                                the same at 2, 4 and 8 workers (a fresh stack per',
			'                                                run), then 10,000 items in one execution on one',
			"                                                worker (hours); docs/scale.md's block gets both",
			'     npm run bench -- <the same> --thousand-dump=DIR --thousand-reuse=DIR',
			'                                                the same over several sessions: each run goes',
			'                                                into DIR as it ends; the same command next time',
			'                                                runs only those DIR holds no record of (the same',
			'                                                settings and package sources, not failed), and',
			'                                                the section says which came from which session',
		],
	};
}

const fmtDefault = (v) =>
	v === undefined || v === false ? '' : ` (default ${Array.isArray(v) ? v.join(',') : v})`;

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
	const parsed = parseCommandLine(benchCommand(parts), argv);
	if (parsed.help) return { help: true };
	const given = parsed.options;
	const o = {
		only: given.only === undefined ? byDefault : names(given.only),
		out: given.out,
		write: !given['no-write'],
	};
	for (const s of specs) {
		const flag = s.flags.find((f) => given[f] !== undefined && given[f] !== false);
		o[s.key] = flag === undefined ? s.default : given[flag];
	}
	for (const p of o.only)
		if (!partNames.includes(p)) throw new UsageError(`unknown part ${p} (${partNames})`);
	for (const part of parts) part.check?.(o);
	const noSection = o.only.filter((p) => !parts.find((x) => x.name === p).docSection);
	if (o.doc && noSection.length)
		throw new UsageError(
			`--doc: ${noSection.join(', ')} ha${noSection.length > 1 ? 've' : 's'} no section of its own in docs/benchmarks.md (only ${parts.filter((p) => p.docSection).map((p) => p.name)}); use --only`,
		);
	// --out writes the whole report to its file and nothing into docs/: with --doc, one of the two would be ignored
	if (o.doc && o.out)
		throw new UsageError(
			"--doc and --out: --doc writes the parts' sections into docs/benchmarks.md, --out the report to a file; give one",
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
