import { RECORD } from '../index.ts';
import type { Ranked, SearchPlan } from '../plan.ts';
import { bm25Of } from '../scoring.ts';
import { deepList } from '../topDocuments.ts';
import { TopK } from '../topK.ts';
import { READ_AHEAD, readerAhead } from '../readAhead.ts';

/**
 * Relevance, when the champion lists cannot prove the page (a second term rarely among a frequent
 * term's champions, a deep page): the rarest single-term clause's documents by that term's BM25 +
 * popularity and freshness, best first (its deep list), walked until no document left could
 * reach the page (its score there + every other clause's maximum is below the last kept).
 */
export function byDeepList(p: SearchPlan): Ranked | undefined {
  const { index, textClauses, reach, avgLen, maxBoost, match, keyOf, boostOf, finish } = p;
  let c = -1;
  for (let r = 0; r < textClauses.length; r++) {
    const atoms = textClauses[r].atoms;
    if (atoms.length === 1 && atoms[0].list.term !== undefined && (c < 0 || atoms[0].list.n < textClauses[c].atoms[0].list.n)) c = r;
  }
  if (c < 0) return undefined;
  const l = textClauses[c].atoms[0].list;
  const term = l.term!;
  const { records, recordScores } = index;
  const W = RECORD.words;
  const dl = deepList(
    index,
    `relevance ${term}`,
    index.postings[term],
    (d, tf) => bm25Of(l.idf, tf, records[d * W + RECORD.length], avgLen) + recordScores[d * W + RECORD.staticScore],
  );
  let rest = 0;
  for (let r = 0; r < textClauses.length; r++) if (r !== c) rest += Math.max(...textClauses[r].atoms.map((a) => a.maxBm25));
  // what a document not yet seen could score at most (a hair above, against rounding in sums taken in another order)
  const reachable = (score: number) => (score + rest) * maxBoost * (1 + 1e-9);
  const topK = new TopK(index, reach + 1, false);
  let matched = 0;
  let i = 0;
  // the deep list carries its documents' gate words and lengths; the other clauses' lists are searched (its documents are in score order)
  const ahead = readerAhead(p, { records: false, beside: c, seeks: true });
  for (; i < dl.docs.length; i++) {
    if (topK.full && reachable(dl.scores[i]) < topK.worstKey) break;
    if (ahead && i % READ_AHEAD === 0) ahead(dl.docs, i, dl.docs.length);
    const d = dl.docs[i];
    const bm25 = match(d, true, c, bm25Of(l.idf, dl.tf[i], dl.length[i], avgLen), dl.gate[i], dl.length[i]);
    if (bm25 < 0) continue;
    matched++;
    // the only clause: its deep-list score is the key (before the language boost)
    topK.offer(d, textClauses.length === 1 ? dl.scores[i] * boostOf(d) : keyOf(d, bm25, dl.staticScore[i]));
  }
  p.resetCursors();
  const complete = i === dl.docs.length && dl.cutoff === -Infinity;
  if (i === dl.docs.length && !complete && !(topK.full && reachable(dl.cutoff) < topK.worstKey)) {
    if (topK.full) p.floor = Math.max(p.floor, topK.worstKey);
    return undefined;
  }
  index.stats.deep++;
  return finish(topK, complete ? matched : Math.max(matched, Math.round((matched * l.n) / Math.max(1, i))));
}
