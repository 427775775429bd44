// The local emulator of the service (emulator/src, TypeScript: run with `node --import tsx`), started in this
// process as the referee of the client contract: `close()` fails unless it saw exactly the violations
// declared with `expectViolations` (none by default), so no caller can skip the check.

/**
 * Start the emulator (emulator/src, see emulator/README.md) on a free port: { baseUrl, keys, control,
 * close, expectViolations, assertNoViolations }. The emulator is the referee of the client contract:
 * `close()` fails unless it saw exactly the violations declared with `expectViolations` (none by
 * default), so no suite can skip the check; suites that share one emulator across tests also call
 * `assertNoViolations()` after each test.
 */
export async function startEmulator(options = {}) {
	const { startEmulator: start } = await import('../../emulator/src/index.ts');
	const emu = await start({ port: 0, ...options });
	const close = emu.close;
	let expected = {};
	const unexpected = () => {
		const seen = Object.fromEntries(
			Object.entries(emu.control.violationCounts()).filter(([, n]) => n > 0),
		);
		const wanted = Object.fromEntries(Object.entries(expected).filter(([, n]) => n > 0));
		if (
			JSON.stringify(Object.entries(seen).sort()) === JSON.stringify(Object.entries(wanted).sort())
		)
			return undefined;
		const list = emu.control
			.violations()
			.slice(0, 20)
			.map((v) => `  ${v.kind} ${v.method} ${v.path} ${v.detail ?? ''}`)
			.join('\n');
		return `the emulator (referee) saw ${JSON.stringify(seen)}, expected ${JSON.stringify(wanted)}:\n${list}`;
	};
	emu.expectViolations = (counts) => {
		expected = { ...counts };
	};
	emu.assertNoViolations = () => {
		const problem = unexpected();
		emu.control.clearViolations();
		expected = {};
		if (problem) throw new RefereeError(problem);
	};
	emu.close = async () => {
		const problem = unexpected();
		await close();
		if (problem) throw new RefereeError(problem);
	};
	return emu;
}

/** The referee saw other client mistakes than expected. */
export class RefereeError extends Error {
	constructor(message) {
		super(message);
		this.name = 'RefereeError';
	}
}
