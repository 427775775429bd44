/**
 * Process-wide state in one place (issue 37, point 4): every store the package keeps per n8n process is
 * listed in nodes/shared/processState.ts and made through it, and the tests' one reset reaches them all.
 * The scan below fails when a module-level map, set or empty array appears in nodes/ without the
 * registry.
 */
import '../../nodes/GenerationServiceAccount/GenerationServiceAccount.node';
import '../../nodes/GenerationServiceAsset/GenerationServiceAsset.node';
import '../../nodes/GenerationServiceJob/GenerationServiceJob.node';
import '../../nodes/GenerationServicePersona/GenerationServicePersona.node';
import '../../nodes/GenerationServiceTrigger/GenerationServiceTrigger.node';
import {
	PROCESS_STORES,
	forgetProcessState,
	loadedStoreStates,
	loadedStores,
} from '../../nodes/shared/processState';
import type { StoreName } from '../../nodes/shared/processState';
import { readSource, sourceFiles } from '../helpers/sources';

/** Module-level sets of fixed values: lookup tables, not stores (nothing is ever added to them). */
const LOOKUP_TABLES = new Set([
	'nodes/shared/service/errors.ts TRANSIENT_CODES',
	'nodes/shared/service/client.ts DEFINITIVE',
	'nodes/shared/processState.ts resets', // the registry's own map, one entry per listed name
]);

/**
 * Top-level `const`/`let` declarations whose initializer (up to the next top-level line) makes a
 * collection that can grow: `new Map`, `new Set`, `new WeakMap`, `new WeakSet`, or an empty array.
 */
function moduleLevelCollections(source: string): Array<{ name: string; initializer: string }> {
	const lines = source.split('\n');
	const found: Array<{ name: string; initializer: string }> = [];
	lines.forEach((line, i) => {
		const declaration = /^(?:export )?(?:const|let) (\w+)/.exec(line);
		if (!declaration) return;
		let end = i + 1;
		while (end < lines.length && !/^[^\s)}\]]/.test(lines[end])) end++;
		const initializer = lines.slice(i, end).join('\n');
		if (/new (?:Map|Set|WeakMap|WeakSet)\b|=\s*\[\s*\]/.test(initializer)) {
			found.push({ name: declaration[1], initializer });
		}
	});
	return found;
}

describe('the process state registry', () => {
	const entries = Object.entries(PROCESS_STORES) as Array<
		[StoreName, (typeof PROCESS_STORES)[StoreName]]
	>;

	it('makes every module-level map, set or growing array of nodes/ through the registry', () => {
		const unregistered: string[] = [];
		for (const path of sourceFiles('nodes')) {
			for (const { name, initializer } of moduleLevelCollections(readSource(path))) {
				if (LOOKUP_TABLES.has(`${path} ${name}`)) continue;
				const listed = entries.find(
					([, store]) => store.declaredIn === path && store.variable === name,
				);
				const made = listed && new RegExp(`(processStore|runStore)\\b[^(]*\\(\\s*'${listed[0]}'`);
				if (!listed || !made?.test(initializer)) unregistered.push(`${path} ${name}`);
			}
		}
		expect(unregistered).toEqual([]);
	});

	it('names for every store where it is declared, and that file makes it', () => {
		for (const [name, store] of entries) {
			const source = readSource(store.declaredIn);
			expect(source).toMatch(
				new RegExp(
					`const ${store.variable}\\b[^=]*=\\s*(processStore|runStore)\\b[^(]*\\(\\s*'${name}'`,
				),
			);
		}
	});

	it("gives the tests' reset every store that is not weakly keyed, once the nodes are loaded", () => {
		const clearable = entries.filter(([, store]) => !('weak' in store)).map(([name]) => name);
		expect(loadedStores().sort()).toEqual(clearable.sort());
	});
});

/** What a store holds, as a comparable shape: the sizes of its collections and its plain values. */
function shape(value: unknown): unknown {
	if (value instanceof Map || value instanceof Set) return { size: value.size };
	if (Array.isArray(value)) return { length: value.length };
	if (value !== null && typeof value === 'object') {
		return Object.fromEntries(Object.entries(value).map(([key, field]) => [key, shape(field)]));
	}
	return value;
}

/** Puts something in every collection of a store and changes every number: a store that learned. */
function fill(value: unknown): void {
	if (value instanceof Map) value.set(`filled-${value.size}`, {});
	else if (value instanceof Set) value.add(`filled-${value.size}`);
	else if (Array.isArray(value)) value.push('filled');
	else if (value !== null && typeof value === 'object') {
		const fields = value as Record<string, unknown>;
		for (const [key, field] of Object.entries(fields)) {
			if (typeof field === 'number') fields[key] = Number.isFinite(field) ? field + 42 : 42;
			else fill(field);
		}
	}
}

describe('the reset of the process state', () => {
	it('empties every store: each collection, each counter back to a fresh process', () => {
		forgetProcessState();
		const fresh = new Map([...loadedStoreStates()].map(([name, state]) => [name, shape(state)]));
		for (const state of loadedStoreStates().values()) fill(state);
		const filled = new Map([...loadedStoreStates()].map(([name, state]) => [name, shape(state)]));
		for (const [name, state] of fresh)
			expect({ name, state: filled.get(name) }).not.toEqual({ name, state });
		forgetProcessState();
		for (const [name, state] of loadedStoreStates()) {
			expect({ name, state: shape(state) }).toEqual({ name, state: fresh.get(name) });
		}
	});
});
