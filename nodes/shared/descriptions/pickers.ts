import type { INodeProperties } from 'n8n-workflow';

import { ASSET_ID_PATTERN, JOB_ID_PATTERN, PERSONA_ID_PATTERN } from '../constants';

type Locator = Omit<INodeProperties, 'displayOptions'> & Pick<INodeProperties, 'displayOptions'>;

function locator(
	name: string,
	displayName: string,
	searchListMethod: string,
	pattern: string,
	example: string,
	noun: string,
	extra: Partial<INodeProperties> = {},
): Locator {
	return {
		displayName,
		name,
		type: 'resourceLocator',
		default: { mode: 'list', value: '' },
		required: true,
		modes: [
			{
				displayName: 'From List',
				name: 'list',
				type: 'list',
				typeOptions: { searchListMethod, searchable: true, searchFilterRequired: false },
			},
			{
				displayName: 'By ID',
				name: 'id',
				type: 'string',
				placeholder: example,
				validation: [
					{
						type: 'regex',
						properties: { regex: pattern, errorMessage: `Not a valid ${noun} ID (${example})` },
					},
				],
			},
		],
		...extra,
	};
}

const ASSET_EXAMPLE = 'asset_0123456789abcdef0123456789abcdef';

/** An asset picker; `kind` narrows the list to images or videos where the mode needs one. */
export function assetLocator(
	name: string,
	displayName: string,
	kind: 'any' | 'image' | 'video',
	description?: string,
): Locator {
	const method =
		kind === 'image'
			? 'searchImageAssets'
			: kind === 'video'
				? 'searchVideoAssets'
				: 'searchAssets';
	return locator(name, displayName, method, ASSET_ID_PATTERN, ASSET_EXAMPLE, 'asset', {
		description,
	});
}

export function personaLocator(name: string, displayName: string, description?: string): Locator {
	return locator(
		name,
		displayName,
		'searchPersonas',
		PERSONA_ID_PATTERN,
		'prs_0123456789abcdef0123456789abcdef',
		'persona',
		{ description },
	);
}

export function jobLocator(name: string, displayName: string, description?: string): Locator {
	return locator(
		name,
		displayName,
		'searchJobs',
		JOB_ID_PATTERN,
		'job_0123456789abcdef0123456789abcdef',
		'job',
		{ description },
	);
}
