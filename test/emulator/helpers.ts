import axios from 'axios';
import type { AxiosInstance, AxiosResponse } from 'axios';

import { startEmulator } from '../../emulator/src';
import type { EmulatorOptions } from '../../emulator/src';
import { ErrorEnvelopeSchema } from '../../emulator/src/schemas';
import { CHARACTER_JPEG, CHARACTER_PNG, SAMPLE_VIDEO_MP4 } from '../../emulator/src/samples';

export const png = Buffer.from(CHARACTER_PNG, 'base64');
export const jpeg = Buffer.from(CHARACTER_JPEG, 'base64');
export const mp4 = Buffer.from(SAMPLE_VIDEO_MP4, 'base64');

export type Emulator = Awaited<ReturnType<typeof startEmulator>>;

export interface Harness {
	emu: Emulator;
	http: AxiosInstance;
	clock: { t: number };
}

/** Emulator on a free port with a settable clock and instant jobs (unless overridden). */
export async function boot(options: EmulatorOptions = {}): Promise<Harness> {
	const clock = { t: 1_800_000_000_000 };
	const emu = await startEmulator({
		port: 0,
		now: () => clock.t,
		jobTiming: { queuedMs: 0, runningMs: 0 },
		...options,
	});
	const http = axios.create({
		baseURL: emu.baseUrl,
		validateStatus: () => true,
		maxBodyLength: Infinity,
		maxContentLength: Infinity,
	});
	return { emu, http, clock };
}

export function bearer(secret: string): Record<string, string> {
	return { Authorization: `Bearer ${secret}` };
}

let counter = 0;
/** A fresh valid Idempotency-Key (built at run time). */
export function idem(label = 'k'): string {
	counter += 1;
	return `test-${label}-${counter}-${'0'.repeat(16)}`;
}

/** Asserts an error envelope with this status and code. */
export function expectError(res: AxiosResponse, status: number, code: string): void {
	let body: unknown = res.data;
	if (Buffer.isBuffer(body)) body = JSON.parse(body.toString('utf8'));
	const parsed = ErrorEnvelopeSchema.parse(body);
	expect({ status: res.status, code: parsed.error.code }).toEqual({ status, code });
	expect(res.headers['x-request-id']).toBe(parsed.requestId);
}

export async function upload(
	h: Harness,
	secret: string,
	bytes: Buffer,
	mimeType: string,
	filename = 'file.bin',
	key = idem('up'),
): Promise<AxiosResponse> {
	return h.http.post('/assets', bytes, {
		headers: {
			...bearer(secret),
			'Idempotency-Key': key,
			'X-Service-Filename': encodeURIComponent(filename),
			'Content-Type': mimeType,
		},
	});
}
