import type {
	Icon,
	ICredentialDataDecryptedObject,
	ICredentialTestRequest,
	ICredentialType,
	IHttpRequestOptions,
	INodeProperties,
} from 'n8n-workflow';

import { checkAtSend } from '../nodes/shared/service/client';

export class GenerationServiceApi implements ICredentialType {
	name = 'generationServiceApi';

	displayName = 'Generation Service API';

	icon: Icon = {
		light: 'file:../icons/generationService.svg',
		dark: 'file:../icons/generationService.dark.svg',
	};

	documentationUrl =
		'https://github.com/generation-service/n8n-nodes-generation-service#credential-setup';

	properties: INodeProperties[] = [
		{
			displayName: 'API Key',
			name: 'apiKey',
			type: 'string',
			typeOptions: { password: true },
			required: true,
			default: '',
			placeholder: 'svc_sk_key_…',
			description:
				'Secret key of the form svc_sk_key_&lt;32 hex&gt;.&lt;64 hex&gt;, created in the dashboard. For server-side use only: never put it in a browser or a public workflow.',
		},
		{
			displayName: 'Base URL',
			name: 'baseUrl',
			type: 'string',
			required: true,
			default: '',
			placeholder: 'https://api.example.com/v1',
			description:
				'Address of the service, ending in /v1. Must use https:// unless the host is loopback (127.0.0.1, localhost or [::1]), for example the local emulator at http://127.0.0.1:4010/v1.',
		},
	];

	// A function, not a generic `{ headers: { Authorization: '=Bearer {{$credentials.apiKey}}' } }`: n8n
	// evaluates a generic one's expression on every request (in 2.x through its expression sandbox), which was
	// the largest single cost per item in the CPU profile (docs/benchmarks.md); a function only sets a header.
	// It is also the last step of n8n's helper before a request goes out: a request of the nodes that a 429's
	// hold (or the key's refusal) overtook since its pacer let it go is held back here (checkAtSend).
	async authenticate(
		credentials: ICredentialDataDecryptedObject,
		requestOptions: IHttpRequestOptions,
	): Promise<IHttpRequestOptions> {
		checkAtSend(requestOptions);
		return {
			...requestOptions,
			headers: { ...requestOptions.headers, Authorization: `Bearer ${String(credentials.apiKey)}` },
		};
	}

	// GET /me needs no scope, so a read-only key passes the test too. n8n shows a rule's message instead of its
	// own bare words ("Unauthorized", "Not Found", or "Connection successful!" for a page that is not the
	// service): the rules name the likely mistake and what to do.
	test: ICredentialTestRequest = {
		request: {
			baseURL: '={{$credentials.baseUrl.replace(/\\/+$/, "")}}',
			url: '/me',
			method: 'GET',
		},
		// n8n types the rules as a list of one kind; its credential test reads each rule by its type
		rules: [
			{
				type: 'responseCode',
				properties: {
					value: 401,
					message:
						'The service did not accept this API key (invalid, expired or revoked). Paste the secret key from the dashboard (svc_sk_key_…) or create a new key.',
				},
			},
			{
				type: 'responseCode',
				properties: {
					value: 404,
					message:
						'Nothing answers GET /me at this Base URL: it must be the service address ending in /v1, e.g. https://api.example.com/v1 (the local emulator: http://127.0.0.1:4010/v1).',
				},
			},
			{
				// a web page, a proxy or another API answered: no `data` in its answer, which the service always has
				type: 'responseSuccessBody',
				properties: {
					key: 'data',
					value: undefined,
					message:
						"Something answered at this Base URL, but not the Generation Service (a web page or a proxy?): its answer to GET /me is not the service's JSON. Use the service's API address ending in /v1.",
				},
			},
		] as unknown as ICredentialTestRequest['rules'],
	};
}
