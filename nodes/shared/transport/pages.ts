// Pages of a list endpoint: follow nextCursor until enough items are in hand.
import type { IDataObject } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { apiRequest } from './request';
import type { Page, ServiceContext, ServiceRequest } from './types';

/** Follows nextCursor. With returnAll false, stops as soon as `limit` items are in hand. */
export async function apiRequestAllItems<T = IDataObject>(
	ctx: ServiceContext,
	request: ServiceRequest,
	paging: { returnAll: boolean; limit?: number },
	onPage?: (page: Page<T>) => void,
): Promise<T[]> {
	const limit = paging.limit ?? 50;
	if (!paging.returnAll && (!Number.isInteger(limit) || limit < 1)) {
		throw new NodeOperationError(
			ctx.getNode(),
			`Limit must be a whole number of at least 1 (got ${limit}), or turn on Return All.`,
			{ itemIndex: request.itemIndex },
		);
	}
	const wanted = paging.returnAll ? Infinity : limit;
	const items: T[] = [];
	let cursor: string | null = null;
	do {
		const pageSize = Math.min(100, wanted - items.length);
		const qs: IDataObject = { ...request.qs, limit: pageSize };
		if (cursor) qs.cursor = cursor;
		const page: Page<T> = await apiRequest<Page<T>>(ctx, { ...request, qs });
		onPage?.(page);
		items.push(...page.items);
		cursor = page.nextCursor;
	} while (cursor && items.length < wanted);
	return items.slice(0, wanted === Infinity ? undefined : wanted);
}
