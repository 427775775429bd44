// n8n 3.0's defaults, said once, set on the n8n 2.x host (2.41.1) wherever the tooling starts it: every e2e
// suite on host 2 (createInstance, instance.mjs, applies them; the queue stack keeps its database binary mode
// over them), `npm start`, the demo, the bench and the soak on host 2. n8n 3.0 itself cannot be run here
// (Docker only); these are the settings in which 3.0 differs from 2.x for this package (docs/n8n-3.md).
//
// n8n 1.x (host 1) keeps its own defaults: it is the "1.x as users run it" baseline. 1.123.81 has no SSRF
// protection at all, and its default binary mode is in memory (it does offer filesystem: the regular-mode
// stack sets it there).
//
// The variable names and their syntax are n8n 2.41.1's (@n8n/config ssrf-protection.config: comma-separated
// CIDR ranges and host names; the allowed ranges are checked before the blocked ones).

/** 3.0's defaults as n8n 2.x variables. */
export const N8N_3_DEFAULTS = Object.freeze({
	// 3.0 removes the in-memory mode; filesystem is 2.x's default outside queue mode already, set explicitly
	N8N_DEFAULT_BINARY_DATA_MODE: 'filesystem',
	// 3.0's default: unverified community packages stop loading and cannot be installed
	N8N_UNVERIFIED_PACKAGES_ENABLED: 'false',
	// SSRF protection on: private, loopback and link-local addresses are refused
	N8N_SSRF_PROTECTION_ENABLED: 'true',
});

/**
 * What this machine must allow under SSRF protection, as a user with a service on a private address does: the
 * local services the tooling starts (the emulator, the S3 server, the model server, n8n's own webhooks) all
 * listen on 127.0.0.1, and only there. Any other loopback address (127.0.0.2, …) stays blocked.
 */
export const LOCAL_SERVICES_ALLOWED = Object.freeze({
	N8N_SSRF_ALLOWED_IP_RANGES: '127.0.0.1/32',
});

/** The environment host `version` runs under: 3.0's defaults plus the local allowance on 2.x, nothing on 1.x. */
export function n8nDefaultsEnv(version) {
	return String(version) === '2' ? { ...N8N_3_DEFAULTS, ...LOCAL_SERVICES_ALLOWED } : {};
}

/** One line naming them, for what npm start and the demo print. */
export function describeDefaults(version) {
	const env = n8nDefaultsEnv(version);
	if (!env.N8N_SSRF_PROTECTION_ENABLED) return 'n8n 1.x defaults (no SSRF protection)';
	return `n8n 3.0 defaults: SSRF protection on (${env.N8N_SSRF_ALLOWED_IP_RANGES} allowed), unverified packages off, ${env.N8N_DEFAULT_BINARY_DATA_MODE} binary data`;
}
