import type { IDataObject, ILoadOptionsFunctions, INodeListSearchResult } from 'n8n-workflow';

import { PAGE_SIZE, apiRequest, type Page } from '../service/client';

/** One page per call; n8n asks for the next one with the cursor as paginationToken. */
async function searchPage(
	ctx: ILoadOptionsFunctions,
	path: string,
	toResult: (item: IDataObject) => { name: string; value: string } | undefined,
	filter?: string,
	paginationToken?: string,
): Promise<INodeListSearchResult> {
	const qs: IDataObject = { limit: PAGE_SIZE };
	if (paginationToken) qs.cursor = paginationToken;
	const page = await apiRequest<Page<IDataObject>>(ctx, { method: 'GET', path, qs });
	const needle = (filter ?? '').toLowerCase();
	const results = page.items
		.map(toResult)
		.filter((r): r is { name: string; value: string } => !!r)
		.filter((r) => !needle || r.name.toLowerCase().includes(needle) || r.value.includes(needle));
	return { results, paginationToken: page.nextCursor ?? undefined };
}

function assetResult(kind?: 'image' | 'video') {
	return (asset: IDataObject) =>
		kind && asset.kind !== kind
			? undefined
			: {
					name: `${String(asset.filename)} (${String(asset.kind)}, ${String(asset.id)})`,
					value: String(asset.id),
				};
}

export async function searchAssets(this: ILoadOptionsFunctions, filter?: string, token?: string) {
	return await searchPage(this, '/assets', assetResult(), filter, token);
}

export async function searchImageAssets(
	this: ILoadOptionsFunctions,
	filter?: string,
	token?: string,
) {
	return await searchPage(this, '/assets', assetResult('image'), filter, token);
}

export async function searchVideoAssets(
	this: ILoadOptionsFunctions,
	filter?: string,
	token?: string,
) {
	return await searchPage(this, '/assets', assetResult('video'), filter, token);
}

export async function searchPersonas(this: ILoadOptionsFunctions, filter?: string, token?: string) {
	return await searchPage(
		this,
		'/personas',
		(p) => ({ name: `${String(p.name)} (${String(p.id)})`, value: String(p.id) }),
		filter,
		token,
	);
}

export async function searchJobs(this: ILoadOptionsFunctions, filter?: string, token?: string) {
	return await searchPage(
		this,
		'/jobs',
		(j) => {
			const input = (j.input ?? {}) as IDataObject;
			const when = typeof j.createdAt === 'number' ? new Date(j.createdAt).toISOString() : '';
			return {
				name: `${String(input.mode ?? 'job')} · ${String(j.state)} · ${when} (${String(j.id)})`,
				value: String(j.id),
			};
		},
		filter,
		token,
	);
}
