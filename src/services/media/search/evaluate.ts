import type { SearchQuery } from '../catalog/types.ts';
import type { SearchIndex } from './index.ts';
import { EMPTY, planSearch, type Ranked } from './plan.ts';
import { byChampionLists } from './strategies/championLists.ts';
import { byDeepList } from './strategies/deepList.ts';
import { byRankingWalk } from './strategies/rankingWalk.ts';
import { byScan } from './strategies/scan.ts';

export type { Ranked } from './plan.ts';

/**
 * Evaluates a search against the index: the plan (plan.ts: candidates from the smallest required
 * set, filters, the ranking key) is answered by the first strategy that can prove its page
 * (strategies/): champion lists, then the rarest term's deep list (relevance over many
 * candidates); a walk in ranking order that stops early (exact orders, browsing); else every
 * candidate scored, with galloping cursors over the other lists and a bounded heap (top-k: a term
 * matching half of the catalogue costs one pass over its postings, never a sort of them). Which
 * strategy answered is counted in `SearchIndex.stats`; the thresholds are `SearchIndex.tuning`.
 */
export function evaluate(index: SearchIndex, query: SearchQuery): Ranked {
  const plan = planSearch(index, query);
  if (!plan) return EMPTY;
  const { scoring, driverN, reach, textClauses } = plan;
  const many = driverN > index.tuning.orderedScanMin / 8;
  // relevance with many candidates (tried from a few thousand: a term with a champion list has at least `tuning.champions` documents)
  if (scoring && many && reach > 0 && textClauses.length) {
    const r = byChampionLists(plan) ?? byDeepList(plan);
    if (r) return r;
    plan.resetCursors();
  }
  if (reach > 0 && !(scoring && textClauses.length)) {
    const r = byRankingWalk(plan);
    if (r) return r;
  }
  return byScan(plan);
}
