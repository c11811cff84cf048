import type { SearchIndex } from './index.ts';

/**
 * Sorted lists of document numbers as the evaluation reads them: a cursor over a list, its
 * search (binary, or galloping from the cursor; for a dense list, a bit set with ranks) and the
 * union of lists.
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
  term: number | undefined;
  /** A dense list's bit set (see `denseOf`), for finding a document without a search. */
  dense: Dense | undefined;
}

/** Every list has the same shape (one hidden class: the evaluation's loops over lists stay monomorphic). */
export function list(p: { docs: Int32Array; tf?: Uint8Array; n: number }, idf: number, scored: boolean, name?: string, term?: number, dense?: Dense): List {
  return { docs: p.docs, tf: scored ? p.tf : undefined, n: p.n, idf, pos: 0, name, term, dense };
}

/**
 * A list as a bit set of its documents with, per 32-bit word, how many documents come before it:
 * a document's position in the list (its rank) is found with two reads and a population count,
 * where a binary search of a list of hundreds of thousands of documents costs a dozen cache
 * misses. Made for terms in at least 1/32 of the documents (where the bit set is smaller than
 * the list), at their first search, and kept until the index changes (SearchIndex.dense).
 */
export interface Dense {
  bits: Int32Array;
  before: Int32Array;
}

/** A term's bit set, when its list is dense (see Dense). */
export function denseOf(index: SearchIndex, term: number): Dense | undefined {
  const p = index.postings[term];
  if (p.n < DENSE_MIN || p.n * 32 < index.n) return undefined;
  let dense = index.dense.get(term);
  if (!dense) {
    const words = (index.n + 31) >>> 5;
    const bits = new Int32Array(words);
    for (let i = 0; i < p.n; i++) bits[p.docs[i] >>> 5] |= 1 << (p.docs[i] & 31);
    const before = new Int32Array(words);
    for (let w = 0, count = 0; w < words; w++) {
      before[w] = count;
      count += popCount(bits[w]);
    }
    index.dense.set(term, (dense = { bits, before }));
  }
  return dense;
}
/** Lists shorter than this are searched (their binary search stays in the caches). */
const DENSE_MIN = 4096;

/** The position in a dense list of the first document >= d (its rank). */
export function rankIn(dense: Dense, d: number): number {
  const w = d >>> 5;
  return dense.before[w] + popCount(dense.bits[w] & ((1 << (d & 31)) - 1));
}

/** Whether a dense list holds d. */
export function holds(dense: Dense, d: number): boolean {
  return (dense.bits[d >>> 5] & (1 << (d & 31))) !== 0;
}

function popCount(x: number): number {
  x -= (x >>> 1) & 0x55555555;
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  x = (x + (x >>> 4)) & 0x0f0f0f0f;
  return Math.imul(x, 0x01010101) >>> 24;
}

/** First position whose document is >= target (binary search: a candidate out of order, no cursor to start from). */
export function lowerBound(docs: Int32Array, n: number, target: number): number {
  return lowerBoundIn(docs, 0, n, target);
}

/** First position in [lo, hi) whose document is >= target, else hi. */
function lowerBoundIn(docs: Int32Array, lo: number, hi: number, target: number): number {
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (docs[mid] < target) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * First position whose document is >= d, for a candidate out of order (a walk in score order). A
 * word's long list gets a table by document number (made at its first such search, kept while
 * the list is unchanged): bucket b holds the position of the list's first document >= b << shift,
 * the buckets being about PER_BUCKET documents of the list wide, so a search reads one table entry
 * and then a run of the list a cache line or two long. A binary search of tens of thousands of
 * documents costs a dozen dependent reads and mispredicted branches, some of them cache misses at
 * a million documents. Other lists (phrases, unions: made for one search) get a binary search.
 */
export function seek(l: List, d: number): number {
  if (l.term === undefined || l.n < TABLE_MIN) return lowerBound(l.docs, l.n, d);
  let t = tables.get(l.docs);
  // a word's list only grows at its end (a changed document is a new one): a new table when it has
  if (!t || t.n !== l.n) tables.set(l.docs, (t = bucketTable(l.docs, l.n)));
  const b = d >>> t.shift;
  if (b + 1 >= t.first.length) return d > l.docs[l.n - 1] ? l.n : lowerBound(l.docs, l.n, d);
  return lowerBoundIn(l.docs, t.first[b], t.first[b + 1], d);
}
/** A word's list's bucket table (see `seek`) when one is made and current, else undefined (none is made here). */
export function bucketTableOf(l: List): { first: Int32Array; shift: number } | undefined {
  if (l.term === undefined || l.n < TABLE_MIN) return undefined;
  const t = tables.get(l.docs);
  return t && t.n === l.n ? t : undefined;
}

const PER_BUCKET = 8;
const TABLE_MIN = 1024;
interface BucketTable {
  n: number;
  shift: number;
  /** first[b]: the position of the first document >= b << shift (n past the last). */
  first: Int32Array;
}
const tables = new WeakMap<Int32Array, BucketTable>();

function bucketTable(docs: Int32Array, n: number): BucketTable {
  const span = docs[n - 1] + 1;
  const shift = 31 - Math.clz32(Math.max(1, Math.floor((span * PER_BUCKET) / n)));
  const buckets = (docs[n - 1] >>> shift) + 2;
  const first = new Int32Array(buckets);
  let b = 0;
  for (let pos = 0; pos < n; pos++) {
    const of = docs[pos] >>> shift;
    while (b <= of) first[b++] = pos;
  }
  while (b < buckets) first[b++] = n;
  return { n, shift, first };
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
  return list({ docs: acc, n: acc.length }, 0, false);
}
