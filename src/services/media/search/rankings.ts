import type { SearchQuery } from '../catalog/types.ts';
import { RECORD, type SearchIndex } from './index.ts';
import type { List } from './postingLists.ts';

/**
 * The exact orders (date, rating, title, viewCount, videoCount; relevance by popularity and
 * freshness alone): every live document in ranking order, each document's place in it, and named
 * candidate lists (live states, geo cells) in ranking order. Built on demand, once per catalogue
 * version (SearchIndex.orderings, dropped on any change).
 */

/** The ranking key of the exact orders (bigger ranks first; title order compares titles instead). */
export function orderKey(index: SearchIndex, order: SearchQuery['order'], d: number): number {
  const kind = index.kind[d];
  switch (order) {
    case 'date':
      return index.published[d];
    case 'viewCount':
      return kind === 0 && index.liveState[d] === 1 ? index.concurrent[d] : kind === 2 ? 0 : index.views[d];
    case 'rating':
      // Likes per view, smoothed so a handful of views cannot top the list; channels and playlists carry no rating.
      return kind === 0 ? (index.likes[d] + 1) / (index.views[d] + 100) : -1;
    case 'videoCount':
      return kind === 1 ? index.count[d] : -1;
    case 'relevance':
      return index.recordScores[d * RECORD.words + RECORD.staticScore];
    default:
      return 0;
  }
}

/** `orderings` key of each document's place in an order's ranking (built with the ranking). */
const rankKey = (order: SearchQuery['order']) => `rank ${order}`;

/**
 * Every live document in the order's ranking order (relevance: by popularity + freshness), built
 * once per catalogue version, with each document's place in it. For a stable order
 * (STABLE_ORDERS) with a ranking from before the last changes, the documents added since are
 * sorted and merged into it, the dead left out: at a million documents a few milliseconds, where
 * sorting them all takes a second or two. The order is total (ties broken by id, then kind), so
 * both give the same ranking.
 */
export function ordering(index: SearchIndex, order: SearchQuery['order']): Int32Array {
  let perm = index.orderings.get(order);
  if (perm) return perm;
  const past = index.pastOrderings.get(order);
  index.pastOrderings.delete(order);
  const keys = new Float64Array(index.n);
  for (let d = 0; d < index.n; d++) if (index.alive[d]) keys[d] = orderKey(index, order, d);
  const { ids, titles, kind, alive } = index;
  const byId = (a: number, b: number) => (ids[a] < ids[b] ? -1 : ids[a] > ids[b] ? 1 : kind[a] - kind[b]);
  const compare = order === 'title' ? (a: number, b: number) => (titles[a] < titles[b] ? -1 : titles[a] > titles[b] ? 1 : byId(a, b)) : (a: number, b: number) => keys[b] - keys[a] || byId(a, b);
  const docs: number[] = [];
  for (let d = past ? past.n : 0; d < index.n; d++) if (alive[d]) docs.push(d);
  docs.sort(compare);
  if (past) {
    // the earlier ranking's live documents and the added ones, merged
    const merged = new Int32Array(past.perm.length + docs.length);
    let n = 0;
    let j = 0;
    for (let i = 0; i < past.perm.length; i++) {
      const d = past.perm[i];
      if (!alive[d]) continue;
      while (j < docs.length && compare(docs[j], d) < 0) merged[n++] = docs[j++];
      merged[n++] = d;
    }
    while (j < docs.length) merged[n++] = docs[j++];
    perm = merged.subarray(0, n);
  } else perm = Int32Array.from(docs);
  index.orderings.set(order, perm);
  const rank = new Int32Array(index.n);
  for (let i = 0; i < perm.length; i++) rank[perm[i]] = i;
  index.orderings.set(rankKey(order), rank);
  return perm;
}

/** Each document's place in the order's ranking (dead documents: 0, never asked). */
export function rankOf(index: SearchIndex, order: SearchQuery['order']): Int32Array {
  return index.orderings.get(rankKey(order)) ?? (ordering(index, order), index.orderings.get(rankKey(order))!);
}

/** Each document's place in the order's ranking when it is built (see `ordering`), else undefined. */
export function knownRank(index: SearchIndex, order: SearchQuery['order']): Int32Array | undefined {
  return index.orderings.get(rankKey(order));
}

/** A named candidate list's live documents in the order's ranking order (kept until the index changes). */
function rankedSubset(index: SearchIndex, l: List, order: SearchQuery['order']): Int32Array {
  const key = `${order} ${l.name}`;
  let sub = index.orderings.get(key);
  if (sub) return sub;
  const rank = rankOf(index, order);
  const docs: number[] = [];
  for (let i = 0; i < l.n; i++) if (index.alive[l.docs[i]]) docs.push(l.docs[i]);
  sub = Int32Array.from(docs).sort((a, b) => rank[a] - rank[b]);
  index.orderings.set(key, sub);
  return sub;
}

/** The documents of named lists (disjoint, or not: a document in two is given once) in the order's ranking order, one per call, -1 at the end. */
export function mergedInRankOrder(index: SearchIndex, lists: List[], order: SearchQuery['order']): () => number {
  const subs = lists.map((l) => rankedSubset(index, l, order));
  if (subs.length === 1) {
    const sub = subs[0];
    let j = 0;
    return () => (j < sub.length ? sub[j++] : -1);
  }
  const rank = rankOf(index, order);
  const pos = new Int32Array(subs.length);
  let last = -1;
  return () => {
    for (;;) {
      let best = -1;
      let bestRank = Infinity;
      for (let k = 0; k < subs.length; k++) {
        if (pos[k] < subs[k].length) {
          const r = rank[subs[k][pos[k]]];
          if (r < bestRank) {
            bestRank = r;
            best = k;
          }
        }
      }
      if (best < 0) return -1;
      const d = subs[best][pos[best]++];
      if (d !== last) return (last = d);
    }
  };
}
