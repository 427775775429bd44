/**
 * Reads what a test needs from an MP4 (ISO BMFF) file, independently of the emulator's writer (emulator/src/
 * mp4.ts): the top-level boxes, the durations of mvhd and mdhd, the size in tkhd and avc1, the sample tables.
 */

export interface Box {
	type: string;
	/** Offset of the box's header in the file. */
	start: number;
	/** Offset of its body (after size and type). */
	body: number;
	end: number;
}

const CONTAINERS = new Set(['moov', 'trak', 'mdia', 'minf', 'stbl', 'dinf']);

/** The boxes between `from` and `to`, one level. */
export function boxes(file: Buffer, from = 0, to = file.length): Box[] {
	const list: Box[] = [];
	for (let at = from; at < to; ) {
		const size = file.readUInt32BE(at);
		const type = file.toString('latin1', at + 4, at + 8);
		if (size < 8 || at + size > to) throw new Error(`bad box ${type} of ${size} bytes at ${at}`);
		list.push({ type, start: at, body: at + 8, end: at + size });
		at += size;
	}
	return list;
}

/** The box at `path` (e.g. 'moov/trak/mdia/mdhd'), looking inside containers. */
export function find(file: Buffer, path: string): Box {
	let level = boxes(file);
	let found: Box | undefined;
	for (const type of path.split('/')) {
		found = level.find((b) => b.type === type);
		if (!found) throw new Error(`no ${type} box (looking for ${path})`);
		if (CONTAINERS.has(type)) level = boxes(file, found.body, found.end);
		else if (type === 'stsd') level = boxes(file, found.body + 8, found.end);
	}
	return found!;
}

export interface Mp4Facts {
	topLevel: string[];
	movie: { timescale: number; duration: number; seconds: number };
	media: { timescale: number; duration: number; seconds: number };
	track: { width: number; height: number; duration: number };
	sampleEntry: { codec: string; width: number; height: number; profile: number; level: number };
	samples: {
		count: number;
		sizes: number[];
		sttsTotal: number;
		sync: number[];
		chunkOffset: number;
	};
	mdat: Box;
	/** The `free` box after the video, if any: its size and its text up to the first zero byte. */
	free: { size: number; label: string } | null;
}

const labelEnd = (file: Buffer, box: Box) => {
	const zero = file.indexOf(0, box.body);
	return zero < 0 || zero > box.end ? box.end : zero;
};

/** What the tests check in a job's MP4 (version 0 boxes, one track, one chunk, as the emulator writes). */
export function mp4Facts(file: Buffer): Mp4Facts {
	const mvhd = find(file, 'moov/mvhd');
	const tkhd = find(file, 'moov/trak/tkhd');
	const mdhd = find(file, 'moov/trak/mdia/mdhd');
	const avc1 = find(file, 'moov/trak/mdia/minf/stbl/stsd/avc1');
	const stbl = (t: string) => find(file, `moov/trak/mdia/minf/stbl/${t}`);
	const u32 = (at: number) => file.readUInt32BE(at);
	// full boxes: version and flags (4 bytes), then creation and modification times (4 + 4 in version 0)
	const movieTimescale = u32(mvhd.body + 12);
	const movieDuration = u32(mvhd.body + 16);
	const mediaTimescale = u32(mdhd.body + 12);
	const mediaDuration = u32(mdhd.body + 16);
	const stts = stbl('stts');
	let sttsTotal = 0;
	for (let i = 0, n = u32(stts.body + 4); i < n; i++)
		sttsTotal += u32(stts.body + 8 + 8 * i) * u32(stts.body + 12 + 8 * i);
	const stsz = stbl('stsz');
	const count = u32(stsz.body + 8);
	const sizes = Array.from({ length: count }, (_, i) => u32(stsz.body + 12 + 4 * i));
	const stss = stbl('stss');
	const sync = Array.from({ length: u32(stss.body + 4) }, (_, i) => u32(stss.body + 8 + 4 * i));
	const stco = stbl('stco');
	const avcC = boxes(file, avc1.body + 78, avc1.end).find((b) => b.type === 'avcC')!;
	const top = boxes(file);
	const mdat = top.find((b) => b.type === 'mdat')!;
	const free = top.find((b) => b.type === 'free' && b.start > mdat.start);
	return {
		topLevel: top.map((b) => b.type),
		movie: {
			timescale: movieTimescale,
			duration: movieDuration,
			seconds: movieDuration / movieTimescale,
		},
		media: {
			timescale: mediaTimescale,
			duration: mediaDuration,
			seconds: mediaDuration / mediaTimescale,
		},
		track: {
			duration: u32(tkhd.body + 20),
			width: u32(tkhd.body + 76) / 0x10000,
			height: u32(tkhd.body + 80) / 0x10000,
		},
		sampleEntry: {
			codec: avc1.type,
			width: file.readUInt16BE(avc1.body + 24),
			height: file.readUInt16BE(avc1.body + 26),
			profile: file[avcC.body + 1],
			level: file[avcC.body + 3],
		},
		samples: { count, sizes, sttsTotal, sync, chunkOffset: u32(stco.body + 8) },
		mdat,
		free: free
			? {
					size: free.end - free.start,
					label: file.toString('latin1', free.body, labelEnd(file, free)),
				}
			: null,
	};
}
