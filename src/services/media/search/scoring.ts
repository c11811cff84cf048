import type { SearchIndex } from './index.ts';

/**
 * Relevance: BM25 of the query's words plus each document's popularity and freshness (its
 * static score), with a boost for the asked relevance language. One formula for every strategy:
 * scores compared across strategies must be computed alike.
 */

export const K1 = 1.2;
const B = 0.75;
const DAY_MS = 86_400_000;
/** Relevance blend: BM25 of the query + popularity + freshness (relative to the newest entry, so results do not drift with the wall clock). */
const POPULARITY_WEIGHT = 1.2;
const FRESHNESS_WEIGHT = 0.8;
const FRESHNESS_DAYS = 365;
export const LANGUAGE_BOOST = 1.3;

/** A term's BM25 in a document. */
export function bm25Of(idf: number, tf: number, docLen: number, avgLen: number): number {
  return (idf * tf * (K1 + 1)) / (tf + K1 * (1 - B + (B * docLen) / avgLen));
}

export function idfOf(index: SearchIndex, df: number): number {
  const N = Math.max(index.live, df);
  return Math.log(1 + (N - df + 0.5) / (df + 0.5));
}

/** A phrase's idf: that of a term in as many documents, doubled for two words or more (a phrase is rarer evidence than its words). */
export function phraseIdf(index: SearchIndex, df: number, words: number): number {
  return idfOf(index, df) * Math.min(2, words);
}

/** A document's popularity and freshness (kept as float32 in its record, SearchIndex.records, made again after the catalogue changes). */
export function staticScoreOf(index: SearchIndex, d: number): number {
  const k = index.kind[d];
  const pop = k === 0 ? Math.log10(1 + index.views[d]) / 7 : k === 1 ? Math.log10(1 + index.likes[d]) / 6 : Math.log10(1 + index.count[d]) / 6;
  const age = Math.max(0, index.maxPublished - index.published[d]) / DAY_MS;
  return POPULARITY_WEIGHT * pop + FRESHNESS_WEIGHT * Math.exp(-age / FRESHNESS_DAYS);
}
