import { type Champion, RECORD } from '../index.ts';
import type { Ranked, SearchPlan } from '../plan.ts';
import { unionOf } from '../postingLists.ts';
import { bm25Of } from '../scoring.ts';
import { bestFirst } from '../topDocuments.ts';
import { TopK } from '../topK.ts';
import { READ_AHEAD, readerAhead } from '../readAhead.ts';

/**
 * Relevance over many candidates from champion lists (each frequent term's best documents by its
 * BM25 + popularity and freshness, see topDocuments.ts): exact when nothing outside the lists
 * could reach the page. When they cannot prove it, the (reach + 1)-th score they found is left in
 * `plan.floor` for the scan.
 */

export function byChampionLists(p: SearchPlan): Ranked | undefined {
  return fromChampionsBestFirst(p) ?? fromChampions(p);
}

/**
 * A query of one OR clause whose alternatives all have champion lists: a document's score for
 * the clause is the best of its alternatives' (BM25 + popularity and freshness), so the champion
 * lists are merged best first and the walk stops once the page is full and no alternative's
 * next champion (or, past its list, its champion threshold, which bounds every other document)
 * can reach it: a few dozen candidates instead of the union of the lists (2,048 at the default
 * size), each looked up in every alternative's list.
 */
function fromChampionsBestFirst(p: SearchPlan): Ranked | undefined {
  const { index, textClauses, reach, maxBoost, match, keyOf, finish } = p;
  if (textClauses.length !== 1 || textClauses[0].atoms.length < 2 || !textClauses[0].atoms.every((a) => a.champ)) return undefined;
  const champs = textClauses[0].atoms.map((a) => a.champ!);
  const orders = champs.map(bestFirst);
  const pos = new Int32Array(champs.length);
  const topK = new TopK(index, reach + 1, false);
  const seen = new Set<number>();
  let matched = 0;
  for (;;) {
    let next = -1;
    let nextScore = -Infinity;
    let bound = -Infinity;
    for (let x = 0; x < champs.length; x++) {
      const more = pos[x] < orders[x].length;
      const head = more ? champs[x].score[orders[x][pos[x]]] : champs[x].threshold;
      if (head > bound) bound = head;
      if (more && head > nextScore) {
        nextScore = head;
        next = x;
      }
    }
    // (a hair above the bound, against rounding in sums taken in another order)
    if (topK.full && bound * maxBoost * (1 + 1e-9) < topK.worstKey) break;
    if (next < 0) {
      if (topK.full) p.floor = Math.max(p.floor, topK.worstKey);
      // match moved the cursors: the strategies after this one start them again
      p.resetCursors();
      return undefined;
    }
    const at = orders[next][pos[next]++];
    const d = champs[next].docs[at];
    if (seen.has(d)) continue;
    seen.add(d);
    const bm25 = match(d, true, -1, 0, champs[next].gate[at], champs[next].length[at]);
    if (bm25 < 0) continue;
    matched++;
    topK.offer(d, keyOf(d, bm25, champs[next].staticScore[at]));
  }
  const size = textClauses[0].atoms.reduce((n, a) => n + a.list.n, 0);
  index.stats.champions++;
  return finish(topK, Math.max(matched, Math.round((matched * size) / Math.max(1, seen.size))));
}

/**
 * Candidates: one query clause's champion documents (a frequent term's top documents by its
 * BM25 + popularity and freshness, see topDocuments.ts), scored in full. Exact when the best kept
 * result beats what any other document could reach: that clause's champion threshold plus the
 * other clauses' BM25 maxima. Else undefined (the caller scores every candidate).
 */
function fromChampions(p: SearchPlan): Ranked | undefined {
  const { index, textClauses, reach, maxBoost, avgLen, match, keyOf, boostOf, finish } = p;
  // `tf`: a single-atom clause's term frequencies along `docs` (match need not search that clause's list)
  // `champ`: the candidates are one champion list (its BM25 and gate words are read along it)
  let best: { docs: Int32Array; n: number; bound: number; size: number; clause: number; tf: Uint8Array | undefined; score: Float64Array | undefined; idf: number; champ: Champion | undefined } | undefined;
  const maxes = textClauses.map((c) => Math.max(...c.atoms.map((a) => a.maxBm25)));
  const sumMax = maxes.reduce((a, b) => a + b, 0);
  textClauses.forEach((c, i) => {
    let threshold = -Infinity;
    const lists: { docs: Int32Array; n: number }[] = [];
    let size = 0;
    for (const a of c.atoms) {
      const champ = a.champ;
      if (champ) {
        threshold = Math.max(threshold, champ.threshold);
        lists.push({ docs: champ.docs, n: champ.docs.length });
      } else lists.push({ docs: a.list.docs, n: a.list.n });
      size += a.list.n;
    }
    const bound = threshold + sumMax - maxes[i];
    if (!best || bound < best.bound) {
      const u = lists.length === 1 ? lists[0] : unionOf(lists);
      const only = c.atoms.length === 1 ? c.atoms[0] : undefined;
      best = { docs: u.docs, n: u.n, bound, size, clause: i, tf: only ? (only.champ ? only.champ.tf : only.list.tf) : undefined, score: only?.champ?.score, idf: only ? only.list.idf : 0, champ: only?.champ };
    }
  });
  if (!best) return undefined;
  const { tf, idf, clause, champ } = best;
  // the only clause's champion scores are the candidates' keys (before the language boost)
  const score = textClauses.length === 1 ? best.score : undefined;
  const topK = new TopK(index, reach + 1, false);
  let matched = 0;
  if (champ && score && p.gateOnly) matched = bestOfChampion(p, champ, topK, p.gateOnly);
  else {
    // champion lists and their unions are ascending: the other lists' cursors only move forward
    const ahead = readerAhead(p, { records: !champ, beside: champ || tf ? clause : -1, seeks: false });
    for (let i = 0; i < best.n; i++) {
      if (ahead && i % READ_AHEAD === 0) ahead(best.docs, i, best.n);
      const d = best.docs[i];
      const bm25 = champ
        ? match(d, false, clause, bm25Of(idf, champ.tf[i], champ.length[i], avgLen), champ.gate[i], champ.length[i])
        : tf
          ? match(d, false, clause, bm25Of(idf, tf[i], index.records[d * RECORD.words + RECORD.length], avgLen))
          : match(d, false);
      if (bm25 < 0) continue;
      matched++;
      topK.offer(d, score ? score[i] * boostOf(d) : keyOf(d, bm25, champ?.staticScore[i]));
    }
  }
  const complete = best.bound === -Infinity;
  if (!complete && !(topK.full && topK.worstKey > best.bound * maxBoost)) {
    // Not provably exact, but the (reach + 1)-th result scores at least this: a floor for scoring every candidate.
    if (topK.full) p.floor = topK.worstKey;
    return undefined;
  }
  const total = complete ? matched : Math.max(matched, Math.round((matched * best.size) / Math.max(1, best.n)));
  index.stats.champions++;
  return finish(topK, total);
}

/**
 * `fromChampions` over the only query clause's champion list when a document's gate word alone
 * decides whether it matches (SearchPlan.gateOnly): the same heap and count as offering every
 * document of the list, from a walk best score first that stops once no document left can enter
 * the heap (the page of a frequent term: a few dozen of its 2,048 documents), and a count of the
 * gate words that pass. Returns that count.
 */
function bestOfChampion(p: SearchPlan, champ: Champion, topK: TopK, passes: (gate: number) => boolean): number {
  const { maxBoost, boostOf } = p;
  const { docs, gate, score } = champ;
  let matched = 0;
  for (let i = 0; i < gate.length; i++) if (passes(gate[i])) matched++;
  const order = bestFirst(champ);
  for (let j = 0; j < order.length; j++) {
    const i = order[j];
    // (a hair above the bound, against rounding in sums taken in another order)
    if (topK.full && score[i] * maxBoost * (1 + 1e-9) < topK.worstKey) break;
    if (passes(gate[i])) topK.offer(docs[i], score[i] * boostOf(docs[i]));
  }
  return matched;
}
