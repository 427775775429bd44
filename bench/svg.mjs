// Charts for docs/benchmarks.md as SVG text, written by hand (no dependency): a line chart (step series,
// e.g. MP4s finished over time, with horizontal/vertical reference lines such as the floor) and a grouped
// bar chart (e.g. memory added by file size, ours beside HTTP Request). Pure functions: data in, text out.

export const WIDTH = 640;
export const HEIGHT = 360;
/** Plot area inside the picture: left, top, right, bottom margins. */
export const MARGIN = { left: 60, top: 40, right: 20, bottom: 60 };
const COLORS = ['#1f77b4', '#ff7f0e', '#2ca02c', '#d62728', '#9467bd'];

/** Text safe inside an SVG element or attribute. */
export const escapeXml = (s) =>
	String(s)
		.replace(/&/g, '&amp;')
		.replace(/</g, '&lt;')
		.replace(/>/g, '&gt;')
		.replace(/"/g, '&quot;')
		.replace(/'/g, '&apos;');

const r2 = (v) => Math.round(v * 100) / 100;

/** A linear map of [d0, d1] onto [p0, p1] (pixels). */
export function scale(d0, d1, p0, p1) {
	const span = d1 - d0 || 1;
	return (v) => r2(p0 + ((v - d0) / span) * (p1 - p0));
}

/** Round tick values from 0 to at least `max`: about `count` steps of 1, 2 or 5 × 10^k. */
export function ticks(max, count = 5) {
	if (!(max > 0)) return [0, 1];
	const raw = max / count;
	const mag = 10 ** Math.floor(Math.log10(raw));
	const step = [1, 2, 5, 10].map((m) => m * mag).find((s) => s >= raw);
	const out = [];
	for (let v = 0; v < max + step - 1e-9; v += step) out.push(r2(v));
	return out;
}

/** The plot area's x and y maps for data going from 0 to xMax and 0 to yMax (ticked). */
export function frame(xMax, yMax) {
	const xs = ticks(xMax);
	const ys = ticks(yMax);
	const x = scale(0, xs[xs.length - 1], MARGIN.left, WIDTH - MARGIN.right);
	const y = scale(0, ys[ys.length - 1], HEIGHT - MARGIN.bottom, MARGIN.top);
	return { x, y, xs, ys };
}

const text = (x, y, s, attrs = '') =>
	`<text x="${x}" y="${y}" ${attrs}font-family="sans-serif" font-size="12">${escapeXml(s)}</text>`;

function axes({ x, y, xs, ys }, title, xLabel, yLabel) {
	const out = [];
	const x0 = MARGIN.left;
	const y0 = HEIGHT - MARGIN.bottom;
	out.push(text(WIDTH / 2, 22, title, 'text-anchor="middle" font-weight="bold" '));
	for (const v of ys) {
		out.push(
			`<line x1="${x0}" y1="${y(v)}" x2="${WIDTH - MARGIN.right}" y2="${y(v)}" stroke="#ddd"/>`,
		);
		out.push(text(x0 - 6, y(v) + 4, v, 'text-anchor="end" '));
	}
	for (const v of xs ?? []) out.push(text(x(v), y0 + 16, v, 'text-anchor="middle" '));
	out.push(`<line x1="${x0}" y1="${y0}" x2="${WIDTH - MARGIN.right}" y2="${y0}" stroke="#333"/>`);
	out.push(`<line x1="${x0}" y1="${MARGIN.top}" x2="${x0}" y2="${y0}" stroke="#333"/>`);
	out.push(text(WIDTH / 2, HEIGHT - 24, xLabel, 'text-anchor="middle" '));
	out.push(
		text(16, HEIGHT / 2, yLabel, `text-anchor="middle" transform="rotate(-90 16 ${HEIGHT / 2})" `),
	);
	return out;
}

function legend(names) {
	// 180 px an entry, narrower when more entries would not fit in the width
	const step = Math.min(180, Math.floor((WIDTH - MARGIN.left - 20) / Math.max(1, names.length)));
	return names.map((n, i) => {
		const lx = MARGIN.left + 10 + i * step;
		const ly = HEIGHT - 8;
		return `<rect x="${lx}" y="${ly - 9}" width="10" height="10" fill="${COLORS[i % COLORS.length]}"/>${text(lx + 14, ly, n)}`;
	});
}

const svg = (title, body) =>
	`<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${HEIGHT}" viewBox="0 0 ${WIDTH} ${HEIGHT}" role="img" aria-label="${escapeXml(title)}">\n<rect width="${WIDTH}" height="${HEIGHT}" fill="#fff"/>\n${body.join('\n')}\n</svg>\n`;

/**
 * A line chart: `series` [{ name, points: [[x, y], …] }] drawn as steps (a count that rises at each x);
 * `hlines` / `vlines` [{ at, label }] are dashed reference lines (e.g. the floor).
 */
export function lineChart({ title, xLabel, yLabel, series, hlines = [], vlines = [] }) {
	const all = series.flatMap((s) => s.points);
	const xMax = Math.max(0, ...all.map((p) => p[0]), ...vlines.map((l) => l.at));
	const yMax = Math.max(0, ...all.map((p) => p[1]), ...hlines.map((l) => l.at));
	const f = frame(xMax, yMax);
	const body = axes(f, title, xLabel, yLabel);
	series.forEach((s, i) => {
		let d = '';
		let prevY;
		for (const [px, py] of s.points) {
			if (!d) d = `M${f.x(px)},${f.y(py)}`;
			else d += ` L${f.x(px)},${f.y(prevY)} L${f.x(px)},${f.y(py)}`;
			prevY = py;
		}
		if (d)
			body.push(
				`<path d="${d}" fill="none" stroke="${COLORS[i % COLORS.length]}" stroke-width="2"><title>${escapeXml(s.name)}</title></path>`,
			);
	});
	for (const l of hlines) {
		body.push(
			`<line x1="${MARGIN.left}" y1="${f.y(l.at)}" x2="${WIDTH - MARGIN.right}" y2="${f.y(l.at)}" stroke="#555" stroke-dasharray="4 3"/>`,
		);
		body.push(text(WIDTH - MARGIN.right - 4, f.y(l.at) - 4, l.label, 'text-anchor="end" '));
	}
	for (const l of vlines) {
		body.push(
			`<line x1="${f.x(l.at)}" y1="${MARGIN.top}" x2="${f.x(l.at)}" y2="${HEIGHT - MARGIN.bottom}" stroke="#555" stroke-dasharray="4 3"/>`,
		);
		body.push(text(f.x(l.at) - 4, MARGIN.top + 12, l.label, 'text-anchor="end" '));
	}
	body.push(...legend(series.map((s) => s.name)));
	return svg(title, body);
}

/**
 * A grouped bar chart: one group per `groups` label, one bar per series in each ([{ name, values }] with
 * values[i] for group i; a value that is not a finite number leaves its bar out). A value below 0 is drawn as
 * no bar; `valueLabel(v)`, when given, writes each value above its bar (so such a value is still read).
 */
export function barChart({ title, xLabel, yLabel, groups, series, valueLabel }) {
	const values = series.flatMap((s) => s.values).filter(Number.isFinite);
	const f = frame(1, Math.max(0, ...values));
	const body = axes({ ...f, xs: [] }, title, xLabel, yLabel);
	const plotW = WIDTH - MARGIN.left - MARGIN.right;
	const groupW = plotW / Math.max(1, groups.length);
	const barW = r2((groupW * 0.8) / Math.max(1, series.length));
	groups.forEach((g, gi) => {
		const gx = MARGIN.left + gi * groupW;
		body.push(text(r2(gx + groupW / 2), HEIGHT - MARGIN.bottom + 16, g, 'text-anchor="middle" '));
		series.forEach((s, si) => {
			const v = s.values[gi];
			if (!Number.isFinite(v)) return;
			const bx = r2(gx + groupW * 0.1 + si * barW);
			const top = f.y(Math.max(0, v));
			const h = r2(f.y(0) - top);
			body.push(
				`<rect x="${bx}" y="${top}" width="${barW}" height="${h}" fill="${COLORS[si % COLORS.length]}"><title>${escapeXml(`${s.name}, ${g}: ${v}`)}</title></rect>`,
			);
			if (valueLabel)
				body.push(text(r2(bx + barW / 2), r2(top - 4), valueLabel(v), 'text-anchor="middle" '));
		});
	});
	body.push(...legend(series.map((s) => s.name)));
	return svg(title, body);
}
