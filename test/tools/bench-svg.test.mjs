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
import { batchChart, cumulative } from '../../bench/charts.mjs';

const bottom = HEIGHT - MARGIN.bottom;
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
