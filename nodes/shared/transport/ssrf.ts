// n8n's SSRF protection (N8N_SSRF_PROTECTION_ENABLED=true) refusing the Base URL's address, told apart from
// a network fault and explained with the settings that allow it.
import type { INode } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

/**
 * n8n (2.41.x, @n8n/backend-network) throws these errors, without an error code, when its SSRF protection
 * blocks a request: the class name is the stable part (its `name` property), so it is what we branch on.
 */
const SSRF_ERROR_NAMES: Record<string, SsrfBlock['kind']> = {
	SsrfBlockedIpError: 'ip',
	SsrfBlockedHostnameError: 'hostname',
};

export interface SsrfBlock {
	kind: 'ip' | 'hostname';
	/** The refused address or host name, when n8n's error names it (never holds the key). */
	target?: string;
}

/** The SSRF block behind an error thrown by n8n's HTTP helper (wrapped by axios or n8n), if it is one. */
export function findSsrfBlock(
	error: unknown,
	depth = 0,
	seen = new Set<unknown>(),
): SsrfBlock | undefined {
	if (depth > 6 || typeof error !== 'object' || error === null || seen.has(error)) return undefined;
	seen.add(error);
	const e = error as Record<string, unknown>;
	const kind = typeof e.name === 'string' ? SSRF_ERROR_NAMES[e.name] : undefined;
	const target = kind === 'ip' ? e.ip : kind === 'hostname' ? e.hostname : undefined;
	if (kind && typeof target === 'string') return { kind, target };
	// a wrapper (axios copies the name) may come first: the original, with its address, is further in
	for (const key of ['cause', 'errorResponse', 'error', 'reason', 'originalError']) {
		const found = findSsrfBlock(e[key], depth + 1, seen);
		if (found) return found;
	}
	return kind ? { kind } : undefined;
}

/** The error the node throws for an SSRF block: what happened, and the two settings that allow the address. */
export function ssrfError(
	node: INode,
	block: SsrfBlock,
	call: string,
	itemIndex?: number,
): NodeOperationError {
	const what = block.target
		? `${block.kind === 'ip' ? 'the address' : 'the host name'} ${block.target}`
		: "the Base URL's address";
	const error = new NodeOperationError(
		node,
		`n8n's SSRF protection blocked the request to the Generation Service (${call}): ${what} is in a range n8n blocks. ` +
			'If the service really is there, allow it on the n8n instance: add its host name to N8N_SSRF_ALLOWED_HOSTNAMES or its address range (for example 10.0.0.5/32) to N8N_SSRF_ALLOWED_IP_RANGES, then restart n8n. Nothing was sent to the service.',
		{
			itemIndex,
			description:
				'N8N_SSRF_PROTECTION_ENABLED=true refuses private, loopback and link-local addresses unless they are allowed. Ask your n8n administrator, or check the Base URL of the credential.',
		},
	);
	error.context.errorCode = 'ssrf_blocked';
	return error;
}
