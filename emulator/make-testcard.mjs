// Regenerates emulator/src/testcard-tiles.ts: the pieces the emulator builds each job's video from
// (emulator/src/testcard.ts). Run by emulator/make-samples.sh; needs ffmpeg (with libx264) and Debian's
// fonts-dejavu-core (an ffmpeg dependency).
//
// ffmpeg draws the glyphs of two fonts (small: one 16×16 macroblock per character, in white and in grey; big:
// 2×2 macroblocks per character, in yellow) and a row of plain colours; x264 encodes each picture as H.264
// Baseline (CAVLC) with one macroblock per slice and no deblocking, so each macroblock decodes alone, wherever it
// is put in a picture. This script keeps each slice's macroblock layer (the bits after the slice header) and its
// QP: the emulator writes the parameter sets, the slice headers and the pictures itself.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const OUT = path.join(ROOT, 'emulator', 'src', 'testcard-tiles.ts');
const FONT = '/usr/share/fonts/truetype/dejavu/DejaVuSansMono-Bold.ttf';

/** The colours (RGB hex) the test card uses, in this order; COLORS in the generated file. */
export const COLORS = {
	background: '1b2633',
	white: 'eeeeee',
	grey: '8fa3bf',
	yellow: 'ffd23f',
	// 75 % colour bars
	barWhite: 'bfbfbf',
	barYellow: 'bfbf00',
	barCyan: '00bfbf',
	barGreen: '00bf00',
	barMagenta: 'bf00bf',
	barRed: 'bf0000',
	barBlue: '0000bf',
	barBlack: '101010',
	progressEmpty: '3a4a5f',
};
const SMALL_CHARS = Array.from({ length: 95 }, (_, i) => String.fromCharCode(32 + i)).join('');
const BIG_CHARS = ' 0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ:/.-_';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'gs-testcard-'));
const ffmpeg = (args) => execFileSync('ffmpeg', ['-y', '-loglevel', 'error', ...args]);

/**
 * A PNG of `chars` in cells of `mbs`×`mbs` macroblocks, 16 cells a row: drawn with the font at `size` px in
 * cells `drawW` wide and 16·mbs high, baseline at `baseline`, then stretched to square cells.
 */
function fontAtlas(name, chars, { mbs, drawW, size, baseline, color }) {
	const cell = 16 * mbs;
	const cols = 16;
	const rows = Math.ceil(chars.length / cols);
	let graph = `color=c=0x${COLORS.background}:size=${cols * drawW}x${rows * cell}`;
	[...chars].forEach((ch, i) => {
		const file = path.join(tmp, `${name}-${i}.txt`);
		fs.writeFileSync(file, ch);
		const x = (i % cols) * drawW;
		const y = Math.floor(i / cols) * cell;
		graph +=
			`,drawtext=fontfile=${FONT}:textfile=${file}:expansion=none:fontsize=${size}` +
			`:fontcolor=0x${color}:x=${x}+(${drawW}-tw)/2:y=${y}+${baseline}-max_glyph_a`;
	});
	graph += `,scale=${cols * cell}:${rows * cell}:flags=lanczos`;
	const png = path.join(tmp, `${name}.png`);
	ffmpeg(['-f', 'lavfi', '-i', graph, '-frames:v', '1', png]);
	return { png, cols: cols * mbs };
}

/** A PNG of one macroblock per colour of COLORS, in a row. */
function colourAtlas() {
	const names = Object.keys(COLORS);
	let graph = `color=c=black:size=${16 * names.length}x16`;
	names.forEach((n, i) => {
		graph += `,drawbox=x=${16 * i}:y=0:w=16:h=16:color=0x${COLORS[n]}:t=fill`;
	});
	const png = path.join(tmp, 'colours.png');
	ffmpeg(['-f', 'lavfi', '-i', graph, '-frames:v', '1', png]);
	return { png, cols: names.length };
}

/** x264: Baseline (CAVLC), one macroblock per slice, no deblocking, fixed QP, BT.601 limited range. */
function encode(png) {
	const out = `${png}.h264`;
	ffmpeg([
		'-i',
		png,
		'-vf',
		'scale=out_color_matrix=bt601:out_range=tv,format=yuv420p',
		'-c:v',
		'libx264',
		'-profile:v',
		'baseline',
		'-qp',
		'21',
		'-x264-params',
		'slice-max-mbs=1:no-deblock=1:aq-mode=0:keyint=1:psy=0',
		'-frames:v',
		'1',
		'-f',
		'h264',
		out,
	]);
	return fs.readFileSync(out);
}

// ── reading x264's output (Annex B) ──

function splitAnnexB(buf) {
	const nals = [];
	let start = -1;
	for (let i = 0; i + 3 <= buf.length; ) {
		if (buf[i] === 0 && buf[i + 1] === 0 && buf[i + 2] === 1) {
			if (start >= 0) nals.push(buf.subarray(start, i));
			i += 3;
			start = i;
		} else i++;
	}
	if (start >= 0) nals.push(buf.subarray(start));
	return nals.map((n) => {
		let end = n.length;
		while (end > 0 && n[end - 1] === 0) end--; // the next start code's leading zero
		return n.subarray(0, end);
	});
}

/** The NAL unit's payload without its header byte and emulation-prevention bytes. */
function rbspOf(nal) {
	const out = [];
	let zeros = 0;
	for (let i = 1; i < nal.length; i++) {
		if (zeros >= 2 && nal[i] === 3) {
			zeros = 0;
			continue;
		}
		out.push(nal[i]);
		zeros = nal[i] === 0 ? zeros + 1 : 0;
	}
	return Buffer.from(out);
}

class BitReader {
	constructor(buf) {
		this.buf = buf;
		this.pos = 0;
	}
	bit() {
		const b = (this.buf[this.pos >> 3] >> (7 - (this.pos & 7))) & 1;
		this.pos++;
		return b;
	}
	bits(n) {
		let v = 0;
		for (let i = 0; i < n; i++) v = v * 2 + this.bit();
		return v;
	}
	ue() {
		let zeros = 0;
		while (this.bit() === 0) zeros++;
		return 2 ** zeros - 1 + this.bits(zeros);
	}
	se() {
		const k = this.ue();
		return k % 2 ? (k + 1) / 2 : -(k / 2);
	}
}

function parseSps(rbsp) {
	const r = new BitReader(rbsp);
	const sps = { profile: r.bits(8), constraints: r.bits(8), level: r.bits(8), id: r.ue() };
	if (sps.profile !== 66) throw new Error(`expected Baseline, got profile ${sps.profile}`);
	sps.log2MaxFrameNum = r.ue() + 4;
	sps.pocType = r.ue();
	if (sps.pocType === 0) sps.log2MaxPocLsb = r.ue() + 4;
	else if (sps.pocType !== 2) throw new Error(`unexpected pic_order_cnt_type ${sps.pocType}`);
	return sps;
}

function parsePps(rbsp) {
	const r = new BitReader(rbsp);
	const pps = { id: r.ue(), spsId: r.ue(), cabac: r.bit(), bottomFieldPoc: r.bit() };
	if (pps.cabac) throw new Error('expected CAVLC');
	if (r.ue() !== 0) throw new Error('slice groups');
	r.ue();
	r.ue();
	r.bit();
	r.bits(2);
	pps.picInitQp = 26 + r.se();
	r.se();
	pps.chromaQpOffset = r.se();
	pps.deblockingControl = r.bit();
	return pps;
}

/** One I slice of one macroblock: { firstMb, qp, bits (Buffer), bitLength }: its macroblock layer. */
function parseSlice(nal, sps, pps) {
	const nalType = nal[0] & 31;
	const refIdc = (nal[0] >> 5) & 3;
	const rbsp = rbspOf(nal);
	const r = new BitReader(rbsp);
	const firstMb = r.ue();
	if (r.ue() % 5 !== 2) throw new Error('expected I slices');
	r.ue();
	r.bits(sps.log2MaxFrameNum);
	if (nalType === 5) r.ue();
	if (sps.pocType === 0) {
		r.bits(sps.log2MaxPocLsb);
		if (pps.bottomFieldPoc) r.se();
	}
	if (refIdc) {
		if (nalType === 5) r.bits(2);
		else if (r.bit()) throw new Error('memory management operations');
	}
	const qp = pps.picInitQp + r.se();
	if (pps.deblockingControl && r.ue() !== 1) throw new Error('expected deblocking off');
	const start = r.pos;
	let stop = rbsp.length * 8 - 1; // the rbsp stop bit: the last bit set
	while (stop >= 0 && !((rbsp[stop >> 3] >> (7 - (stop & 7))) & 1)) stop--;
	const bitLength = stop - start;
	const bits = Buffer.alloc(Math.ceil(bitLength / 8));
	for (let i = 0; i < bitLength; i++) {
		const p = start + i;
		if ((rbsp[p >> 3] >> (7 - (p & 7))) & 1) bits[i >> 3] |= 0x80 >> (i & 7);
	}
	// I_PCM (mb_type 25) aligns to the byte inside the slice: it would not survive another header length
	if (new BitReader(bits).ue() === 25) throw new Error('I_PCM macroblock');
	return { firstMb, qp, bits, bitLength };
}

/** Every macroblock of the picture, in raster order. */
function tilesOf(annexB) {
	let sps;
	let pps;
	const tiles = [];
	for (const nal of splitAnnexB(annexB)) {
		const type = nal[0] & 31;
		if (type === 7) sps = parseSps(rbspOf(nal));
		else if (type === 8) pps = parsePps(rbspOf(nal));
		else if (type === 5 || type === 1) tiles.push(parseSlice(nal, sps, pps));
	}
	tiles.forEach((t, i) => {
		if (t.firstMb !== i)
			throw new Error(`slice ${i} starts at macroblock ${t.firstMb}: not one per slice`);
	});
	return { tiles, chromaQpOffset: pps.chromaQpOffset };
}

// ── the atlases, in the order of the generated tile table ──

const small = (color) => ({ mbs: 1, drawW: 10, size: 15, baseline: 12, color });
const atlases = [
	{
		name: 'smallWhite',
		...fontAtlas('small-white', SMALL_CHARS, small(COLORS.white)),
		chars: SMALL_CHARS,
	},
	{
		name: 'smallGrey',
		...fontAtlas('small-grey', SMALL_CHARS, small(COLORS.grey)),
		chars: SMALL_CHARS,
	},
	{
		name: 'big',
		...fontAtlas('big', BIG_CHARS, {
			mbs: 2,
			drawW: 20,
			size: 30,
			baseline: 24,
			color: COLORS.yellow,
		}),
		chars: BIG_CHARS,
	},
	{ name: 'colours', ...colourAtlas() },
];

const records = [];
const offsets = {};
let chromaQpOffset;
for (const atlas of atlases) {
	const { tiles, chromaQpOffset: offset } = tilesOf(encode(atlas.png));
	if (chromaQpOffset !== undefined && offset !== chromaQpOffset)
		throw new Error('chroma_qp_index_offset differs between pictures');
	chromaQpOffset = offset;
	offsets[atlas.name] = records.length;
	const at = (row, col) => tiles[row * atlas.cols + col];
	if (atlas.name === 'big') {
		// each character: its 2×2 macroblocks (top left, top right, bottom left, bottom right)
		[...atlas.chars].forEach((_, i) => {
			const row = Math.floor(i / 16) * 2;
			const col = (i % 16) * 2;
			records.push(at(row, col), at(row, col + 1), at(row + 1, col), at(row + 1, col + 1));
		});
	} else {
		const count = atlas.chars ? atlas.chars.length : Object.keys(COLORS).length;
		for (let i = 0; i < count; i++) records.push(tiles[i]);
	}
}

// one record per tile: QP (1 byte), bit length (2 bytes, big-endian), the bits
const table = Buffer.concat(
	records.map((t) => {
		const head = Buffer.alloc(3);
		head.writeUInt8(t.qp, 0);
		head.writeUInt16BE(t.bitLength, 1);
		return Buffer.concat([head, t.bits]);
	}),
);
const b64 = table.toString('base64');
const wrapped = b64.match(/.{1,116}/g).map((line) => `\t'${line}'`);
const ts = [
	'// Generated by emulator/make-testcard.mjs (run by emulator/make-samples.sh) — do not edit by hand.',
	'//',
	"// The emulator's test-card video is assembled from these H.264 macroblocks (emulator/src/testcard.ts): each",
	'// tile is the macroblock layer of a one-macroblock I slice that x264 encoded (Baseline, CAVLC, no deblocking),',
	'// so it decodes the same at any position of a picture.',
	'',
	'/** Records of QP (1 byte), bit length (2 bytes, big-endian) and the bits, one per tile. */',
	'export const TILE_TABLE =',
	`${wrapped.join(' +\n')};`,
	'',
	'/** First tile of each set: small fonts (one tile per character of SMALL_CHARS), the big font (four tiles per',
	' * character of BIG_CHARS: top left, top right, bottom left, bottom right) and the plain colours of COLORS. */',
	`export const TILE_SETS = ${JSON.stringify(offsets)} as const;`,
	'',
	`export const SMALL_CHARS = ${JSON.stringify(SMALL_CHARS)};`,
	`export const BIG_CHARS = ${JSON.stringify(BIG_CHARS)};`,
	`export const COLORS = ${JSON.stringify(Object.keys(COLORS))} as const;`,
	'',
	"/** x264's chroma_qp_index_offset for these tiles (the emulator's picture parameter set repeats it). */",
	`export const CHROMA_QP_OFFSET = ${chromaQpOffset};`,
	'',
].join('\n');
fs.writeFileSync(OUT, ts);
fs.rmSync(tmp, { recursive: true, force: true });
process.stdout.write(
	`${path.relative(ROOT, OUT)}: ${records.length} tiles, ${table.length} bytes (${b64.length} base64)\n`,
);
