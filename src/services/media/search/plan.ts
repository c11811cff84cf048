import { FLAG } from '../catalog/format.ts';
import type { QueryAtom, SearchQuery } from '../catalog/types.ts';
import { coveringCells, geoCells } from './geoCells.ts';
import { type Champion, DURATION_BUCKET, GATE, KIND_CODE, RECORD, type SearchIndex } from './index.ts';
import { containsRun, phraseDocs, phraseTf } from './phrases.ts';
import { advance, denseOf, holds, type List, list, rankIn, seek, unionOf } from './postingLists.ts';
import { knownRank, orderKey, rankOf } from './rankings.ts';
import { bm25Of, idfOf, K1, LANGUAGE_BOOST, phraseIdf } from './scoring.ts';
import type { TopK } from './topK.ts';
import { phraseChampion, termChampion } from './topDocuments.ts';

/**
 * What a search asks of the index, worked out once for every strategy (strategies/): the
 * required sets of documents (query clauses, channel, topic, and the selective filters' own
 * lists), the excluded words and phrases, the candidates (the smallest required set, else every
 * document), `match` (whether a document passes every filter and requirement, and its BM25) and
 * the ranking key. Ties are broken by id, so the order is total and paging by offset visits
 * every result once.
 */

const EARTH_RADIUS_M = 6_371_008.8;

/** A page of ranked documents, the (possibly estimated) total and whether more results follow. */
export interface Ranked {
  docs: number[];
  total: number;
  hasMore: boolean;
}

export const EMPTY: Ranked = { docs: [], total: 0, hasMore: false };

/** A required set: a document qualifies when any of its lists holds it. `scored` for query clauses. */
export interface Requirement {
  lists: List[];
  size: number;
  scored: boolean;
  /** Already checked by `match` from the document's columns (kind, live state, geotag): a source of candidates only. */
  implied?: boolean;
  /** Every list has a name: the set can be walked in ranking order (see rankings.ts `rankedSubset`). */
  ranked?: boolean;
}

/** One alternative of a query clause: its list, its champion list (frequent terms and phrases) and its highest BM25. */
export interface TextAtom {
  champ: Champion | undefined;
  list: List;
  maxBm25: number;
}
export interface TextClause {
  atoms: TextAtom[];
}

export interface SearchPlan {
  index: SearchIndex;
  /** The query with its paging bounded. */
  q: SearchQuery;
  /** How deep the ranking must be known: offset + limit, within what is reachable. */
  reach: number;
  order: SearchQuery['order'];
  /** Relevance order: keys are BM25 + popularity and freshness. */
  scoring: boolean;
  avgLen: number;
  /** The relevance language's number (boosted), else <= 0. */
  language: number;
  /** The highest language boost a document can get. */
  maxBoost: number;
  required: Requirement[];
  /** The query clauses, in the order of their requirements (the first `textClauses.length` of `required`). */
  textClauses: TextClause[];
  excluded: List[];
  /** How many candidates (for an OR, the sum of its lists' sizes), and the requirement they come from (none: every document). */
  driverN: number;
  driverReq: Requirement | undefined;
  /** An exact order over many candidates: keys are places in the order's ranking. */
  rankedByPlace: boolean;
  /** Each document's place in the order's ranking, when keys are places. */
  rank: Int32Array | undefined;
  /** Title order without its ranking: keys compare the titles. */
  byTitle: boolean;
  /**
   * A score the (reach + 1)-th result is known to reach (found by a strategy that could not prove
   * the page): the scan skips candidates that cannot reach it. -Infinity: none.
   */
  floor: number;
  /**
   * The document's BM25 when it passes every filter and requirement, else -1. `fresh`: candidates
   * are not ascending (lists are searched, not advanced). `known`: a requirement the candidate is
   * known to meet (it comes from that clause's own list), with its BM25 there: not searched again
   * (at a million documents, each search of a long list costs cache misses). `gate`, `length`:
   * the document's gate word and length (RECORD), when the caller has them (a champion or deep
   * list carries them: its documents' records are then never read).
   */
  match(d: number, fresh: boolean, known?: number, knownBm25?: number, gate?: number, length?: number): number;
  /**
   * When `match` asks nothing of a document of the only query clause's own list (`known` 0) but its
   * gate word (alive, kind, rating: no other requirement, exclusion or filter that reads a column):
   * that check, which then decides exactly as `match` would. Else undefined.
   */
  gateOnly: ((gate: number) => boolean) | undefined;
  /** The document's ranking key (bigger ranks first); `staticScore`: its popularity + freshness, when the caller has it (RECORD). */
  keyOf(d: number, bm25: number, staticScore?: number): number;
  /** The document's language boost. */
  boostOf(d: number): number;
  /** The page of the ranking a strategy kept (its best `reach`), with the total. */
  finish(ranked: TopK, total: number): Ranked;
  /** Puts every list's cursor back at its start (after a strategy that moved them). */
  resetCursors(): void;
}

/** The plan of a search, or undefined when nothing can match. */
export function planSearch(index: SearchIndex, query: SearchQuery): SearchPlan | undefined {
  // The HTTP side validates paging; bounded here too, so no caller can ask for a huge heap.
  const maxReachable = Math.max(0, Math.min(10_000, Math.floor(query.maxReachable) || 0));
  const q: SearchQuery = { ...query, offset: Math.max(0, Math.min(maxReachable, Math.floor(query.offset) || 0)), limit: Math.max(0, Math.min(1000, Math.floor(query.limit) || 0)), maxReachable };
  const reach = Math.max(0, Math.min(q.offset + q.limit, q.maxReachable));
  const filter = filterOf(index, q);
  if (!filter) return undefined;
  const sets = requirementsOf(index, q, reach, filter);
  if (!sets) return undefined;
  const { required, textClauses, excluded } = sets;

  // --- candidates: the smallest required set, else every document. Its size (for an OR, the sum
  // of its lists) chooses the strategy; the union itself is only made when every candidate is scored.
  let driverN = index.n;
  let driverReq: Requirement | undefined;
  if (required.length) {
    let best = required[0];
    for (const r of required) if (r.size < best.size) best = r;
    driverN = best.size;
    driverReq = best;
  }

  const order = q.order;
  const scoring = order === 'relevance';
  const avgLen = index.averageLength;
  const language = q.relevanceLanguage ? index.languages.find(q.relevanceLanguage.toLowerCase().split('-')[0]) : -1;
  const { match, gateOnly } = matcherOf(index, q, filter, required, excluded);
  // Title order: by each document's place in the title ordering when that is built (numbers compare
  // faster than titles; the same order, see rankings.ts `ordering`), else by the titles themselves.
  // Exact orders: each document's place in the order's ranking is its key (the same order as its
  // order key, then id: one number, no title or id comparisons), made for many candidates and used
  // whenever it exists; without it, title order compares the titles themselves.
  const rankedByPlace = order !== 'relevance' && driverN > index.tuning.orderedScanMin / 16;
  const rank = order === 'relevance' ? undefined : rankedByPlace ? rankOf(index, order) : knownRank(index, order);
  const byTitle = order === 'title' && !rank;
  const { records, recordScores } = index;
  const boostOf = (d: number): number => (language > 0 && records[d * RECORD.words + RECORD.language] === language ? LANGUAGE_BOOST : 1);
  const keyOf = (d: number, bm25: number, staticScore?: number): number => {
    if (rank) return -rank[d];
    if (order !== 'relevance') return orderKey(index, order, d);
    return (bm25 + (staticScore ?? recordScores[d * RECORD.words + RECORD.staticScore])) * boostOf(d);
  };
  const finish = (ranked: TopK, total: number): Ranked => ({ docs: ranked.ranks(q.offset, Math.min(q.offset + q.limit, reach)), total, hasMore: q.offset + q.limit < Math.min(total, q.maxReachable) });
  const resetCursors = () => {
    for (const req of required) for (const l of req.lists) l.pos = 0;
    for (const l of excluded) l.pos = 0;
  };
  return {
    index,
    q,
    reach,
    order,
    scoring,
    avgLen,
    language,
    maxBoost: language > 0 ? LANGUAGE_BOOST : 1,
    required,
    textClauses,
    excluded,
    driverN,
    driverReq,
    rankedByPlace,
    rank,
    byTitle,
    floor: -Infinity,
    match,
    gateOnly,
    keyOf,
    boostOf,
    finish,
    resetCursors,
  };
}

/** What a document's columns must be, worked out from the query. */
interface Filter {
  kindMask: number;
  flagMask: number;
  flagValue: number;
  maxRating: number;
  after: number;
  before: number;
  show: boolean;
  /** Any filter only videos have (then only videos pass). */
  videoFilter: boolean;
  /** The gate word's duration bucket a video must have (GATE), 0: any. */
  duration: number;
  videoType: number;
  liveState: number;
  category: number;
  developer: number;
  region: string | undefined;
  loc: SearchQuery['location'];
  /** The circle's centre (radians), its latitude's cosine and its radius as an angle. */
  locLat: number;
  locLng: number;
  cosLocLat: number;
  maxAngle: number;
}

/** The query's filter; undefined when no document can pass it. */
function filterOf(index: SearchIndex, q: SearchQuery): Filter | undefined {
  let kindMask = 0;
  for (const t of q.types) if (Object.hasOwn(KIND_CODE, t)) kindMask |= 1 << KIND_CODE[t];
  const videoFilter =
    q.eventType !== undefined ||
    q.location !== undefined ||
    q.videoCaption !== undefined ||
    q.videoCategoryId !== undefined ||
    q.videoDefinition !== undefined ||
    q.videoDimension !== undefined ||
    q.videoDuration !== undefined ||
    q.videoEmbeddable !== undefined ||
    q.videoLicense !== undefined ||
    q.videoPaidProductPlacement !== undefined ||
    q.videoSyndicated !== undefined ||
    q.videoType !== undefined ||
    q.ownerChannelIds !== undefined ||
    q.developerProjectNumber !== undefined;
  if (videoFilter) kindMask &= 1 << KIND_CODE.video;
  if (!kindMask) return undefined;

  let flagMask = 0;
  let flagValue = 0;
  const flag = (bit: number, on: boolean) => {
    flagMask |= bit;
    if (on) flagValue |= bit;
  };
  if (q.videoCaption) flag(FLAG.caption, q.videoCaption === 'closedCaption');
  if (q.videoDefinition) flag(FLAG.hd, q.videoDefinition === 'high');
  if (q.videoDimension) flag(FLAG.threeD, q.videoDimension === '3d');
  if (q.videoEmbeddable) flag(FLAG.embeddable, true);
  if (q.videoLicense) flag(FLAG.creativeCommon, q.videoLicense === 'creativeCommon');
  if (q.videoPaidProductPlacement) flag(FLAG.paidPlacement, true);
  if (q.videoSyndicated) flag(FLAG.syndicated, true);
  const duration = q.videoDuration ? DURATION_BUCKET[q.videoDuration] : 0;
  const videoType = q.videoType === 'episode' ? 1 : q.videoType === 'movie' ? 2 : 0;
  const liveState = q.eventType === 'live' ? 1 : q.eventType === 'upcoming' ? 2 : q.eventType === 'completed' ? 3 : 0;
  let category = 0;
  if (q.videoCategoryId !== undefined && (category = index.categories.find(q.videoCategoryId)) <= 0) return undefined;
  let developer = 0;
  if (q.developerProjectNumber !== undefined && (developer = index.developers.find(q.developerProjectNumber)) <= 0) return undefined;
  const after = q.publishedAfter ?? -Infinity;
  const before = q.publishedBefore ?? Infinity;
  const maxRating = q.safeSearch === 'strict' ? 0 : q.safeSearch === 'moderate' ? 1 : 2;
  const show = q.channelType === 'show';
  const loc = q.location;
  const locLat = loc ? (loc.lat * Math.PI) / 180 : 0;
  const locLng = loc ? (loc.lng * Math.PI) / 180 : 0;
  const cosLocLat = Math.cos(locLat);
  const maxAngle = loc ? loc.radiusMeters / EARTH_RADIUS_M : 0;
  return { kindMask, flagMask, flagValue, maxRating, after, before, show, videoFilter, duration, videoType, liveState, category, developer, region: q.regionCode, loc, locLat, locLng, cosLocLat, maxAngle };
}

/** The sets a document must be in (query clauses, channel, topic, selective filters' lists) and the excluded lists; undefined when one is empty. */
function requirementsOf(index: SearchIndex, q: SearchQuery, reach: number, f: Filter): { required: Requirement[]; textClauses: TextClause[]; excluded: List[] } | undefined {
  const { kindMask, liveState, loc, locLat, locLng, maxAngle } = f;
  // A clause whose every alternative holds an excluded word or phrase ("to -to") matches only excluded documents.
  const excludedAtoms = q.q?.excluded ?? [];
  if (excludedAtoms.length && q.q!.clauses.some((c) => c.alternatives.every((alt) => excludedAtoms.some((x) => containsRun(alt.words, x.words))))) return undefined;

  // --- required sets
  const required: Requirement[] = [];
  const textClauses: TextClause[] = [];
  for (const clause of q.q?.clauses ?? []) {
    const lists: List[] = [];
    const atoms: TextAtom[] = [];
    for (const alt of clause.alternatives) {
      const l = atomList(index, alt, true);
      if (!l) continue;
      lists.push(l);
      // a frequent term's (or a remembered frequent phrase's) champion list
      // (a phrase's only when it could prove the page: it holds more than the deepest result asked for; else its whole list, also exact)
      const champ = alt.words.length === 1 ? termChampion(index, alt.words[0]) : reach < index.tuning.champions ? phraseChampion(index, index.termIds(alt.words)!.join(' '), l) : undefined;
      atoms.push({ champ, list: l, maxBm25: champ?.maxBm25 ?? l.idf * (K1 + 1) });
    }
    if (!lists.length) return undefined;
    required.push({ lists, size: lists.reduce((s, l) => s + l.n, 0), scored: true });
    textClauses.push({ atoms });
  }
  if (q.channelId !== undefined) {
    const c = index.findChannel(q.channelId);
    if (c < 0) return undefined;
    required.push({ lists: [list(index.channelDocs[c], 0, false)], size: index.channelDocs[c].n, scored: false });
  }
  if (q.ownerChannelIds !== undefined) {
    const lists = q.ownerChannelIds.map((id) => index.findChannel(id)).filter((c) => c >= 0).map((c) => index.channelDocs[c]);
    if (!lists.length) return undefined;
    const u = lists.length === 1 ? list(lists[0], 0, false) : unionOf(lists);
    required.push({ lists: [u], size: u.n, scored: false });
  }
  if (q.topicId !== undefined) {
    const p = index.topics.get(q.topicId);
    if (!p) return undefined;
    required.push({ lists: [list(p, 0, false)], size: p.n, scored: false });
  }
  const excluded: List[] = [];
  for (const atom of q.q?.excluded ?? []) {
    const l = atomList(index, atom, false);
    if (l) excluded.push(l);
  }

  // Selective filters with their own lists also propose candidates.
  if (liveState) required.push({ lists: [list(index.liveDocs[liveState], 0, false, `live ${liveState}`)], size: index.liveDocs[liveState].n, scored: false, implied: true, ranked: true });
  if (loc) {
    // the cells the circle reaches (else every geotagged document)
    const cells = coveringCells(locLat, locLng, maxAngle);
    if (cells) {
      const byCell = geoCells(index);
      const lists: List[] = [];
      for (const c of cells) {
        const docs = byCell.get(c);
        if (docs) lists.push(list({ docs, n: docs.length }, 0, false, `geo ${c}`));
      }
      if (!lists.length) return undefined;
      required.push({ lists, size: lists.reduce((s, l) => s + l.n, 0), scored: false, implied: true, ranked: true });
    } else required.push({ lists: [list(index.geoDocs, 0, false, 'geo')], size: index.geoDocs.n, scored: false, implied: true, ranked: true });
  }
  if ((kindMask & (kindMask - 1)) === 0) {
    const k = Math.log2(kindMask);
    required.push({ lists: [list(index.kindDocs[k], 0, false)], size: index.kindDocs[k].n, scored: false, implied: true });
  }
  return { required, textClauses, excluded };
}

/** SearchPlan.match (and gateOnly) for a filter and requirements. */
function matcherOf(index: SearchIndex, q: SearchQuery, f: Filter, required: Requirement[], excluded: List[]): Pick<SearchPlan, 'match' | 'gateOnly'> {
  const { kindMask, flagMask, flagValue, maxRating, after, before, show, videoFilter, duration, videoType, liveState, category, developer, region, loc, locLat, locLng, cosLocLat, maxAngle } = f;
  const scoring = q.order === 'relevance';
  const avgLen = index.averageLength;
  const { records, published, channel, channelShow } = index;
  const W = RECORD.words;
  const dated = after > -Infinity || before < Infinity;
  const regionOk = new Map<number, boolean>();
  const inRegionList = (l: number) => {
    let ok = regionOk.get(l);
    if (ok === undefined) regionOk.set(l, (ok = index.regionSet(l).has(region!)));
    return ok;
  };
  // alive, kind, rating and flags from one word (RECORD.gate, the record's first; a caller may have it from a champion or deep list)
  const passes = (g: number): boolean => (g & 1) !== 0 && ((g >>> 1) & kindMask) !== 0 && ((g >>> 4) & 3) <= maxRating && ((g >>> 8) & flagMask) === flagValue;
  const onlyTheGate = !dated && !show && !videoFilter && region === undefined && excluded.length === 0 && required[0]?.scored === true && required.every((r, i) => i === 0 || r.implied);
  const match = (d: number, fresh: boolean, known = -1, knownBm25 = 0, g = records[d * W], length = records[d * W + RECORD.length]): number => {
    if (!passes(g)) return -1;
    if (dated) {
      const p = published[d];
      if (p < after || p > before) return -1;
    }
    if (show && channelShow[channel[d]] !== 1) return -1;
    if (videoFilter) {
      // from the gate word (GATE): a duration below zero passes no video filter; a broadcast that is live or upcoming has no duration yet: no bucket holds it
      const bucket = (g >>> GATE.durationShift) & 3;
      if (bucket === 0 || (duration && (bucket !== duration || g & GATE.liveOrUpcoming))) return -1;
      if (videoType && index.videoType[d] !== videoType) return -1;
      if (liveState && index.liveState[d] !== liveState) return -1;
      if (category && index.category[d] !== category) return -1;
      if (developer && index.developer[d] !== developer) return -1;
      if (loc) {
        const lat = index.lat[d];
        if (lat !== lat) return -1; // NaN: not geotagged
        if (Math.abs(lat - locLat) > maxAngle) return -1;
        const sLat = Math.sin((lat - locLat) / 2);
        const sLng = Math.sin((index.lng[d] - locLng) / 2);
        const h = sLat * sLat + Math.cos(lat) * cosLocLat * sLng * sLng;
        if (2 * Math.asin(Math.min(1, Math.sqrt(h))) > maxAngle) return -1;
      }
    }
    // a video (the gate's kind bit 1 << 1) with region restrictions
    if (region !== undefined && (g & 2) !== 0 && (g & GATE.regionRestricted) !== 0) {
      const a = index.allowed[d];
      if (a >= 0 && !inRegionList(a)) return -1;
      const b = index.blocked[d];
      if (b >= 0 && inRegionList(b)) return -1;
    }
    let bm25 = 0;
    for (let r = 0; r < required.length; r++) {
      const req = required[r];
      if (req.implied) continue;
      if (r === known) {
        bm25 += knownBm25;
        continue;
      }
      let hit = false;
      let best = 0;
      for (const l of req.lists) {
        const dense = l.dense;
        l.pos = dense ? rankIn(dense, d) : fresh ? seek(l, d) : advance(l.docs, l.n, l.pos, d);
        if (dense ? holds(dense, d) : l.pos < l.n && l.docs[l.pos] === d) {
          hit = true;
          if (scoring && req.scored && l.tf) {
            const tf = l.tf[l.pos];
            const s = bm25Of(l.idf, tf, length, avgLen);
            if (s > best) best = s;
          }
        }
      }
      if (!hit) return -1;
      bm25 += best;
    }
    for (const l of excluded) {
      const dense = l.dense;
      if (dense) {
        if (holds(dense, d)) return -1;
        continue;
      }
      l.pos = fresh ? seek(l, d) : advance(l.docs, l.n, l.pos, d);
      if (l.pos < l.n && l.docs[l.pos] === d) return -1;
    }
    return bm25;
  };
  return { match, gateOnly: onlyTheGate ? passes : undefined };
}

/** The list of a query atom (a word, or a phrase's documents), undefined when nothing holds it. */
function atomList(index: SearchIndex, atom: QueryAtom, scored: boolean): List | undefined {
  if (atom.words.length === 1) {
    const t = index.terms.get(atom.words[0]);
    const p = t === undefined ? undefined : index.postings[t];
    return p && p.n ? list(p, idfOf(index, p.n), scored, undefined, t, denseOf(index, t!)) : undefined;
  }
  const docs = phraseDocs(index, atom);
  if (!docs.length) return undefined;
  // A phrase scores as one rare term: idf of its documents, term frequency 1 (weighted like a title hit).
  return list({ docs, tf: phraseTf(docs.length), n: docs.length }, phraseIdf(index, docs.length, atom.words.length), scored);
}
