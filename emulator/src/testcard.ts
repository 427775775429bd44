/**
 * A job's video: a test card that says what it is. It plays for the job's durationSeconds at its aspect ratio
 * (9:16 → 360×640, 16:9 → 640×360, 1:1 → 480×480; H.264 Baseline, 25 fps): colour bars, "generation service
 * emulator: a test card, not a generated video", the mode in large letters, the job id, the aspect ratio, size
 * and duration, the job's asset or persona ids and its prompt as far as they fit, a clock (elapsed / total) and
 * a progress bar that fills up to the last frame.
 *
 * Built in memory from the macroblocks of testcard-tiles.ts (the emulator's TypeScript reads no files): the
 * first picture is an IDR picture of one-macroblock I slices; each later picture skips every macroblock (a copy
 * of the picture before) except those of the clock and the bar that change, which are I slices again.
 */
import {
	intraSlice,
	macroblocks,
	pictureParameterSet,
	sequenceParameterSet,
	skipSlice,
} from './h264';
import type { PictureInfo, PictureSize } from './h264';
import type { JobInput, Mode } from './state';
import {
	BIG_CHARS,
	CHROMA_QP_OFFSET,
	COLORS,
	SMALL_CHARS,
	TILE_SETS,
	TILE_TABLE,
} from './testcard-tiles';

export const FPS = 25;

export const SIZES: Readonly<Record<JobInput['aspectRatio'], PictureSize>> = {
	'9:16': { width: 360, height: 640 },
	'16:9': { width: 640, height: 360 },
	'1:1': { width: 480, height: 480 },
};

export const MODE_TITLES: Readonly<Record<Mode, string>> = {
	character_replacement: 'CHARACTER REPLACEMENT',
	image_to_video: 'IMAGE TO VIDEO',
	text_to_video: 'TEXT TO VIDEO',
};

interface Tile {
	qp: number;
	bits: Buffer;
	bitLength: number;
}

let tiles: Tile[] | null = null;

function allTiles(): Tile[] {
	if (tiles) return tiles;
	const table = Buffer.from(TILE_TABLE, 'base64');
	const list: Tile[] = [];
	for (let at = 0; at < table.length; ) {
		const qp = table.readUInt8(at);
		const bitLength = table.readUInt16BE(at + 1);
		const bytes = Math.ceil(bitLength / 8);
		list.push({ qp, bitLength, bits: table.subarray(at + 3, at + 3 + bytes) });
		at += 3 + bytes;
	}
	tiles = list;
	return list;
}

type Color = (typeof COLORS)[number];
const color = (name: Color): number => TILE_SETS.colours + COLORS.indexOf(name);

/**
 * Printable ASCII for the fonts: typographic quotes and dashes made plain, accents dropped (é → e), other
 * characters → '?', spaces collapsed.
 */
export function asciiText(text: string): string {
	return text
		.replace(/[\u2018\u2019]/g, "'")
		.replace(/[\u201c\u201d]/g, '"')
		.replace(/[\u2013\u2014]/g, '-')
		.replace(/\u2026/g, '...')
		.normalize('NFD')
		.replace(/[\u0300-\u036f]/g, '')
		.replace(/\s+/g, ' ')
		.trim()
		.replace(/[^\x20-\x7e]/g, '?');
}

/** Lines of at most `width` characters, broken at spaces where it can (long words are cut). */
export function wrap(text: string, width: number): string[] {
	const lines: string[] = [];
	let line = '';
	for (const word of text.split(' ').filter(Boolean)) {
		let w = word;
		if (line && line.length + 1 + w.length <= width) {
			line += ` ${w}`;
			continue;
		}
		if (line) lines.push(line);
		while (w.length > width) {
			lines.push(w.slice(0, width));
			w = w.slice(width);
		}
		line = w;
	}
	if (line) lines.push(line);
	return lines;
}

/** m:ss */
const clock = (seconds: number) =>
	`${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, '0')}`;

/** A picture as tile numbers, one per macroblock in raster order. */
class Card {
	readonly grid: Int16Array;
	constructor(
		readonly cols: number,
		readonly rows: number,
	) {
		this.grid = new Int16Array(cols * rows).fill(color('background'));
	}

	clone(): Card {
		const c = new Card(this.cols, this.rows);
		c.grid.set(this.grid);
		return c;
	}

	set(col: number, row: number, tile: number): void {
		if (col >= 0 && col < this.cols && row >= 0 && row < this.rows)
			this.grid[row * this.cols + col] = tile;
	}

	small(col: number, row: number, text: string, shade: 'white' | 'grey' = 'white'): void {
		const base = shade === 'white' ? TILE_SETS.smallWhite : TILE_SETS.smallGrey;
		[...text].forEach((ch, i) => {
			const k = SMALL_CHARS.indexOf(ch);
			this.set(col + i, row, base + (k < 0 ? SMALL_CHARS.indexOf('?') : k));
		});
	}

	/** Two rows of 2×2-macroblock characters from (col, row). */
	big(col: number, row: number, text: string): void {
		[...text.toUpperCase()].forEach((ch, i) => {
			const k = Math.max(0, BIG_CHARS.indexOf(ch));
			const t = TILE_SETS.big + 4 * k;
			this.set(col + 2 * i, row, t);
			this.set(col + 2 * i + 1, row, t + 1);
			this.set(col + 2 * i, row + 1, t + 2);
			this.set(col + 2 * i + 1, row + 1, t + 3);
		});
	}
}

/** The whole picture's layout for a job, and where the clock and the progress bar are. */
interface Layout {
	card: Card;
	clockRow: number;
	/** The clock is centred on `visibleCols`; written at each picture. */
	visibleCols: number;
	barRow: number;
	barCol: number;
	barWidth: number;
	total: string;
}

function layout(jobId: string, input: JobInput): Layout {
	const size = SIZES[input.aspectRatio];
	const { cols, rows } = macroblocks(size);
	// whole macroblocks shown: a half macroblock cropped at the right or bottom edge stays background
	const visibleCols = Math.floor(size.width / 16);
	const visibleRows = Math.floor(size.height / 16);
	const card = new Card(cols, rows);
	const margin = 1;
	const width = visibleCols - 2 * margin;

	// colour bars, two macroblocks high, across the whole width
	const bars: Color[] = [
		'barWhite',
		'barYellow',
		'barCyan',
		'barGreen',
		'barMagenta',
		'barRed',
		'barBlue',
	];
	for (let col = 0; col < cols; col++) {
		const bar = bars[Math.min(bars.length - 1, Math.floor((col * bars.length) / visibleCols))];
		card.set(col, 0, color(bar));
		card.set(col, 1, color(bar));
	}

	let row = 3;
	for (const line of wrap('generation service emulator: a test card, not a generated video', width))
		card.small(margin, row++, line, 'grey');
	row++;
	// the mode in large letters, centred; a line may use the margins
	for (const line of wrap(MODE_TITLES[input.mode], Math.floor(visibleCols / 2))) {
		card.big(Math.floor((visibleCols - 2 * line.length) / 2), row, line);
		row += 2;
	}
	row++;

	// from the bottom: progress bar, a free row, the clock (two rows), a free row
	const barRow = visibleRows - 2;
	const clockRow = barRow - 3;
	const end = clockRow - 1; // text goes on rows row .. end - 1
	/** "label value" on one line when it fits, else the label and the value wrapped below it. */
	const labelled = (label: string, value: string): string[][] =>
		label.length + 1 + value.length <= width
			? [[label, value]]
			: [[label, ''], ...wrap(value, width).map((line) => ['', line])];
	const put = (lines: string[][]) => {
		for (const [label, value] of lines) {
			if (label) card.small(margin, row, label, 'grey');
			card.small(margin + (label ? label.length + 1 : 0), row++, value);
		}
	};
	put(labelled('job', jobId));
	const total = clock(input.durationSeconds);
	const details = `${input.aspectRatio}, ${size.width}x${size.height}, ${input.durationSeconds} s, ${FPS} fps`;
	put(wrap(details, width).map((line) => ['', line]));
	// the job's inputs, as far as there is room: its files, then its prompt
	const inputs: Array<[string, string | null]> =
		input.mode === 'character_replacement'
			? [
					['source', input.sourceAssetId],
					input.personaId ? ['persona', input.personaId] : ['character', input.referenceAssetId],
				]
			: input.mode === 'image_to_video'
				? [['image', input.referenceAssetId]]
				: [];
	row++; // a free row before them
	for (const [label, value] of inputs) {
		if (!value) continue;
		const lines = labelled(label, value);
		if (row + lines.length > end) break;
		put(lines);
	}
	if (inputs.length) row++;
	const prompt = asciiText(input.prompt);
	if (prompt && end - row >= 2) {
		card.small(margin, row++, 'prompt', 'grey');
		const lines = wrap(prompt, width);
		const room = end - row;
		const shown = lines.slice(0, room);
		if (lines.length > room) {
			const last = shown[room - 1];
			shown[room - 1] = `${last.slice(0, Math.max(0, width - 3))}...`;
		}
		for (const line of shown) card.small(margin, row++, line);
	}
	for (let i = 0; i < width; i++) card.set(margin + i, barRow, color('progressEmpty'));
	return { card, clockRow, visibleCols, barRow, barCol: margin, barWidth: width, total };
}

/** The picture shown at picture `index` of `count`: the clock and the bar at that time. */
function pictureAt(base: Layout, index: number, count: number): Card {
	const card = base.card.clone();
	const text = `${clock(Math.floor(index / FPS))} / ${base.total}`;
	const compact = text.replace(/ /g, '');
	const shown = 2 * text.length <= base.visibleCols - 2 ? text : compact;
	card.big(Math.floor((base.visibleCols - 2 * shown.length) / 2), base.clockRow, shown);
	const filled = Math.floor((base.barWidth * (index + 1)) / count);
	for (let i = 0; i < filled; i++) card.set(base.barCol + i, base.barRow, color('yellow'));
	return card;
}

export interface TestCardVideo {
	width: number;
	height: number;
	fps: number;
	/** One H.264 access unit per picture: NAL units each behind a 4-byte length (as MP4 stores them). */
	samples: Buffer[];
	sps: Buffer;
	pps: Buffer;
}

const withLength = (nal: Buffer) => {
	const len = Buffer.alloc(4);
	len.writeUInt32BE(nal.length, 0);
	return [len, nal];
};

/** The H.264 pictures of a job's test card (durationSeconds × 25 of them). */
export function testCardVideo(jobId: string, input: JobInput): TestCardVideo {
	const all = allTiles();
	const picInitQp = all[0].qp;
	const size = SIZES[input.aspectRatio];
	const base = layout(jobId, input);
	const count = input.durationSeconds * FPS;
	const samples: Buffer[] = [];
	let previous: Card | null = null;
	for (let index = 0; index < count; index++) {
		const card = pictureAt(base, index, count);
		const pic: PictureInfo = { idr: previous === null, index, picInitQp };
		const nals: Buffer[] = [];
		let skipped = 0;
		const flushSkips = (mb: number) => {
			if (skipped > 0) nals.push(skipSlice(pic, mb - skipped, skipped));
			skipped = 0;
		};
		for (let mb = 0; mb < card.grid.length; mb++) {
			if (previous && previous.grid[mb] === card.grid[mb]) {
				skipped++;
				continue;
			}
			flushSkips(mb);
			nals.push(intraSlice(pic, mb, all[card.grid[mb]]));
		}
		flushSkips(card.grid.length);
		samples.push(Buffer.concat(nals.flatMap(withLength)));
		previous = card;
	}
	return {
		width: size.width,
		height: size.height,
		fps: FPS,
		samples,
		sps: sequenceParameterSet(size),
		pps: pictureParameterSet(picInitQp, CHROMA_QP_OFFSET),
	};
}
