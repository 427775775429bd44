import type { INodeCredentialDescription, INodeProperties } from 'n8n-workflow';

import { CREDENTIAL_NAME } from '../constants';

export function credentialsFor(): INodeCredentialDescription[] {
	return [{ name: CREDENTIAL_NAME, required: true }];
}

/** Each node serves one resource of the API; the field keeps n8n's resource → operation layout. */
export function resourceProperty(name: string, value: string): INodeProperties {
	return {
		displayName: 'Resource',
		name: 'resource',
		type: 'options',
		noDataExpression: true,
		options: [{ name, value }],
		default: value,
	};
}
