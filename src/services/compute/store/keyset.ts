import type { SelectQueryBuilder } from 'kysely';

/** A position in a list: the sort key of the last item of the previous page. */
export interface ListCursor {
  /** `name` order: the name; `creationTimestamp desc`: the creation time. */
  key: string | number;
  id: string;
}

export type ListOrder = 'name' | 'creationTimestamp desc';

/**
 * Keyset paging of a list: ordered by name (ascending) or by a time column (newest first), ties
 * broken by id in the same direction, starting after the cursor's (key, id).
 */
export function keysetPage<Q extends SelectQueryBuilder<any, any, any>>(query: Q, cols: { name: string; time: string; id: string }, order: ListOrder, after: ListCursor | undefined): Q {
  const [col, dir, key] = order === 'name' ? [cols.name, 'asc' as const, String(after?.key)] : [cols.time, 'desc' as const, Number(after?.key)];
  const past = dir === 'asc' ? '>' : '<';
  // Column names are the callers' own constants; Kysely's typing cannot follow them through a parameter.
  let q = query as SelectQueryBuilder<any, any, any>;
  if (after) q = q.where((eb) => eb.or([eb(col, past, key), eb.and([eb(col, '=', key), eb(cols.id, past, after.id)])]));
  return q.orderBy(col, dir).orderBy(cols.id, dir) as Q;
}

export const isDecimalId = (s: string) => /^[0-9]+$/.test(s);
