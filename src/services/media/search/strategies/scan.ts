import { RECORD } from '../index.ts';
import type { Ranked, SearchPlan } from '../plan.ts';
import { unionOf } from '../postingLists.ts';
import { bm25Of } from '../scoring.ts';
import { impactsOf } from '../topDocuments.ts';
import { TopK } from '../topK.ts';
import { READ_AHEAD, readerAhead } from '../readAhead.ts';

/**
 * Few candidates (or a selective combination), and whatever the other strategies could not
 * prove: every candidate is checked and scored, the best kept in a bounded heap; the total is
 * exact unless candidates were skipped (by their place in an exact order, or below the floor a
 * champion list found), when it is estimated.
 */
export function byScan(p: SearchPlan): Ranked {
  const { index, reach, driverReq, rankedByPlace, rank, byTitle, textClauses, required, avgLen, match, keyOf, finish } = p;
  let driverN = p.driverN;
  let driver: Int32Array | undefined;
  if (driverReq) {
    const u = driverReq.lists.length === 1 ? driverReq.lists[0] : unionOf(driverReq.lists);
    driver = u.docs;
    driverN = u.n;
  }
  // Exact orders over many candidates: once the page (and one more, which proves there are more) is
  // full, a candidate placed after the last one kept cannot make it: skipped before any other check,
  // and the total is then estimated.
  const skipByPlace = rankedByPlace && reach > 0;
  const topK = new TopK(index, skipByPlace ? reach + 1 : reach, byTitle);
  let total = 0;
  // With a floor from the champion lists, a candidate whose best possible score (its BM25 for the
  // driving term + every other clause at its maximum + popularity and freshness) is below the floor
  // cannot make the results: skip it before the costlier checks. The total is then estimated.
  const pl = p.floor > -Infinity && driverReq?.scored && driverReq.lists.length === 1 && driverReq.lists[0].tf ? driverReq.lists[0] : undefined;
  let rest = 0;
  if (pl) for (let r = 0; r < textClauses.length; r++) if (required[r] !== driverReq) rest += Math.max(...textClauses[r].atoms.map((a) => a.maxBm25));
  const pruneBelow = p.floor / p.maxBoost - rest;
  // a long list's scores precomputed along it: read in order instead of two columns per posting
  const impact = pl?.term !== undefined && pl.n > index.tuning.orderedScanMin / 8 ? impactsOf(index, pl.term, pl.idf, avgLen) : undefined;
  let skipped = 0;
  let checked = 0;
  // (a scan that skips by place reads each candidate's place first: the processor's prefetching finds those)
  const ahead = driver && !skipByPlace ? readerAhead(p, { records: true, beside: required.indexOf(driverReq!), seeks: false }) : undefined;
  for (let i = 0; i < driverN; i++) {
    if (ahead && i % READ_AHEAD === 0) ahead(driver!, i, driverN);
    const d = driver ? driver[i] : i;
    if (pl) {
      if ((impact ? impact[i] : bm25Of(pl.idf, pl.tf![i], index.records[d * RECORD.words + RECORD.length], avgLen) + index.recordScores[d * RECORD.words + RECORD.staticScore]) < pruneBelow) {
        skipped++;
        continue;
      }
    } else if (skipByPlace && topK.full && -rank![d] < topK.worstKey) {
      skipped++;
      continue;
    }
    checked++;
    const bm25 = match(d, false);
    if (bm25 < 0) continue;
    total++;
    if (reach > 0) topK.offer(d, keyOf(d, bm25));
  }
  if (skipped) total += Math.round((skipped * total) / Math.max(1, checked));
  index.stats.scan++;
  return finish(topK, total);
}
