// How durations and sizes read in the tooling's logs and reports.

/** "4.20 s" under 10 s, else "3m05s". */
export function fmtMs(ms) {
	return ms < 10_000
		? `${(ms / 1000).toFixed(2)} s`
		: `${Math.floor(ms / 60_000)}m${String(Math.round((ms % 60_000) / 1000)).padStart(2, '0')}s`;
}

/** "12.3 s". */
export const secs = (ms) => `${(ms / 1000).toFixed(1)} s`;

/** "412 MiB" ('?' when unknown). */
export const mib = (b) => (b ? `${Math.round(b / 2 ** 20)} MiB` : '?');

/** The last `n` lines of a text. */
export function lastLines(text, n) {
	return text.trim().split('\n').slice(-n).join('\n');
}
