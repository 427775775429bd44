// The project's Markdown as a reader follows it: every relative link (and image) points at a file or folder
// that exists, every #anchor at a heading of the file it names (GitHub's slugs), and every `npm run <script>`
// (and `npm start` / `npm test`) at a script of package.json. test/tools/doc-links.test.mjs runs it over
// README.md, CONTRIBUTING.md and docs/*.md.
import fs from 'node:fs';
import path from 'node:path';

import { PACKAGE, REPO } from './repo.mjs';

/** The Markdown files the check reads (paths relative to the repo). */
export function docFiles(repo = REPO) {
	const docs = fs
		.readdirSync(path.join(repo, 'docs'))
		.filter((f) => f.endsWith('.md'))
		.map((f) => `docs/${f}`);
	return ['README.md', 'CONTRIBUTING.md', ...docs].filter((f) => fs.existsSync(path.join(repo, f)));
}

/** The text outside fenced code blocks, line by line (code lines become empty, so line numbers stay). */
function proseLines(text) {
	let fence = false;
	return text.split('\n').map((line) => {
		if (/^\s*(```|~~~)/.test(line)) {
			fence = !fence;
			return '';
		}
		return fence ? '' : line.replace(/`[^`]*`/g, '``');
	});
}

/** GitHub's anchor of a heading: lower case, markup and punctuation dropped, spaces as hyphens. */
export function slug(heading) {
	return heading
		.replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1') // links: their text
		.replace(/<[^>]+>/g, '') // inline HTML
		.replace(/[`*_~]/g, '')
		.trim()
		.toLowerCase()
		.replace(/[^\p{L}\p{N}\s-]/gu, '')
		.replace(/\s/g, '-');
}

/** The anchors of a Markdown text's headings, numbered as GitHub numbers repeated ones (-1, -2, …). */
export function anchorsOf(text) {
	const seen = new Map();
	const anchors = new Set();
	let fence = false;
	for (const line of text.split('\n')) {
		if (/^\s*(```|~~~)/.test(line)) fence = !fence;
		const h = !fence && /^#{1,6}\s+(.+?)\s*#*\s*$/.exec(line);
		if (!h) continue;
		const base = slug(h[1]);
		const n = seen.get(base) ?? 0;
		seen.set(base, n + 1);
		anchors.add(n ? `${base}-${n}` : base);
	}
	return anchors;
}

/** The link targets of a text: [{ line, target }] for Markdown links and images and HTML src/href. */
export function linksOf(text) {
	const out = [];
	proseLines(text).forEach((line, i) => {
		for (const m of line.matchAll(/!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g))
			out.push({ line: i + 1, target: m[1] });
		for (const m of line.matchAll(/\b(?:src|href)="([^"]+)"/g))
			out.push({ line: i + 1, target: m[1] });
	});
	return out;
}

/** A text's code, line by line: [{ line, code }] for each code block line and each code span. */
export function codeOf(text) {
	const out = [];
	let fence = false;
	text.split('\n').forEach((line, i) => {
		if (/^\s*(```|~~~)/.test(line)) {
			fence = !fence;
			return;
		}
		const code = fence ? [line] : [...line.matchAll(/`([^`]+)`/g)].map((m) => m[1]);
		for (const c of code) out.push({ line: i + 1, code: c });
	});
	return out;
}

/** The npm scripts a text names as commands, in code spans and code blocks: `npm run <name>`, `npm start`, `npm test`. */
export function scriptsNamed(text) {
	const out = [];
	for (const { line, code } of codeOf(text)) {
		for (const m of code.matchAll(/\bnpm run(?:-script)?\s+([A-Za-z0-9:_.-]+)/g))
			out.push({ line, script: m[1] });
		for (const m of code.matchAll(/\bnpm (start|test)\b/g)) out.push({ line, script: m[1] });
	}
	return out;
}

/**
 * The fenced code blocks of a Markdown text: [{ lang, code, line, intro }], `intro` the paragraph just above the
 * block (how a reader finds it: "With the official SDK …").
 */
export function codeBlocks(text) {
	const lines = text.split('\n');
	const out = [];
	for (let i = 0; i < lines.length; i++) {
		const open = /^\s*(```|~~~)\s*([\w-]*)/.exec(lines[i]);
		if (!open) continue;
		let end = i + 1;
		while (end < lines.length && !lines[end].trim().startsWith(open[1])) end++;
		let start = i - 1;
		while (start >= 0 && !lines[start].trim()) start--;
		let first = start;
		while (first > 0 && lines[first - 1].trim() && !/^\s*(```|~~~|#)/.test(lines[first - 1]))
			first--;
		out.push({
			lang: open[2],
			code: lines.slice(i + 1, end).join('\n'),
			line: i + 1,
			intro: lines.slice(first, start + 1).join(' '),
		});
		i = end;
	}
	return out;
}

/**
 * Problems of the given files, as sentences ("README.md:12: …"); empty when every link, anchor and script
 * resolves. `read(file)` gives a file's text (the repo's by default), `scripts` the package.json scripts.
 */
export function docProblems(
	files = docFiles(),
	{
		repo = REPO,
		read = (f) => fs.readFileSync(path.join(repo, f), 'utf8'),
		scripts = PACKAGE.scripts,
	} = {},
) {
	const problems = [];
	const anchorCache = new Map();
	const anchorsOfFile = (file) => {
		if (!anchorCache.has(file)) anchorCache.set(file, anchorsOf(read(file)));
		return anchorCache.get(file);
	};
	for (const file of files) {
		const text = read(file);
		for (const { line, target } of linksOf(text)) {
			if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // https:, mailto:, …
			const [rawPath, anchor] = target.split('#');
			const rel = rawPath
				? path.posix.normalize(path.posix.join(path.posix.dirname(file), decodeURI(rawPath)))
				: file;
			if (rel.startsWith('..') || !fs.existsSync(path.join(repo, rel))) {
				problems.push(`${file}:${line}: ${target}: no file ${rel}`);
				continue;
			}
			if (anchor === undefined) continue;
			if (!rel.endsWith('.md')) {
				problems.push(`${file}:${line}: ${target}: an anchor into a file that is not Markdown`);
				continue;
			}
			if (!anchorsOfFile(rel).has(anchor))
				problems.push(
					`${file}:${line}: ${target}: no heading with the anchor #${anchor} in ${rel}`,
				);
		}
		for (const { line, script } of scriptsNamed(text)) {
			if (!Object.hasOwn(scripts, script))
				problems.push(
					`${file}:${line}: npm ${script === 'start' || script === 'test' ? '' : 'run '}${script}: no such script in package.json`,
				);
		}
	}
	return problems;
}
