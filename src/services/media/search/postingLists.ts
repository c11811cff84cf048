/**
 * Sorted lists of document numbers as the evaluation reads them: a cursor over a list, its
 * search (binary, or galloping from the cursor) and the union of lists.
 */

/** A list of ascending documents with a cursor (`pos`), as a search reads it. */
export interface List {
  docs: Int32Array;
  tf: Uint8Array | undefined;
  n: number;
  idf: number;
  pos: number;
  /** A selective candidate list's name (live state, geo cell): its documents in ranking order are kept per order (see rankings.ts `rankedSubset`). */
  name?: string;
  /** A single word's list: its term id (see topDocuments.ts `deepList`). */
  term?: number;
}

export function list(p: { docs: Int32Array; tf?: Uint8Array; n: number }, idf: number, scored: boolean, name?: string): List {
  return { docs: p.docs, tf: scored ? p.tf : undefined, n: p.n, idf, pos: 0, name };
}

/** First position whose document is >= target (binary search: a candidate out of order, no cursor to start from). */
export function lowerBound(docs: Int32Array, n: number, target: number): number {
  let lo = 0;
  let hi = n;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (docs[mid] < target) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** First position >= `from` whose document is >= target (galloping then binary search). */
export function advance(docs: Int32Array, n: number, from: number, target: number): number {
  if (from >= n || docs[from] >= target) return from;
  let lo = from;
  let step = 1;
  let hi = from + 1;
  while (hi < n && docs[hi] < target) {
    lo = hi;
    step <<= 1;
    hi = lo + step;
  }
  if (hi > n) hi = n;
  while (lo + 1 < hi) {
    const mid = (lo + hi) >>> 1;
    if (docs[mid] < target) lo = mid;
    else hi = mid;
  }
  return hi;
}

/** The sorted union of sorted document lists. */
export function unionOf(lists: { docs: Int32Array; n: number }[]): List {
  let acc = lists[0].docs.subarray(0, lists[0].n);
  for (let k = 1; k < lists.length; k++) {
    const b = lists[k].docs;
    const bn = lists[k].n;
    const out = new Int32Array(acc.length + bn);
    let i = 0;
    let j = 0;
    let o = 0;
    while (i < acc.length && j < bn) {
      const x = acc[i];
      const y = b[j];
      if (x < y) (out[o++] = x), i++;
      else if (y < x) (out[o++] = y), j++;
      else (out[o++] = x), i++, j++;
    }
    while (i < acc.length) out[o++] = acc[i++];
    while (j < bn) out[o++] = b[j++];
    acc = out.subarray(0, o);
  }
  return { docs: acc, tf: undefined, n: acc.length, idf: 0, pos: 0 };
}
