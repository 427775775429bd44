import type { INodeProperties } from 'n8n-workflow';

/** n8n's standard "Return All" + "Limit" pair (the operation's updateDisplayOptions places them). */
export const paginationFields: INodeProperties[] = [
	{
		displayName: 'Return All',
		name: 'returnAll',
		type: 'boolean',
		default: false,
		description: 'Whether to return all results or only up to a given limit',
	},
	{
		displayName: 'Limit',
		name: 'limit',
		type: 'number',
		typeOptions: { minValue: 1 },
		default: 50,
		description: 'Max number of results to return',
		displayOptions: { show: { returnAll: [false] } },
	},
];

/** Option shared by every operation's Options collection. */
export const maxRateLimitWaitOption: INodeProperties = {
	displayName: 'Max Rate-Limit Wait (Seconds)',
	name: 'maxRateLimitWait',
	type: 'number',
	typeOptions: { minValue: 0 },
	default: 60,
	description:
		'Longest wait the node accepts when the service says to slow down (HTTP 429 Retry-After, or the rate window is used up). A longer wait fails the item with a message saying when to try again, instead of holding the workflow.',
};

export const binaryPropertyOutputOption: INodeProperties = {
	displayName: 'Put Output File in Field',
	name: 'binaryPropertyName',
	type: 'string',
	default: 'data',
	hint: 'The name of the output binary field to put the file in',
};

export const rangeOption: INodeProperties = {
	displayName: 'Byte Range',
	name: 'range',
	type: 'string',
	default: '',
	placeholder: 'bytes=0-1023',
	description:
		'Download only part of the file, as an HTTP Range (bytes=start-end). Leave empty for the whole file.',
};

/** The "Max Rate-Limit Wait" option as read from an operation's Options collection. */
export function maxWaitOf(options: { maxRateLimitWait?: unknown }): number | undefined {
	return typeof options.maxRateLimitWait === 'number' ? options.maxRateLimitWait : undefined;
}

/** The "Options" collection of an operation, defined once; options are listed alphabetically. */
export function optionsCollection(
	options: INodeProperties[],
	displayOptions?: INodeProperties['displayOptions'],
): INodeProperties {
	const collection: INodeProperties = {
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add option',
		default: {},
		options: [...options].sort((a, b) => a.displayName.localeCompare(b.displayName)),
	};
	if (displayOptions) collection.displayOptions = displayOptions;
	return collection;
}
