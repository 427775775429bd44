/**
 * An MP4 (ISO base media file format) of one H.264 track, written in memory: ftyp, moov before mdat ("fast
 * start": a player can begin before the whole file is there), every picture one sample in one chunk, the first
 * the only sync sample, no edit list. Creation and modification times are 0, so the same pictures give the same
 * bytes.
 */
import { CONSTRAINT_FLAGS, LEVEL, PROFILE_BASELINE } from './h264';
import type { TestCardVideo } from './testcard';

/** The movie's time scale (mvhd, tkhd): milliseconds. */
export const MOVIE_TIMESCALE = 1000;
/** Media time units per picture (mdhd's time scale is fps × this). */
const TICKS_PER_PICTURE = 512;

const u8 = (n: number) => Buffer.from([n & 0xff]);
const u16 = (n: number) => {
	const b = Buffer.alloc(2);
	b.writeUInt16BE(n, 0);
	return b;
};
const u32 = (n: number) => {
	const b = Buffer.alloc(4);
	b.writeUInt32BE(n >>> 0, 0);
	return b;
};
const zeros = (n: number) => Buffer.alloc(n);

function box(type: string, ...parts: Buffer[]): Buffer {
	const body = Buffer.concat(parts);
	return Buffer.concat([u32(8 + body.length), Buffer.from(type, 'latin1'), body]);
}

function fullBox(type: string, version: number, flags: number, ...parts: Buffer[]): Buffer {
	return box(type, u8(version), u8(flags >> 16), u16(flags & 0xffff), ...parts);
}

/** The unity transformation matrix of mvhd and tkhd. */
const MATRIX = Buffer.concat(
	[0x00010000, 0, 0, 0, 0x00010000, 0, 0, 0, 0x40000000].map((n) => u32(n)),
);

function avcConfiguration(video: TestCardVideo): Buffer {
	return box(
		'avcC',
		u8(1), // configurationVersion
		u8(PROFILE_BASELINE),
		u8(CONSTRAINT_FLAGS),
		u8(LEVEL),
		u8(0xff), // 4-byte NAL unit lengths
		u8(0xe1), // one sequence parameter set
		u16(video.sps.length),
		video.sps,
		u8(1), // one picture parameter set
		u16(video.pps.length),
		video.pps,
	);
}

function sampleEntry(video: TestCardVideo): Buffer {
	const compressor = zeros(32);
	return box(
		'avc1',
		zeros(6),
		u16(1), // data_reference_index
		zeros(16), // pre_defined, reserved
		u16(video.width),
		u16(video.height),
		u32(0x00480000), // 72 dpi
		u32(0x00480000),
		zeros(4),
		u16(1), // frame_count
		compressor,
		u16(0x0018), // depth
		u16(0xffff), // pre_defined = -1
		avcConfiguration(video),
	);
}

/** The MP4 file of `video`'s pictures. */
export function mp4Of(video: TestCardVideo): Buffer {
	const count = video.samples.length;
	const mediaTimescale = video.fps * TICKS_PER_PICTURE;
	const mediaDuration = count * TICKS_PER_PICTURE;
	const movieDuration = Math.round((count * MOVIE_TIMESCALE) / video.fps);
	const ftyp = box(
		'ftyp',
		Buffer.from('isom', 'latin1'),
		u32(0x200),
		Buffer.from('isomiso2avc1mp41', 'latin1'),
	);
	const moovFor = (dataOffset: number) =>
		box(
			'moov',
			fullBox(
				'mvhd',
				0,
				0,
				u32(0), // creation_time
				u32(0), // modification_time
				u32(MOVIE_TIMESCALE),
				u32(movieDuration),
				u32(0x00010000), // rate 1.0
				u16(0x0100), // volume 1.0
				zeros(10),
				MATRIX,
				zeros(24), // pre_defined
				u32(2), // next_track_ID
			),
			box(
				'trak',
				fullBox(
					'tkhd',
					0,
					3, // enabled, in movie
					u32(0),
					u32(0),
					u32(1), // track_ID
					zeros(4),
					u32(movieDuration),
					zeros(8),
					u16(0), // layer
					u16(0), // alternate_group
					u16(0), // volume (video)
					zeros(2),
					MATRIX,
					u32(video.width * 0x10000),
					u32(video.height * 0x10000),
				),
				box(
					'mdia',
					fullBox(
						'mdhd',
						0,
						0,
						u32(0),
						u32(0),
						u32(mediaTimescale),
						u32(mediaDuration),
						u16(0x55c4), // language "und"
						u16(0),
					),
					fullBox(
						'hdlr',
						0,
						0,
						u32(0),
						Buffer.from('vide', 'latin1'),
						zeros(12),
						Buffer.from('VideoHandler\0', 'latin1'),
					),
					box(
						'minf',
						fullBox('vmhd', 0, 1, zeros(8)),
						box('dinf', fullBox('dref', 0, 0, u32(1), fullBox('url ', 0, 1))),
						box(
							'stbl',
							fullBox('stsd', 0, 0, u32(1), sampleEntry(video)),
							fullBox('stts', 0, 0, u32(1), u32(count), u32(TICKS_PER_PICTURE)),
							fullBox('stss', 0, 0, u32(1), u32(1)), // only the first picture is a key frame
							fullBox('stsc', 0, 0, u32(1), u32(1), u32(count), u32(1)),
							fullBox('stsz', 0, 0, u32(0), u32(count), ...video.samples.map((s) => u32(s.length))),
							fullBox('stco', 0, 0, u32(1), u32(dataOffset)),
						),
					),
				),
			),
		);
	// the moov's size does not depend on the offset it holds
	const moovSize = moovFor(0).length;
	const dataOffset = ftyp.length + moovSize + 8;
	const mdat = box('mdat', ...video.samples);
	return Buffer.concat([ftyp, moovFor(dataOffset), mdat]);
}
