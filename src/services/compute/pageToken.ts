import { computeError } from './errors.ts';
import type { ListCursor, ListOrder } from './store/keyset.ts';

/** What a page token is bound to: the list, its order and its filter. */
export interface PageQuery {
  list: string;
  order: ListOrder;
  filter: string;
}

function digest(q: PageQuery): string {
  let h = 0;
  for (const c of `${q.list}|${q.order}|${q.filter}`) h = (Math.imul(h, 31) + c.charCodeAt(0)) | 0;
  return (h >>> 0).toString(36);
}

/** Opaque list cursor: the sort key and id of the last item of the previous page. */
export function encodeCursor(q: PageQuery, c: ListCursor): string {
  return Buffer.from(JSON.stringify([digest(q), c.key, c.id])).toString('base64url');
}

export function decodeCursor(token: string, q: PageQuery): ListCursor {
  let v: unknown;
  try {
    v = JSON.parse(Buffer.from(token, 'base64url').toString('utf8'));
  } catch {
    v = undefined;
  }
  const okKey = (k: unknown) => (q.order === 'name' ? typeof k === 'string' && k.length <= 200 : Number.isSafeInteger(k));
  if (!Array.isArray(v) || v.length !== 3 || v[0] !== digest(q) || !okKey(v[1]) || typeof v[2] !== 'string' || !/^[0-9]{1,20}$/.test(v[2])) {
    throw computeError('INVALID_ARGUMENT', 'invalid', `Invalid value for field 'pageToken': '${token.slice(0, 100)}'. The page token is not valid for this list request.`, { location: 'pageToken' });
  }
  return { key: v[1], id: v[2] };
}
