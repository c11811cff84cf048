import { computeError } from './errors.ts';
import { LINK_BASE } from './names.ts';
import { type Scope, scopeKey } from './scope.ts';
import { matchesFilter, parseComputeFilter } from './filter/filter.ts';
import type { ComputeFilter } from './instanceTemplate/types.ts';
import { type PageQuery, decodeCursor, encodeCursor } from './pageToken.ts';
import type { ListCursor, ListOrder } from './store/keyset.ts';

export const MAX_RESULTS = 500;

/** The query parameters every Compute list method takes. */
export interface ListParams {
  filter?: string;
  maxResults?: number;
  orderBy?: string;
  pageToken?: string;
  returnPartialSuccess?: boolean;
}

/** An item of a list with its position in either order. */
export interface Listed {
  resource: unknown;
  cursor: { name: ListCursor; creation: ListCursor };
}

/**
 * One page of a list: `maxResults` 0..500 (0 = 500), `orderBy` `name` or `creationTimestamp desc`,
 * a filter applied item by item (fetching further batches until the page is full). `listId`
 * binds page tokens to the list they came from.
 */
export async function listPage<T extends Listed>(
  q: ListParams,
  listId: string,
  fetch: (order: ListOrder, after: ListCursor | undefined, limit: number) => Promise<T[]>,
): Promise<{ items: T[]; nextPageToken?: string }> {
  const { limit, order, filter } = listQuery(q);
  const query: PageQuery = { list: listId, order, filter: q.filter ?? '' };
  let after = q.pageToken ? decodeCursor(q.pageToken, query) : undefined;
  const items: T[] = [];
  const cursorOf = (t: T) => (order === 'name' ? t.cursor.name : t.cursor.creation);
  for (let rounds = 0; rounds < 10_000; rounds++) {
    const batch = await fetch(order, after, filter ? Math.max(limit + 1, 200) : limit + 1);
    for (const t of batch) {
      if (filter && !matchesFilter(filter, t.resource)) {
        after = cursorOf(t);
        continue;
      }
      if (items.length === limit) return { items, nextPageToken: encodeCursor(query, after!) };
      items.push(t);
      after = cursorOf(t);
    }
    if (batch.length < (filter ? Math.max(limit + 1, 200) : limit + 1)) break;
  }
  return { items };
}

function listQuery(q: ListParams): { limit: number; order: ListOrder; filter?: ComputeFilter } {
  if (q.maxResults !== undefined && (q.maxResults < 0 || q.maxResults > MAX_RESULTS)) {
    throw computeError('INVALID_ARGUMENT', 'invalidParameter', `Invalid value '${q.maxResults}'. Values must be within the range: [0, ${MAX_RESULTS}]`, { location: 'maxResults' });
  }
  const limit = q.maxResults || MAX_RESULTS;
  let order: ListOrder = 'name';
  if (q.orderBy !== undefined && q.orderBy !== '') {
    const o = q.orderBy.trim().replace(/\s+/g, ' ');
    if (o === 'creationTimestamp desc') order = 'creationTimestamp desc';
    else if (o !== 'name' && o !== 'name asc') {
      throw computeError('INVALID_ARGUMENT', 'invalid', `Invalid value for field 'orderBy': '${q.orderBy}'. Sorting by this field is not supported; use 'name' or 'creationTimestamp desc'.`, { location: 'orderBy' });
    }
  }
  const filter = q.filter !== undefined && q.filter.trim() !== '' ? parseComputeFilter(q.filter) : undefined;
  return { limit, order, filter };
}

/**
 * Pages of an in-memory list (the built-in catalogue, a world section): the fetch `listPage`
 * takes, over the items sorted once per order (by the order's key, then the id).
 */
export function memoryPages<T extends Listed>(all: readonly T[]): (order: ListOrder, after: ListCursor | undefined, limit: number) => Promise<T[]> {
  const sorted = new Map<ListOrder, T[]>();
  return async (order, after, limit) => {
    const key = (t: T) => (order === 'name' ? t.cursor.name : t.cursor.creation);
    const before = (a: ListCursor, b: ListCursor) => {
      if (a.key !== b.key) return order === 'name' ? a.key < b.key : a.key > b.key;
      return a.id.length !== b.id.length ? a.id.length < b.id.length : a.id < b.id;
    };
    let list = sorted.get(order);
    if (!list) sorted.set(order, (list = [...all].sort((a, b) => (before(key(a), key(b)) ? -1 : before(key(b), key(a)) ? 1 : 0))));
    let from = 0;
    if (after) {
      // The first item after the cursor (binary search: the list is sorted).
      let hi = list.length;
      while (from < hi) {
        const mid = (from + hi) >> 1;
        if (before(after, key(list[mid]))) hi = mid;
        else from = mid + 1;
      }
    }
    return list.slice(from, from + limit);
  };
}

/** A list method's answer: `compute#<schema>List` with its items, the next page's token and links (`id`: the collection's path). */
export function listAnswer(schema: string, id: string, page: { items: { resource: unknown }[]; nextPageToken?: string }): Record<string, unknown> {
  return {
    kind: `compute#${lowerFirst(schema)}List`,
    id,
    ...(page.items.length ? { items: page.items.map((i) => i.resource) } : {}),
    ...(page.nextPageToken ? { nextPageToken: page.nextPageToken } : {}),
    selfLink: LINK_BASE + id,
  };
}

/** A listed item with its scope (aggregated lists group by it). */
interface ScopedItem {
  resource: unknown;
  scope: Scope;
}

/** An aggregatedList's answer (`compute#<schema>AggregatedList`): `items` keyed by every scope asked (`global`, `regions/R`, `zones/Z`), each with its items or a warning. */
export function aggregatedAnswer(projectId: string, field: string, schema: string, page: { items: ScopedItem[]; nextPageToken?: string }, scopes: readonly Scope[]): Record<string, unknown> {
  const byScope = new Map<string, unknown[]>();
  for (const i of page.items) {
    const key = scopeKey(i.scope);
    if (!byScope.has(key)) byScope.set(key, []);
    byScope.get(key)!.push(i.resource);
  }
  const items: Record<string, unknown> = {};
  for (const s of scopes) {
    const key = scopeKey(s);
    const list = byScope.get(key);
    items[key] = list
      ? { [field]: list }
      : { warning: { code: 'NO_RESULTS_ON_PAGE', message: `There are no results for scope '${key}' on this page.`, data: [{ key: 'scope', value: key }] } };
  }
  const id = `projects/${projectId}/aggregated/${field}`;
  return { kind: `compute#${lowerFirst(schema)}AggregatedList`, id, items, ...(page.nextPageToken ? { nextPageToken: page.nextPageToken } : {}), selfLink: LINK_BASE + id };
}

const lowerFirst = (s: string) => s[0].toLowerCase() + s.slice(1);
