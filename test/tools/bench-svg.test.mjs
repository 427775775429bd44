// The SVG writer of the bench's charts (bench/svg.mjs): points land where the axes say, the floor line at its
// y, labels escaped, bars as tall as their values.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import {
	HEIGHT,
	MARGIN,
	WIDTH,
	barChart,
	escapeXml,
	frame,
	lineChart,
	ticks,
} from '../../bench/svg.mjs';
import {
	batchChart,
	cumulative,
	memoryChart,
	queueChart,
	queueSlotsChart,
} from '../../bench/charts.mjs';
import { MiB } from '../../bench/measure.mjs';

const bottom = HEIGHT - MARGIN.bottom;

/**
 * Well-formed enough for a browser and GitHub to show it: one <svg> root with the picture's viewBox, every
 * element closed in order, no raw "<" or bare "&" in text or attribute values.
 */
function assertWellFormed(svg) {
	assert.match(
		svg,
		new RegExp(`^<svg xmlns="http://www.w3.org/2000/svg" [^>]*viewBox="0 0 ${WIDTH} ${HEIGHT}"`),
	);
	const stack = [];
	for (const m of svg.matchAll(
		/<(\/?)([a-zA-Z]+)((?:\s+[a-zA-Z][a-zA-Z0-9:-]*="[^"<]*")*)\s*(\/?)>|([^<]+)|(<)/g,
	)) {
		const [, close, tag, attrs, self, txt, stray] = m;
		assert.equal(stray, undefined, `a stray "<" at ${m.index}`);
		const text = txt ?? attrs ?? '';
		assert.doesNotMatch(text, /&(?!(amp|lt|gt|quot|apos);)/, `a bare "&" in ${text}`);
		if (!tag || self) continue;
		if (close) assert.equal(stack.pop(), tag, `</${tag}> closes another element`);
		else stack.push(tag);
	}
	assert.deepEqual(stack, [], 'elements left open');
}
const right = WIDTH - MARGIN.right;

describe('bench SVG charts', () => {
	it('ticks are round steps from 0 to at least the maximum', () => {
		assert.deepEqual(ticks(100), [0, 20, 40, 60, 80, 100]);
		assert.deepEqual(ticks(174.9), [0, 50, 100, 150, 200]);
	});

	it('maps 0 to the bottom-left corner and the last tick to the top-right', () => {
		const f = frame(100, 100);
		assert.equal(f.x(0), MARGIN.left);
		assert.equal(f.x(100), right);
		assert.equal(f.y(0), bottom);
		assert.equal(f.y(100), MARGIN.top);
		assert.equal(f.y(50), (bottom + MARGIN.top) / 2);
	});

	it('draws a series as steps through its points, and the floor line at its y', () => {
		const out = lineChart({
			title: 't',
			xLabel: 's',
			yLabel: 'n',
			series: [
				{
					name: 'ours',
					points: [
						[0, 0],
						[50, 50],
						[100, 100],
					],
				},
			],
			hlines: [{ at: 50, label: 'floor' }],
			vlines: [{ at: 100, label: 'last' }],
		});
		const f = frame(100, 100);
		assert.match(
			out,
			new RegExp(
				`d="M${f.x(0)},${f.y(0)} L${f.x(50)},${f.y(0)} L${f.x(50)},${f.y(50)} L${f.x(100)},${f.y(50)} L${f.x(100)},${f.y(100)}"`,
			),
		);
		const mid = (bottom + MARGIN.top) / 2;
		assert.match(
			out,
			new RegExp(`<line x1="${MARGIN.left}" y1="${mid}" x2="${right}" y2="${mid}"`),
		);
		assert.match(out, new RegExp(`<line x1="${right}" y1="${MARGIN.top}" x2="${right}"`));
	});

	it('escapes labels, titles and series names', () => {
		assert.equal(escapeXml(`a<b>&"c'`), 'a&lt;b&gt;&amp;&quot;c&apos;');
		const out = lineChart({
			title: 'A & B <1>',
			xLabel: 'x',
			yLabel: 'y',
			series: [{ name: '"ours"', points: [[1, 1]] }],
			hlines: [{ at: 1, label: 'floor <x>' }],
		});
		assert.ok(!out.includes('A & B'));
		assert.ok(out.includes('A &amp; B &lt;1&gt;'));
		assert.ok(out.includes('floor &lt;x&gt;'));
		assert.ok(out.includes('&quot;ours&quot;'));
	});

	it('draws each bar from the axis up to its value, leaving out values that are not numbers', () => {
		const out = barChart({
			title: 'mem',
			xLabel: 'size',
			yLabel: 'MiB',
			groups: ['5 MiB', '100 MiB'],
			series: [
				{ name: 'ours', values: [50, 100] },
				{ name: 'HTTP Request', values: [NaN, 25] },
			],
		});
		const rects = [
			...out.matchAll(
				/<rect x="[^"]+" y="([^"]+)" width="[^"]+" height="([^"]+)" fill="[^"]+"><title>/g,
			),
		];
		assert.equal(rects.length, 3);
		const f = frame(1, 100);
		const heights = rects.map((m) => Number(m[2]));
		assert.deepEqual(heights, [bottom - f.y(50), bottom - f.y(100), bottom - f.y(25)]);
		for (const m of rects) assert.equal(Number(m[1]) + Number(m[2]), bottom);
	});
});

describe('bench charts from measured data (bench/charts.mjs)', () => {
	it('counts completions up at each time, in order, in seconds', () => {
		assert.deepEqual(cumulative([3000, 1000, 2000]), [
			[0, 0],
			[1, 1],
			[2, 2],
			[3, 3],
		]);
	});

	it("puts the floor's line at the floor's last download", () => {
		const floor = { floorMs: 100_000, finishAt: 160_000, downloadsAt: [90_000, 160_000] };
		const c = batchChart(
			{ n: 2, phaseS: '60.0', floor, downloadsMs: [30_000, 101_000], endsMs: [] },
			'ours',
		);
		const f = frame(101, 2);
		assert.equal(c.file, 'bench-batch-2.svg');
		assert.match(c.svg, new RegExp(`<line x1="${f.x(100)}" y1="${MARGIN.top}" x2="${f.x(100)}"`));
		assert.match(
			c.svg,
			new RegExp(
				`d="M${f.x(0)},${f.y(0)} L${f.x(30)},${f.y(0)} L${f.x(30)},${f.y(1)} L${f.x(100)},${f.y(1)} L${f.x(100)},${f.y(2)}"`,
			),
		);
	});
});

describe('the memory and queue charts (bench/charts.mjs)', () => {
	const sizes = {
		DL: [
			{ k: 't', label: '4 KiB' },
			{ k: '5', label: '5 MiB' },
			{ k: '100', label: '100 MiB' },
		],
		UP: [
			{ k: 't', label: '2 KiB' },
			{ k: '20', label: '20 MiB' },
		],
	};
	const addedMiB = {
		'download ours 5': 10,
		'download http 5': 8,
		'download ours 100': 80,
		'download http 100': 40,
		'upload ours 20': 60,
		'upload http 20': -0.4,
	};
	const added = (transfer, side, k) => addedMiB[`${transfer} ${side} ${k}`] * MiB;

	it('memory: one group per transfer and size (the tiny file left out), ours beside HTTP Request, values written', () => {
		const c = memoryChart({ ...sizes, added });
		assert.equal(c.file, 'bench-memory-added.svg');
		assertWellFormed(c.svg);
		const groups = [...c.svg.matchAll(/>(download|upload) ([^<]+)<\/text>/g)].map(
			(m) => `${m[1]} ${m[2]}`,
		);
		assert.deepEqual(groups, ['download 5 MiB', 'download 100 MiB', 'upload 20 MiB']);
		const bars = [
			...c.svg.matchAll(
				/<rect x="([^"]+)" y="([^"]+)" width="[^"]+" height="([^"]+)"[^>]*><title>([^<]+)<\/title>/g,
			),
		];
		assert.deepEqual(
			bars.map((m) => m[4]),
			[
				'ours, download 5 MiB: 10',
				'HTTP Request, download 5 MiB: 8',
				'ours, download 100 MiB: 80',
				'HTTP Request, download 100 MiB: 40',
				'ours, upload 20 MiB: 60',
				'HTTP Request, upload 20 MiB: -0.4',
			],
		);
		const f = frame(1, 80);
		assert.equal(Number(bars[2][3]), bottom - f.y(80)); // the tallest bar reaches its value
		assert.equal(Number(bars[3][3]), bottom - f.y(40));
		assert.equal(Number(bars[5][3]), 0); // below 0: no bar, but its value is written
		for (const v of ['10.0', '8.0', '80.0', '40.0', '60.0', '-0.4'])
			assert.match(c.svg, new RegExp(`>${v}</text>`));
	});

	const pattern = (name, ats, slotSeconds, floorMs = 120_000) => ({
		pattern: name,
		t0: 1_000_000,
		checked: { firstAts: ats.map((s) => 1_000_000 + s * 1000) },
		floor: { floorMs },
		slotSeconds,
	});
	const results = [
		pattern('wait', [130, 125], 1480.4),
		pattern('park', [121, 126], 24),
		pattern('trigger', [150, 140], 12),
	];

	it('queue: a step line per pattern through its MP4s in time order from its calls, and the floor', () => {
		const c = queueChart(results, 2);
		assert.equal(c.file, 'bench-queue-deliveries.svg');
		assertWellFormed(c.svg);
		const f = frame(150, 2);
		const steps = (a, b) =>
			`M${f.x(0)},${f.y(0)} L${f.x(a)},${f.y(0)} L${f.x(a)},${f.y(1)} L${f.x(b)},${f.y(1)} L${f.x(b)},${f.y(2)}`;
		const paths = [...c.svg.matchAll(/<path d="([^"]+)"[^>]*><title>([^<]+)<\/title>/g)];
		assert.deepEqual(
			paths.map((m) => [m[2], m[1]]),
			[
				['wait', steps(125, 130)],
				['park', steps(121, 126)],
				['trigger', steps(140, 150)],
			],
		);
		// one floor line when the patterns' floors are the same
		assert.equal((c.svg.match(/floor 120\.0 s/g) ?? []).length, 1);
		assert.match(c.svg, new RegExp(`<line x1="${f.x(120)}" y1="${MARGIN.top}" x2="${f.x(120)}"`));
	});

	it("queue: each pattern's worker slot-seconds as a bar", () => {
		const c = queueSlotsChart(results);
		assertWellFormed(c.svg);
		const bars = [...c.svg.matchAll(/height="([^"]+)"[^>]*><title>([^<]+)<\/title>/g)];
		assert.deepEqual(
			bars.map((m) => m[2]),
			[
				'worker slot-seconds, wait: 1480',
				'worker slot-seconds, park: 24',
				'worker slot-seconds, trigger: 12',
			],
		);
		const f = frame(1, 1480);
		assert.equal(Number(bars[0][1]), bottom - f.y(1480));
	});

	it('every chart is well-formed, with its title escaped', () => {
		const out = lineChart({
			title: 'A & <B>',
			xLabel: 'x',
			yLabel: 'y',
			series: [{ name: "o'k", points: [[1, 1]] }],
		});
		assertWellFormed(out);
		assert.throws(() => assertWellFormed(out.replace('A &amp; &lt;B&gt;', 'A & <B>')));
		assert.throws(() => assertWellFormed(out.replace('</title>', '')));
	});
});
