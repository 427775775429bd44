// The command line of every command of the repository (scripts/*.mjs, emulator/cli.mjs), said once: the
// options declared in one place, read with Node's util.parseArgs, the usage written from the same
// declaration, `--help` / `-h` answered with it (exit 0, before anything starts), and a wrong argument turned
// into one line of English and the usage on stderr (exit 2), never a stack trace.
//
// A command is { command, summary, options, args, rest, notes }:
//   command   how a user types it: 'npm start', 'node scripts/queue-host.mjs'
//   summary   what it does, one or two lines
//   options   { name: { type: 'string' | 'boolean', value: 'PORT', default, help, parse(text, flag) } }; a
//             string option's `parse` turns its text into the value and throws UsageError when it cannot
//   args      positional words in order: [{ name, help, required, choices: { word: help } }]
//   rest      words after a lone `--`, handed on as they are (e.g. 'JEST ARGS'); without it `--` is refused
//   notes     lines printed after the options (examples, environment variables)
import { parseArgs } from 'node:util';

/** A wrong command line: its message (one line) and the usage are printed, exit 2. */
export class UsageError extends Error {}

const HELP = { type: 'boolean', short: 'h', help: 'print this text and exit (nothing starts)' };

/** A string option's parser: a whole number from `min` to `max`. */
export const integer =
	({ min = 0, max = Number.MAX_SAFE_INTEGER } = {}) =>
	(text, flag) => {
		const n = Number(text);
		if (!/^-?\d+$/.test(text) || n < min || n > max)
			throw new UsageError(
				`${flag} takes a whole number ${max === Number.MAX_SAFE_INTEGER ? `≥ ${min}` : `from ${min} to ${max}`}, not "${text}"`,
			);
		return n;
	};

/** A string option's parser: one of `words`. */
export const oneOf = (words) => (text, flag) => {
	if (!words.includes(text)) throw new UsageError(`${flag} takes ${listOr(words)}, not "${text}"`);
	return text;
};

const listOr = (words) =>
	words.length < 2 ? words.join('') : `${words.slice(0, -1).join(', ')} or ${words.at(-1)}`;

const optionsOf = (cmd) => ({ ...cmd.options, help: HELP });

/** The usage text of a command, written from its declaration. */
export function usage(cmd) {
	const args = (cmd.args ?? []).map((a) => (a.required ? `<${a.name}>` : `[${a.name}]`));
	const hasOptions = Object.keys(cmd.options ?? {}).length > 0;
	// npm hands the words after `--` to the script
	const sep = cmd.command.startsWith('npm ') ? ' --' : '';
	const line = [
		`usage: ${cmd.command}${sep}`,
		...args,
		hasOptions ? '[options]' : '[--help]',
		...(cmd.rest ? [`[-- ${cmd.rest}]`] : []),
	].join(' ');
	const rows = [];
	for (const a of cmd.args ?? []) {
		if (a.choices) for (const [word, help] of Object.entries(a.choices)) rows.push([word, help]);
		else rows.push([a.required ? `<${a.name}>` : `[${a.name}]`, a.help ?? '']);
	}
	const optionRows = Object.entries(optionsOf(cmd)).map(([name, o]) => {
		const flag = `${o.short ? `-${o.short}, ` : ''}--${name}${o.type === 'string' ? ` ${o.value ?? 'VALUE'}` : ''}`;
		const dflt = o.default !== undefined && o.type === 'string' ? ` (default ${o.default})` : '';
		return [flag, `${o.help ?? ''}${dflt}`];
	});
	const width = Math.max(...[...rows, ...optionRows].map(([left]) => left.length)) + 3;
	const table = (list) =>
		list.map(([left, right]) =>
			`  ${left.padEnd(width)}${right}`.replace(/\n/g, `\n  ${' '.repeat(width)}`),
		);
	return [
		line,
		'',
		cmd.summary,
		...(rows.length ? ['', ...table(rows)] : []),
		'',
		'options:',
		...table(optionRows),
		...(cmd.notes?.length ? ['', ...cmd.notes] : []),
	].join('\n');
}

/**
 * Reads `argv` for `cmd`: { help: true } when asked, else { options, args, positionals, rest } — every option
 * with its default when not given, parsed by its `parse`. Throws UsageError (one line) for anything else.
 */
export function parseCommandLine(cmd, argv) {
	const declared = optionsOf(cmd);
	const rest = cmd.rest && argv.includes('--') ? argv.slice(argv.indexOf('--') + 1) : [];
	const words = cmd.rest && argv.includes('--') ? argv.slice(0, argv.indexOf('--')) : argv;
	// non-strict with tokens: every problem found here, in English, in the order it was typed
	const { tokens } = parseArgs({
		args: words,
		options: Object.fromEntries(
			Object.entries(declared).map(([name, o]) => [
				name,
				{ type: o.type, ...(o.short && { short: o.short }) },
			]),
		),
		strict: false,
		allowPositionals: true,
		tokens: true,
	});
	if (tokens.some((t) => t.kind === 'option' && t.name === 'help')) return { help: true };
	const given = {};
	const positionals = [];
	for (const t of tokens) {
		if (t.kind === 'option-terminator')
			throw new UsageError(`unexpected "--" (${cmd.command} takes nothing after it)`);
		if (t.kind === 'positional') {
			positionals.push(t.value);
			continue;
		}
		const o = declared[t.name];
		if (!o || (!t.rawName.startsWith('--') && !o.short))
			throw new UsageError(`unknown option ${t.rawName}`);
		if (o.type === 'boolean') {
			if (t.inlineValue) throw new UsageError(`${t.rawName} takes no value`);
			given[t.name] = true;
		} else {
			if (t.value === undefined || (!t.inlineValue && t.value.startsWith('-')))
				throw new UsageError(`${t.rawName} needs a value: ${t.rawName} ${o.value ?? 'VALUE'}`);
			given[t.name] = o.parse ? o.parse(t.value, t.rawName) : t.value;
		}
	}
	const specs = cmd.args ?? [];
	if (!cmd.extraArgs && positionals.length > specs.length)
		throw new UsageError(`unexpected argument ${positionals[specs.length]}`);
	const args = {};
	specs.forEach((a, k) => {
		const word = positionals[k];
		if (word === undefined) {
			if (a.required) throw new UsageError(`missing <${a.name}>`);
			return;
		}
		if (a.choices && !Object.hasOwn(a.choices, word))
			throw new UsageError(`<${a.name}> is ${listOr(Object.keys(a.choices))}, not "${word}"`);
		args[a.name] = word;
	});
	const options = {};
	for (const [name, o] of Object.entries(cmd.options ?? {}))
		options[name] =
			name in given
				? given[name]
				: o.type === 'string' && o.default !== undefined && o.parse
					? o.parse(String(o.default), `--${name}`)
					: (o.default ?? (o.type === 'boolean' ? false : undefined));
	return { options, args, positionals, rest };
}

/**
 * Runs a command: reads the command line (`--help`: the usage, exit 0; a wrong one: one line and the usage on
 * stderr, exit 2), then `main(parsed)`. A number `main` returns is the exit code (the process exits with it);
 * undefined leaves the process running (a server until Ctrl-C). A UsageError `main` throws is reported like a
 * wrong command line; any other error with its stack (exit 1).
 */
export async function runCommand(cmd, main, argv = process.argv.slice(2)) {
	const refuse = (error) => {
		process.stderr.write(`${cmd.command}: ${error.message}\n\n${usage(cmd)}\n`);
		process.exit(2);
	};
	let parsed;
	try {
		parsed = parseCommandLine(cmd, argv);
	} catch (error) {
		if (error instanceof UsageError) refuse(error);
		throw error;
	}
	if (parsed.help) {
		process.stdout.write(`${usage(cmd)}\n`);
		process.exit(0);
	}
	try {
		const code = await main(parsed);
		if (typeof code === 'number') process.exit(code);
	} catch (error) {
		if (error instanceof UsageError) refuse(error);
		process.stderr.write(`${error?.stack ?? error}\n`);
		process.exit(1);
	}
}
