import type { IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

/**
 * Turns the Byte Range option into `bytes=<start>-<end>` (also accepts `start-end`, `start-` and
 * `-suffix`) and checks it against the asset's size, so an impossible range costs no request.
 */
export function normalizeRange(
	ctx: IExecuteFunctions,
	raw: string | undefined,
	byteSize: number | undefined,
	itemIndex: number,
): string | undefined {
	const text = (raw ?? '').replace(/\s+/g, '');
	if (!text) return undefined;
	const fail = (why: string) =>
		new NodeOperationError(
			ctx.getNode(),
			`"Byte Range" of item ${itemIndex} is not usable: ${why}. Use bytes=start-end (for example bytes=0-1023), bytes=start- or bytes=-lastBytes, or leave it empty for the whole file.`,
			{ itemIndex },
		);
	const match = /^(?:bytes=)?(\d*)-(\d*)$/i.exec(text);
	if (!match || (match[1] === '' && match[2] === ''))
		throw fail(`"${raw}" is not a single byte range`);
	const start = match[1] === '' ? undefined : Number(match[1]);
	const end = match[2] === '' ? undefined : Number(match[2]);
	if (start === undefined && end === 0) throw fail('a suffix range must ask for at least 1 byte');
	if (start !== undefined && end !== undefined && end < start) {
		throw fail(`the end (${end}) is before the start (${start})`);
	}
	if (start !== undefined && typeof byteSize === 'number' && start >= byteSize) {
		throw fail(`the start (${start}) is at or after the end of the file (${byteSize} bytes)`);
	}
	return `bytes=${match[1]}-${match[2]}`;
}
