import type { INodeProperties } from 'n8n-workflow';

import * as getBalance from './getBalance.operation';
import * as getCapabilities from './getCapabilities.operation';
import * as getIdentity from './getIdentity.operation';
import * as getPlans from './getPlans.operation';
import * as getUsage from './getUsage.operation';

export { getBalance, getCapabilities, getIdentity, getPlans, getUsage };

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['account'] } },
		options: [
			{
				name: 'Get Balance',
				value: 'getBalance',
				action: 'Get the credit balance',
				description:
					'Credits available, reserved and spent (GET /balance, scope balance:read). Free.',
			},
			{
				name: 'Get Capabilities',
				value: 'getCapabilities',
				action: 'Get the service capabilities',
				description:
					'Whether generation is available, the accepted modes and upload limits (GET /capabilities, public). Free.',
			},
			{
				name: 'Get Identity',
				value: 'getIdentity',
				action: 'Get the identity of the API key',
				description: 'The user, key ID and scopes of the API key (GET /me, no scope needed). Free.',
			},
			{
				name: 'Get Plans',
				value: 'getPlans',
				action: 'Get the credit plans',
				description:
					'Offers configured on the service (GET /billing/plans, public). Buying happens in the dashboard.',
			},
			{
				name: 'Get Usage',
				value: 'getUsage',
				action: 'Get the credit ledger',
				description:
					'Ledger entries (grant, reserve, settle, release), newest first (GET /usage, scope usage:read). Free.',
			},
		],
		default: 'getBalance',
	},
	...getBalance.description,
	...getCapabilities.description,
	...getIdentity.description,
	...getPlans.description,
	...getUsage.description,
];
