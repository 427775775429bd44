/**
 * The H.264 the emulator writes itself (ITU-T H.264, Baseline profile, CAVLC): the parameter sets and the slices
 * of the test-card video (testcard.ts). Macroblocks come ready-made from testcard-tiles.ts; here are only the bits
 * around them: NAL units with their emulation-prevention bytes, the sequence and picture parameter sets, I slices
 * of one macroblock and P slices whose macroblocks are all skipped (a copy of the previous picture).
 */

/** Writes bits most significant first. */
export class BitWriter {
	private out = Buffer.alloc(256);
	private length = 0;
	/** Bits not yet written out (fewer than 8), the last `used` bits of `pending`. */
	private pending = 0;
	private used = 0;

	private push(byte: number): void {
		if (this.length === this.out.length) {
			const bigger = Buffer.alloc(this.out.length * 2);
			this.out.copy(bigger);
			this.out = bigger;
		}
		this.out[this.length++] = byte;
	}

	bit(b: number): void {
		this.bits(b & 1, 1);
	}

	/** The last `n` bits of `value` (any n; value below 2^53). */
	bits(value: number, n: number): void {
		while (n > 16) {
			n -= 16;
			this.bits(Math.floor(value / 2 ** n) & 0xffff, 16);
		}
		this.pending = (this.pending << n) | (value & ((1 << n) - 1));
		this.used += n;
		while (this.used >= 8) {
			this.used -= 8;
			this.push((this.pending >> this.used) & 0xff);
		}
		this.pending &= (1 << this.used) - 1;
	}

	/** Unsigned Exp-Golomb, ue(v). */
	ue(value: number): void {
		const v = value + 1;
		const len = Math.floor(Math.log2(v));
		this.bits(0, len);
		this.bits(v, len + 1);
	}

	/** Signed Exp-Golomb, se(v). */
	se(value: number): void {
		this.ue(value > 0 ? 2 * value - 1 : -2 * value);
	}

	/** The first `bitLength` bits of `data`. */
	append(data: Buffer, bitLength: number): void {
		const whole = bitLength >> 3;
		for (let i = 0; i < whole; i++) this.bits(data[i], 8);
		const rest = bitLength & 7;
		if (rest) this.bits(data[whole] >> (8 - rest), rest);
	}

	/** rbsp_trailing_bits: a 1, then zeros to the byte boundary; the bytes written. */
	trailing(): Buffer {
		this.bits(1, 1);
		if (this.used) this.bits(0, 8 - this.used);
		return this.out.subarray(0, this.length);
	}
}

/** A NAL unit (without start code or length): its header byte and the RBSP with emulation prevention. */
export function nalUnit(type: number, refIdc: number, rbsp: Buffer): Buffer {
	// at most one emulation-prevention byte per two bytes of the payload
	const out = Buffer.alloc(1 + rbsp.length + (rbsp.length >> 1) + 1);
	out[0] = (refIdc << 5) | type;
	let n = 1;
	let zeros = 0;
	for (const b of rbsp) {
		if (zeros === 2 && b <= 3) {
			out[n++] = 3;
			zeros = 0;
		}
		out[n++] = b;
		zeros = b === 0 ? zeros + 1 : 0;
	}
	return out.subarray(0, n);
}

export const NAL_SLICE = 1;
export const NAL_IDR = 5;
export const NAL_SPS = 7;
export const NAL_PPS = 8;

/** frame_num is log2(MaxFrameNum) = 8 bits wide; it wraps, which POC type 2 allows. */
const LOG2_MAX_FRAME_NUM = 8;
export const PROFILE_BASELINE = 66;
/** constraint_set0_flag only: Baseline (not Constrained Baseline, whose Main-profile slice limits we exceed). */
export const CONSTRAINT_FLAGS = 0x80;
/** Level 3.0: up to 1,620 macroblocks a picture and 40,500 a second (920 × 25 fps here). */
export const LEVEL = 30;

export interface PictureSize {
	width: number;
	height: number;
}

/** Macroblock columns and rows that cover `size`. */
export function macroblocks(size: PictureSize): { cols: number; rows: number } {
	return { cols: Math.ceil(size.width / 16), rows: Math.ceil(size.height / 16) };
}

/** Sequence parameter set: Baseline, POC type 2, one reference frame, cropped to `size`, BT.601 colours. */
export function sequenceParameterSet(size: PictureSize): Buffer {
	const { cols, rows } = macroblocks(size);
	const w = new BitWriter();
	w.bits(PROFILE_BASELINE, 8);
	w.bits(CONSTRAINT_FLAGS, 8);
	w.bits(LEVEL, 8);
	w.ue(0); // seq_parameter_set_id
	w.ue(LOG2_MAX_FRAME_NUM - 4);
	w.ue(2); // pic_order_cnt_type: output order = decoding order
	w.ue(1); // max_num_ref_frames
	w.bit(0); // gaps_in_frame_num_value_allowed_flag
	w.ue(cols - 1);
	w.ue(rows - 1);
	w.bit(1); // frame_mbs_only_flag
	w.bit(1); // direct_8x8_inference_flag
	const cropRight = cols * 16 - size.width;
	const cropBottom = rows * 16 - size.height;
	const crop = cropRight > 0 || cropBottom > 0;
	w.bit(crop ? 1 : 0);
	if (crop) {
		// in units of 2 luma samples (4:2:0)
		w.ue(0);
		w.ue(cropRight / 2);
		w.ue(0);
		w.ue(cropBottom / 2);
	}
	w.bit(1); // vui_parameters_present_flag
	w.bit(0); // aspect_ratio_info_present_flag (square pixels)
	w.bit(0); // overscan_info_present_flag
	w.bit(1); // video_signal_type_present_flag
	w.bits(5, 3); // video_format: unspecified
	w.bit(0); // video_full_range_flag: limited range
	w.bit(1); // colour_description_present_flag
	w.bits(6, 8); // colour_primaries: SMPTE 170M (BT.601)
	w.bits(6, 8); // transfer_characteristics
	w.bits(6, 8); // matrix_coefficients
	w.bit(0); // chroma_loc_info_present_flag
	w.bit(0); // timing_info_present_flag (the MP4 carries the timing)
	w.bit(0); // nal_hrd_parameters_present_flag
	w.bit(0); // vcl_hrd_parameters_present_flag
	w.bit(0); // pic_struct_present_flag
	w.bit(0); // bitstream_restriction_flag
	return nalUnit(NAL_SPS, 3, w.trailing());
}

/** Picture parameter set: CAVLC, one slice group, deblocking control in the slice headers. */
export function pictureParameterSet(picInitQp: number, chromaQpOffset: number): Buffer {
	const w = new BitWriter();
	w.ue(0); // pic_parameter_set_id
	w.ue(0); // seq_parameter_set_id
	w.bit(0); // entropy_coding_mode_flag: CAVLC
	w.bit(0); // bottom_field_pic_order_in_frame_present_flag
	w.ue(0); // num_slice_groups_minus1
	w.ue(0); // num_ref_idx_l0_default_active_minus1
	w.ue(0); // num_ref_idx_l1_default_active_minus1
	w.bit(0); // weighted_pred_flag
	w.bits(0, 2); // weighted_bipred_idc
	w.se(picInitQp - 26);
	w.se(0); // pic_init_qs_minus26
	w.se(chromaQpOffset);
	w.bit(1); // deblocking_filter_control_present_flag
	w.bit(0); // constrained_intra_pred_flag
	w.bit(0); // redundant_pic_cnt_present_flag
	return nalUnit(NAL_PPS, 3, w.trailing());
}

export interface PictureInfo {
	/** The first picture of the video (an IDR picture); the others are P pictures. */
	idr: boolean;
	/** frame_num of the picture: its index, as every picture is a reference picture. */
	index: number;
	picInitQp: number;
}

function sliceHeader(
	w: BitWriter,
	pic: PictureInfo,
	firstMb: number,
	intra: boolean,
	qp: number,
): void {
	w.ue(firstMb);
	w.ue(intra ? 2 : 0); // slice_type I or P (pictures mix them)
	w.ue(0); // pic_parameter_set_id
	w.bits(pic.index % 2 ** LOG2_MAX_FRAME_NUM, LOG2_MAX_FRAME_NUM);
	if (pic.idr) w.ue(0); // idr_pic_id
	if (!intra) {
		w.bit(0); // num_ref_idx_active_override_flag
		w.bit(0); // ref_pic_list_modification_flag_l0
	}
	// dec_ref_pic_marking (nal_ref_idc is not 0)
	if (pic.idr) {
		w.bit(0); // no_output_of_prior_pics_flag
		w.bit(0); // long_term_reference_flag
	} else {
		w.bit(0); // adaptive_ref_pic_marking_mode_flag: sliding window
	}
	w.se(qp - pic.picInitQp);
	w.ue(1); // disable_deblocking_filter_idc: off
}

/** An I slice of one macroblock at `mb`: the tile's macroblock layer behind a header written here. */
export function intraSlice(
	pic: PictureInfo,
	mb: number,
	tile: { qp: number; bits: Buffer; bitLength: number },
): Buffer {
	const w = new BitWriter();
	sliceHeader(w, pic, mb, true, tile.qp);
	w.append(tile.bits, tile.bitLength);
	return nalUnit(pic.idr ? NAL_IDR : NAL_SLICE, 3, w.trailing());
}

/** A P slice from macroblock `firstMb` whose `count` macroblocks are all skipped: the previous picture there. */
export function skipSlice(pic: PictureInfo, firstMb: number, count: number): Buffer {
	const w = new BitWriter();
	sliceHeader(w, pic, firstMb, false, pic.picInitQp);
	w.ue(count); // mb_skip_run, then no more data: the slice ends
	return nalUnit(NAL_SLICE, 3, w.trailing());
}
