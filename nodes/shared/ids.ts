import type { IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { ASSET_ID_PATTERN, JOB_ID_PATTERN, PERSONA_ID_PATTERN } from './constants';

const FORMS = {
	asset: {
		re: new RegExp(ASSET_ID_PATTERN),
		form: 'asset_ followed by 32 lowercase hex characters',
	},
	job: { re: new RegExp(JOB_ID_PATTERN), form: 'job_ followed by 32 lowercase hex characters' },
	persona: {
		re: new RegExp(PERSONA_ID_PATTERN),
		form: 'prs_ followed by 32 lowercase hex characters',
	},
};

/**
 * Reads a resource-locator parameter and checks the ID's form locally (n8n checks the regex only in
 * the editor; expressions reach execution unchecked), so a malformed ID costs no request.
 */
export function readId(
	ctx: IExecuteFunctions,
	parameter: string,
	kind: keyof typeof FORMS,
	i: number,
	label: string,
): string {
	const raw = ctx.getNodeParameter(parameter, i, '', { extractValue: true });
	const id = String(
		typeof raw === 'object' && raw !== null ? ((raw as { value?: unknown }).value ?? '') : raw,
	).trim();
	if (!id) {
		throw new NodeOperationError(
			ctx.getNode(),
			`${label} is required: pick one from the list or give its ID.`,
			{
				itemIndex: i,
			},
		);
	}
	if (!FORMS[kind].re.test(id)) {
		throw new NodeOperationError(
			ctx.getNode(),
			`${label} "${id}" is not a valid ${kind} ID (${FORMS[kind].form}).`,
			{ itemIndex: i },
		);
	}
	return id;
}
