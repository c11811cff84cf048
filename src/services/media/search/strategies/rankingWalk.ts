import { RECORD } from '../index.ts';
import type { Ranked, SearchPlan } from '../plan.ts';
import { mergedInRankOrder, ordering } from '../rankings.ts';
import { K1 } from '../scoring.ts';
import { deepList } from '../topDocuments.ts';
import { TopK } from '../topK.ts';
import { READ_AHEAD, readerAhead } from '../readAhead.ts';

/**
 * Many candidates in an exact order (or by relevance without `q`): the documents are walked in
 * ranking order and the walk stops once the page (and one more) is full (top-k), from the
 * smallest of: a selective candidate set's own lists in ranking order (live broadcasts, the geo
 * cells of a circle), a term's first documents in the order's ranking (its deep list), or the
 * whole ranking, which is given up past a budget (the scan is then cheaper).
 */
export function byRankingWalk(p: SearchPlan): Ranked | undefined {
  const { index, order, driverReq, driverN, rank, required } = p;
  const { orderedScanMin } = index.tuning;
  // A selective candidate set with its own lists in ranking order (live broadcasts, the geo cells
  // of a circle): walked to the end at most, which costs no more than scoring each candidate.
  if (driverReq?.ranked && driverN > orderedScanMin / 16) {
    const r = walk(p, mergedInRankOrder(index, driverReq.lists, order), driverN, Infinity);
    if (r) return r;
  }
  // An exact order with a term's documents as candidates: its first documents in the order's ranking.
  const driving = driverReq?.lists.length === 1 ? driverReq.lists[0] : undefined;
  if (rank && driving?.term !== undefined && driverN > orderedScanMin / 8) {
    const dl = deepList(index, `${order} ${driving.term}`, index.postings[driving.term], (d) => -rank[d]);
    const r = walk(p, dl.docs, driverN, Infinity, dl.cutoff !== -Infinity, required.indexOf(driverReq!));
    if (r) return r;
  }
  if (driverN > orderedScanMin) {
    const perm = ordering(index, order);
    // Walking costs more per document than scoring a candidate list; past this budget, score the list
    // instead (0: tests, walk to the end). Exact orders give up sooner: their scan skips most candidates
    // by their place alone (see scan.ts), and a term's documents may all sit late in the order (titles in
    // another script, old videos).
    const budget = orderedScanMin === 0 ? Infinity : p.rankedByPlace ? driverN >> 4 : orderedScanMin + (driverN >> 3);
    const r = walk(p, perm, perm.length, budget);
    if (r) return r;
  }
  return undefined;
}

/**
 * Walks documents in ranking order and stops early (top-k). `docs` are the documents in ranking
 * order, or a function that gives them one per call (-1 at the end); past `budget` documents the
 * walk gives up (what the checks will read of a list's next documents is read ahead, see
 * readAhead.ts). `partial`: `docs` are only the first part of the candidates (see
 * topDocuments.ts `deepList`). `known`: a requirement every candidate meets (see
 * SearchPlan.match; exact orders: no BM25).
 */
function walk(p: SearchPlan, docs: Int32Array | (() => number), length: number, budget: number, partial = false, known = -1): Ranked | undefined {
  const { index, reach, byTitle, order, required, maxBoost, match, keyOf, finish } = p;
  // One more than needed: finding it proves there are more results.
  const topK = new TopK(index, reach + 1, byTitle);
  const exact = order !== 'relevance';
  let maxBm25 = 0;
  for (const r of required) if (r.scored) maxBm25 += Math.max(...r.lists.map((l) => l.idf)) * (K1 + 1);
  let matched = 0;
  let ended = false;
  let i = 0;
  const listed = typeof docs === 'function' ? undefined : docs;
  const next = typeof docs === 'function' ? docs : undefined;
  const ahead = listed && readerAhead(p, { records: true, beside: known, seeks: true });
  for (let d: number; ; i++) {
    if (listed) {
      if (ahead && i % READ_AHEAD === 0) ahead(listed, i, listed.length);
      d = i < listed.length ? listed[i] : -1;
    } else d = next!();
    if (d < 0) {
      ended = true;
      break;
    }
    if (topK.full) {
      if (exact) break;
      if ((maxBm25 + index.recordScores[d * RECORD.words + RECORD.staticScore]) * maxBoost < topK.worstKey) break;
    }
    if (i > budget) break;
    const bm25 = match(d, true, known);
    if (bm25 < 0) continue;
    matched++;
    topK.offer(d, keyOf(d, bm25));
  }
  p.resetCursors();
  if (i > budget && !ended) return undefined;
  if (ended && partial) {
    // the rest rank after every document walked: exact when the page (and one more) is full
    if (!topK.full) return undefined;
    ended = false;
  }
  // Stopped early: the total is estimated from the share of documents walked (the API's totalResults is approximate too).
  const total = ended ? matched : Math.max(matched, Math.round((matched * length) / Math.max(1, i)));
  index.stats.walk++;
  return finish(topK, total);
}
