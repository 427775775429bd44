import { ApiError } from './errors';

export interface PageQuery {
	limit: number;
	/** seq of the last item of the previous page; items with a smaller seq follow. */
	after: number | null;
}

/** Cursor: base64url of `c1:<seq>` — opaque to clients. */
export function encodeCursor(seq: number): string {
	return Buffer.from(`c1:${seq}`, 'utf8').toString('base64url');
}

function decodeCursor(cursor: string): number {
	const text = Buffer.from(cursor, 'base64url').toString('utf8');
	const m = /^c1:(\d+)$/.exec(text);
	if (!m || encodeCursor(Number(m[1])) !== cursor) {
		throw new ApiError('invalid_field', 'cursor inválido.');
	}
	return Number(m[1]);
}

export function parsePageQuery(query: Record<string, string | undefined>): PageQuery {
	let limit = 20;
	if (query.limit !== undefined) {
		if (!/^\d{1,3}$/.test(query.limit) || Number(query.limit) < 1 || Number(query.limit) > 100) {
			throw new ApiError('invalid_field', 'limit deve ser um inteiro de 1 a 100.');
		}
		limit = Number(query.limit);
	}
	const after = query.cursor !== undefined ? decodeCursor(query.cursor) : null;
	return { limit, after };
}

/** Newest first (highest seq first); `nextCursor` null at the end. */
export function paginate<T extends { seq: number }>(
	items: T[],
	page: PageQuery,
): { items: T[]; nextCursor: string | null } {
	const sorted = [...items].sort((a, b) => b.seq - a.seq);
	const rest = page.after === null ? sorted : sorted.filter((i) => i.seq < page.after!);
	const slice = rest.slice(0, page.limit);
	const nextCursor =
		rest.length > page.limit && slice.length > 0 ? encodeCursor(slice[slice.length - 1].seq) : null;
	return { items: slice, nextCursor };
}
