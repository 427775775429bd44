// What an MP4 file says about its video, read from its boxes (ISO BMFF): how long it plays and its picture size.
// The demo reports it for the MP4 n8n wrote.

const CONTAINERS = new Set(['moov', 'trak', 'mdia', 'minf', 'stbl']);

/** The first box of `type` at any depth inside the containers, as { body, end }, or undefined. */
function findBox(file, type, from = 0, to = file.length) {
	for (let at = from; at + 8 <= to; ) {
		const size = file.readUInt32BE(at);
		const name = file.toString('latin1', at + 4, at + 8);
		if (size < 8 || at + size > to) return undefined;
		if (name === type) return { body: at + 8, end: at + size };
		if (CONTAINERS.has(name)) {
			const inner = findBox(file, type, at + 8, at + size);
			if (inner) return inner;
		}
		at += size;
	}
	return undefined;
}

/**
 * { seconds, width, height, codec } of the first video track of an MP4 (`file`, a Buffer), or null when it is
 * not one (no moov, or boxes the emulator does not write: 64-bit sizes, version 1 headers).
 */
export function mp4Summary(file) {
	const mvhd = findBox(file, 'mvhd');
	const tkhd = findBox(file, 'tkhd');
	const stsd = findBox(file, 'stsd');
	if (!mvhd || !tkhd || !stsd || file[mvhd.body] !== 0 || file[tkhd.body] !== 0) return null;
	const timescale = file.readUInt32BE(mvhd.body + 12);
	return {
		seconds: file.readUInt32BE(mvhd.body + 16) / timescale,
		width: file.readUInt32BE(tkhd.body + 76) / 0x10000,
		height: file.readUInt32BE(tkhd.body + 80) / 0x10000,
		// the first sample entry's format: avc1 = H.264
		codec: file.toString('latin1', stsd.body + 12, stsd.body + 16),
	};
}
