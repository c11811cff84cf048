import { FLAG } from '../catalog/format.ts';
import type { QueryAtom, SearchQuery } from '../catalog/types.ts';
import { coveringCells, geoCells } from './geoCells.ts';
import { type Champion, type DeepList, KIND_CODE, type Postings, type SearchIndex } from './index.ts';

/**
 * Evaluates a search against the index: candidate documents come from the smallest required
 * posting list (a query clause, the channel, the topic) or, without any, from every document;
 * the other lists are checked by galloping cursors, scalar filters by the typed columns, and a
 * bounded heap keeps the best `offset + limit` (top-k: a term matching half of the catalogue
 * costs one pass over its postings, never a sort of them). Ties are broken by id, so the order
 * is total and paging by offset visits every result once.
 */

const K1 = 1.2;
const B = 0.75;
const EARTH_RADIUS_M = 6_371_008.8;
const DAY_MS = 86_400_000;
/** Relevance blend: BM25 of the query + popularity + freshness (relative to the newest entry, so results do not drift with the wall clock). */
const POPULARITY_WEIGHT = 1.2;
const FRESHNESS_WEIGHT = 0.8;
const FRESHNESS_DAYS = 365;
const LANGUAGE_BOOST = 1.3;

export interface Ranked {
  docs: number[];
  total: number;
  hasMore: boolean;
}

interface List {
  docs: Int32Array;
  tf: Uint8Array | undefined;
  n: number;
  idf: number;
  pos: number;
  /** A selective candidate list's name (live state, geo cell): its documents in ranking order are kept per order (see `rankedSubset`). */
  name?: string;
  /** A single word's list: its term id (see `deepList`). */
  term?: number;
}
/** A required set: a document qualifies when any of its lists holds it. `scored` for query clauses. */
interface Requirement {
  lists: List[];
  size: number;
  scored: boolean;
  /** Already checked by `match` from the document's columns (kind, live state, geotag): a source of candidates only. */
  implied?: boolean;
  /** Every list has a name: the set can be walked in ranking order (see `rankedSubset`). */
  ranked?: boolean;
}

function list(p: { docs: Int32Array; tf?: Uint8Array; n: number }, idf: number, scored: boolean, name?: string): List {
  return { docs: p.docs, tf: scored ? p.tf : undefined, n: p.n, idf, pos: 0, name };
}

/** First position whose document is >= target (binary search: a candidate out of order, no cursor to start from). */
function lowerBound(docs: Int32Array, n: number, target: number): number {
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
function advance(docs: Int32Array, n: number, from: number, target: number): number {
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

/** A term's BM25 in a document (the one formula: scores compared across strategies must be computed alike). */
function bm25Of(idf: number, tf: number, docLen: number, avgLen: number): number {
  return (idf * tf * (K1 + 1)) / (tf + K1 * (1 - B + (B * docLen) / avgLen));
}

function idfOf(index: SearchIndex, df: number): number {
  const N = Math.max(index.live, df);
  return Math.log(1 + (N - df + 0.5) / (df + 0.5));
}

/** Documents holding the phrase (all its words, adjacent, in order), ascending (remembered by the index until it changes). */
function phraseDocs(index: SearchIndex, atom: QueryAtom): Int32Array {
  const ids = index.termIds(atom.words);
  if (!ids) return new Int32Array(0);
  const key = ids.join(' ');
  const cached = index.phrases.get(key);
  if (cached) {
    // most recently used last
    index.phrases.delete(key);
    index.phrases.set(key, cached);
    return cached;
  }
  const lists = ids.map((t) => index.postings[t]).sort((a, b) => a.n - b.n);
  const driver = lists[0];
  const pos = new Array<number>(lists.length).fill(0);
  let out = new Int32Array(Math.min(driver.n, 1024));
  let n = 0;
  outer: for (let i = 0; i < driver.n; i++) {
    const d = driver.docs[i];
    for (let j = 1; j < lists.length; j++) {
      pos[j] = advance(lists[j].docs, lists[j].n, pos[j], d);
      if (pos[j] >= lists[j].n) break outer;
      if (lists[j].docs[pos[j]] !== d) continue outer;
    }
    if (index.hasSequence(d, ids)) {
      if (n === out.length) {
        const grown = new Int32Array(Math.min(driver.n, n * 2));
        grown.set(out);
        out = grown;
      }
      out[n++] = d;
    }
  }
  const docs = out.slice(0, n);
  index.rememberPhrase(key, docs);
  return docs;
}

function atomList(index: SearchIndex, atom: QueryAtom, scored: boolean): List | undefined {
  if (atom.words.length === 1) {
    const t = index.terms.get(atom.words[0]);
    const p = t === undefined ? undefined : index.postings[t];
    return p && p.n ? { ...list(p, idfOf(index, p.n), scored), term: t } : undefined;
  }
  const docs = phraseDocs(index, atom);
  if (!docs.length) return undefined;
  // A phrase scores as one rare term: idf of its documents, term frequency 1 (weighted like a title hit).
  return { docs, tf: scored ? phraseTf(docs.length) : undefined, n: docs.length, idf: idfOf(index, docs.length) * Math.min(2, atom.words.length), pos: 0 };
}

/** Term frequencies of a phrase's documents: all 3 (a title hit), shared read-only by every phrase (never written). */
let PHRASE_TF = new Uint8Array(0);
function phraseTf(n: number): Uint8Array {
  if (PHRASE_TF.length < n) PHRASE_TF = new Uint8Array(Math.max(n, PHRASE_TF.length * 2)).fill(3);
  return PHRASE_TF;
}

/** Whether `words` holds `run` as adjacent words, in order. */
function containsRun(words: string[], run: string[]): boolean {
  outer: for (let i = 0; i + run.length <= words.length; i++) {
    for (let j = 0; j < run.length; j++) if (words[i + j] !== run[j]) continue outer;
    return true;
  }
  return false;
}

/** The sorted union of sorted document lists. */
function unionOf(lists: { docs: Int32Array; n: number }[]): List {
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

/** How many searches each strategy answered (tests and benchmarks look at it). */
export const strategyStats = { champions: 0, deep: 0, walk: 0, scan: 0 };

const EMPTY: Ranked = { docs: [], total: 0, hasMore: false };

export function evaluate(index: SearchIndex, query: SearchQuery): Ranked {
  // The HTTP side validates paging; bounded here too, so no caller can ask for a huge heap.
  const maxReachable = Math.max(0, Math.min(10_000, Math.floor(query.maxReachable) || 0));
  const q: SearchQuery = { ...query, offset: Math.max(0, Math.min(maxReachable, Math.floor(query.offset) || 0)), limit: Math.max(0, Math.min(1000, Math.floor(query.limit) || 0)), maxReachable };
  const reach = Math.max(0, Math.min(q.offset + q.limit, q.maxReachable));
  // --- what a document must be
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
  if (!kindMask) return EMPTY;

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
  const minDuration = q.videoDuration === 'medium' ? 240 : q.videoDuration === 'long' ? 1201 : 0;
  const maxDuration = q.videoDuration === 'short' ? 239 : q.videoDuration === 'medium' ? 1200 : Infinity;
  const videoType = q.videoType === 'episode' ? 1 : q.videoType === 'movie' ? 2 : 0;
  const liveState = q.eventType === 'live' ? 1 : q.eventType === 'upcoming' ? 2 : q.eventType === 'completed' ? 3 : 0;
  let category = 0;
  if (q.videoCategoryId !== undefined && (category = index.categories.find(q.videoCategoryId)) <= 0) return EMPTY;
  let developer = 0;
  if (q.developerProjectNumber !== undefined && (developer = index.developers.find(q.developerProjectNumber)) <= 0) return EMPTY;
  const after = q.publishedAfter ?? -Infinity;
  const before = q.publishedBefore ?? Infinity;
  const maxRating = q.safeSearch === 'strict' ? 0 : q.safeSearch === 'moderate' ? 1 : 2;
  const show = q.channelType === 'show';
  const region = q.regionCode;
  const regionOk = new Map<number, boolean>();
  const inRegionList = (l: number) => {
    let ok = regionOk.get(l);
    if (ok === undefined) regionOk.set(l, (ok = index.regionSet(l).has(region!)));
    return ok;
  };
  const loc = q.location;
  const locLat = loc ? (loc.lat * Math.PI) / 180 : 0;
  const locLng = loc ? (loc.lng * Math.PI) / 180 : 0;
  const cosLocLat = Math.cos(locLat);
  const maxAngle = loc ? loc.radiusMeters / EARTH_RADIUS_M : 0;
  const language = q.relevanceLanguage ? index.languages.find(q.relevanceLanguage.toLowerCase().split('-')[0]) : -1;

  // A clause whose every alternative holds an excluded word or phrase ("to -to") matches only excluded documents.
  const excludedAtoms = q.q?.excluded ?? [];
  if (excludedAtoms.length && q.q!.clauses.some((c) => c.alternatives.every((alt) => excludedAtoms.some((x) => containsRun(alt.words, x.words))))) return EMPTY;

  // --- required sets
  const required: Requirement[] = [];
  const textClauses: { atoms: { champ: Champion | undefined; list: List; maxBm25: number }[] }[] = [];
  for (const clause of q.q?.clauses ?? []) {
    const lists: List[] = [];
    const atoms: { champ: Champion | undefined; list: List; maxBm25: number }[] = [];
    for (const alt of clause.alternatives) {
      const l = atomList(index, alt, true);
      if (!l) continue;
      lists.push(l);
      // a frequent term's (or a remembered frequent phrase's) champion list
      // (a phrase's only when it could prove the page: it holds more than the deepest result asked for; else its whole list, also exact)
      const champ = alt.words.length === 1 ? index.champions.get(alt.words[0]) : reach < CHAMPIONS ? phraseChampion(index, index.termIds(alt.words)!.join(' '), l) : undefined;
      atoms.push({ champ, list: l, maxBm25: champ?.maxBm25 ?? l.idf * (K1 + 1) });
    }
    if (!lists.length) return EMPTY;
    required.push({ lists, size: lists.reduce((s, l) => s + l.n, 0), scored: true });
    textClauses.push({ atoms });
  }
  if (q.channelId !== undefined) {
    const c = index.findChannel(q.channelId);
    if (c < 0) return EMPTY;
    required.push({ lists: [list(index.channelDocs[c], 0, false)], size: index.channelDocs[c].n, scored: false });
  }
  if (q.ownerChannelIds !== undefined) {
    const lists = q.ownerChannelIds.map((id) => index.findChannel(id)).filter((c) => c >= 0).map((c) => index.channelDocs[c]);
    if (!lists.length) return EMPTY;
    const u = lists.length === 1 ? list(lists[0], 0, false) : unionOf(lists);
    required.push({ lists: [u], size: u.n, scored: false });
  }
  if (q.topicId !== undefined) {
    const p = index.topics.get(q.topicId);
    if (!p) return EMPTY;
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
      if (!lists.length) return EMPTY;
      required.push({ lists, size: lists.reduce((s, l) => s + l.n, 0), scored: false, implied: true, ranked: true });
    } else required.push({ lists: [list(index.geoDocs, 0, false, 'geo')], size: index.geoDocs.n, scored: false, implied: true, ranked: true });
  }
  if ((kindMask & (kindMask - 1)) === 0) {
    const k = Math.log2(kindMask);
    required.push({ lists: [list(index.kindDocs[k], 0, false)], size: index.kindDocs[k].n, scored: false, implied: true });
  }

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
  const { gate, kind, published, duration, channel, channelShow } = index;
  const dated = after > -Infinity || before < Infinity;

  /**
   * The document's BM25 when it passes every filter and requirement, else -1. `fresh`: candidates
   * are not ascending (lists are searched, not advanced). `known`: a requirement the candidate is
   * known to meet (it comes from that clause's own list), with its BM25 there: not searched again
   * (at a million documents, each search of a long list costs cache misses).
   */
  const match = (d: number, fresh: boolean, known = -1, knownBm25 = 0): number => {
    // alive, kind, rating and flags from one word (see SearchIndex.gate)
    const g = gate[d];
    if (!(g & 1) || !((g >>> 1) & kindMask) || ((g >>> 4) & 3) > maxRating || ((g >>> 8) & flagMask) !== flagValue) return -1;
    if (dated) {
      const p = published[d];
      if (p < after || p > before) return -1;
    }
    if (show && channelShow[channel[d]] !== 1) return -1;
    if (videoFilter) {
      const dur = duration[d];
      if (dur < minDuration || dur > maxDuration) return -1;
      // A broadcast that is live or upcoming has no duration yet: no duration bucket holds it.
      if (q.videoDuration && (index.liveState[d] === 1 || index.liveState[d] === 2)) return -1;
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
    if (region !== undefined && kind[d] === 0) {
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
        l.pos = fresh ? lowerBound(l.docs, l.n, d) : advance(l.docs, l.n, l.pos, d);
        if (l.pos < l.n && l.docs[l.pos] === d) {
          hit = true;
          if (scoring && req.scored && l.tf) {
            const tf = l.tf[l.pos];
            const s = bm25Of(l.idf, tf, index.docLen[d], avgLen);
            if (s > best) best = s;
          }
        }
      }
      if (!hit) return -1;
      bm25 += best;
    }
    for (const l of excluded) {
      l.pos = fresh ? lowerBound(l.docs, l.n, d) : advance(l.docs, l.n, l.pos, d);
      if (l.pos < l.n && l.docs[l.pos] === d) return -1;
    }
    return bm25;
  };
  // Title order: by each document's place in the title ordering when that is built (numbers compare
  // faster than titles; the same order, see `ordering`), else by the titles themselves.
  // Exact orders: each document's place in the order's ranking is its key (the same order as its
  // order key, then id: one number, no title or id comparisons), made for many candidates and used
  // whenever it exists; without it, title order compares the titles themselves.
  const rankedByPlace = order !== 'relevance' && driverN > ORDERED_SCAN_MIN / 16;
  const rank = order === 'relevance' ? undefined : rankedByPlace ? rankOf(index, order) : index.orderings.get(rankKey(order));
  const byTitle = order === 'title' && !rank;
  const boostOf = (d: number): number => (language > 0 && index.language[d] === language ? LANGUAGE_BOOST : 1);
  const keyOf = (d: number, bm25: number): number => {
    if (rank) return -rank[d];
    if (order !== 'relevance') return orderKey(index, order, d);
    return (bm25 + index.staticScore[d]) * boostOf(d);
  };
  const finish = (ranked: number[], total: number): Ranked => ({ docs: ranked.slice(q.offset, q.offset + q.limit), total, hasMore: q.offset + q.limit < Math.min(total, q.maxReachable) });

  /**
   * Candidates: one query clause's champion documents (a frequent term's top documents by its
   * BM25 + popularity and freshness, see index.ts), scored in full. Exact when the best kept
   * result beats what any other document could reach: that clause's champion threshold plus the
   * other clauses' BM25 maxima. Else undefined (the caller scores every candidate).
   */
  let floor = -Infinity;
  /**
   * A query of one OR clause whose alternatives all have champion lists: a document's score for
   * the clause is the best of its alternatives' (BM25 + popularity and freshness), so the champion
   * lists are merged best first and the walk stops once the page is full and no alternative's
   * next champion (or, past its list, its champion threshold, which bounds every other document)
   * can reach it: a few dozen candidates instead of the union of the lists (2,048 at the default
   * size), each looked up in every alternative's list.
   */
  const fromChampionsBestFirst = (): Ranked | undefined => {
    if (textClauses.length !== 1 || textClauses[0].atoms.length < 2 || !textClauses[0].atoms.every((a) => a.champ)) return undefined;
    const champs = textClauses[0].atoms.map((a) => a.champ!);
    const orders = champs.map(bestFirst);
    const pos = new Int32Array(champs.length);
    const maxBoost = language > 0 ? LANGUAGE_BOOST : 1;
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
        if (topK.full) floor = Math.max(floor, topK.worstKey);
        // match moved the cursors: the strategies after this one start them again
        for (const req of required) for (const l of req.lists) l.pos = 0;
        for (const l of excluded) l.pos = 0;
        return undefined;
      }
      const d = champs[next].docs[orders[next][pos[next]++]];
      if (seen.has(d)) continue;
      seen.add(d);
      const bm25 = match(d, true);
      if (bm25 < 0) continue;
      matched++;
      topK.offer(d, keyOf(d, bm25));
    }
    const size = textClauses[0].atoms.reduce((n, a) => n + a.list.n, 0);
    strategyStats.champions++;
    return finish(topK.sorted().slice(0, reach), Math.max(matched, Math.round((matched * size) / Math.max(1, seen.size))));
  };

  const fromChampions = (): Ranked | undefined => {
    // `tf`: a single-atom clause's term frequencies along `docs` (match need not search that clause's list)
    let best: { docs: Int32Array; n: number; bound: number; size: number; clause: number; tf: Uint8Array | undefined; score: Float64Array | undefined; idf: number } | undefined;
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
        best = { docs: u.docs, n: u.n, bound, size, clause: i, tf: only ? (only.champ ? only.champ.tf : only.list.tf) : undefined, score: only?.champ?.score, idf: only ? only.list.idf : 0 };
      }
    });
    if (!best) return undefined;
    const maxBoost = language > 0 ? LANGUAGE_BOOST : 1;
    const topK = new TopK(index, reach + 1, false);
    let matched = 0;
    const { tf, idf, clause } = best;
    // the only clause's champion scores are the candidates' keys (before the language boost)
    const score = textClauses.length === 1 ? best.score : undefined;
    // champion lists and their unions are ascending: the other lists' cursors only move forward
    for (let i = 0; i < best.n; i++) {
      const d = best.docs[i];
      const bm25 = tf ? match(d, false, clause, bm25Of(idf, tf[i], index.docLen[d], avgLen)) : match(d, false);
      if (bm25 < 0) continue;
      matched++;
      topK.offer(d, score ? score[i] * boostOf(d) : keyOf(d, bm25));
    }
    const complete = best.bound === -Infinity;
    if (!complete && !(topK.full && topK.worstKey > best.bound * maxBoost)) {
      // Not provably exact, but the (reach + 1)-th result scores at least this: a floor for scoring every candidate.
      if (topK.full) floor = topK.worstKey;
      return undefined;
    }
    const total = complete ? matched : Math.max(matched, Math.round((matched * best.size) / Math.max(1, best.n)));
    strategyStats.champions++;
    return finish(topK.sorted().slice(0, reach), total);
  };

  /**
   * Relevance, when the champion lists cannot prove the page (a second term rarely among a frequent
   * term's champions, a deep page): the rarest single-term clause's documents by that term's BM25 +
   * popularity and freshness, best first (its deep list), walked until no document left could
   * reach the page (its score there + every other clause's maximum is below the last kept).
   */
  const fromDeepList = (): Ranked | undefined => {
    let c = -1;
    for (let r = 0; r < textClauses.length; r++) {
      const atoms = textClauses[r].atoms;
      if (atoms.length === 1 && atoms[0].list.term !== undefined && (c < 0 || atoms[0].list.n < textClauses[c].atoms[0].list.n)) c = r;
    }
    if (c < 0) return undefined;
    const l = textClauses[c].atoms[0].list;
    const term = l.term!;
    const { docLen, staticScore } = index;
    const dl = deepList(index, `relevance ${term}`, index.postings[term], (d, tf) => bm25Of(l.idf, tf, docLen[d], avgLen) + staticScore[d]);
    let rest = 0;
    for (let r = 0; r < textClauses.length; r++) if (r !== c) rest += Math.max(...textClauses[r].atoms.map((a) => a.maxBm25));
    const maxBoost = language > 0 ? LANGUAGE_BOOST : 1;
    // what a document not yet seen could score at most (a hair above, against rounding in sums taken in another order)
    const reachable = (score: number) => (score + rest) * maxBoost * (1 + 1e-9);
    const topK = new TopK(index, reach + 1, false);
    let matched = 0;
    let i = 0;
    for (; i < dl.docs.length; i++) {
      if (topK.full && reachable(dl.scores[i]) < topK.worstKey) break;
      const d = dl.docs[i];
      const bm25 = match(d, true, c, bm25Of(l.idf, dl.tf[i], docLen[d], avgLen));
      if (bm25 < 0) continue;
      matched++;
      // the only clause: its deep-list score is the key (before the language boost)
      topK.offer(d, textClauses.length === 1 ? dl.scores[i] * boostOf(d) : keyOf(d, bm25));
    }
    for (const req of required) for (const x of req.lists) x.pos = 0;
    for (const x of excluded) x.pos = 0;
    const complete = i === dl.docs.length && dl.cutoff === -Infinity;
    if (i === dl.docs.length && !complete && !(topK.full && reachable(dl.cutoff) < topK.worstKey)) {
      if (topK.full) floor = Math.max(floor, topK.worstKey);
      return undefined;
    }
    strategyStats.deep++;
    return finish(topK.sorted().slice(0, reach), complete ? matched : Math.max(matched, Math.round((matched * l.n) / Math.max(1, i))));
  };

  // --- relevance with many candidates: champion lists (each frequent term's best documents by its own score + popularity)
  // (tried from a few thousand candidates: a term with a champion list has at least CHAMPIONS documents)
  if (scoring && driverN > ORDERED_SCAN_MIN / 8 && reach > 0 && textClauses.length) {
    const r = fromChampionsBestFirst() ?? fromChampions() ?? fromDeepList();
    if (r) return r;
    for (const req of required) for (const l of req.lists) l.pos = 0;
    for (const l of excluded) l.pos = 0;
  }

  // --- many candidates: walk the documents in ranking order and stop early (top-k). `next` gives
  // the documents in ranking order (-1 at the end); past `budget` documents the walk gives up.
  // `partial`: `next` gives only the first part of the candidates (see `deepList`).
  // `known`: a requirement every candidate meets (see `match`; exact orders: no BM25).
  const walk = (next: () => number, length: number, budget: number, partial = false, known = -1): Ranked | undefined => {
    // One more than needed: finding it proves there are more results.
    const topK = new TopK(index, reach + 1, byTitle);
    const exact = order !== 'relevance';
    let maxBm25 = 0;
    for (const r of required) if (r.scored) maxBm25 += Math.max(...r.lists.map((l) => l.idf)) * (K1 + 1);
    const maxBoost = language > 0 ? LANGUAGE_BOOST : 1;
    let matched = 0;
    let ended = false;
    let i = 0;
    for (let d: number; ; i++) {
      if ((d = next()) < 0) {
        ended = true;
        break;
      }
      if (topK.full) {
        if (exact) break;
        if ((maxBm25 + index.staticScore[d]) * maxBoost < topK.worstKey) break;
      }
      if (i > budget) break;
      const bm25 = match(d, true, known);
      if (bm25 < 0) continue;
      matched++;
      topK.offer(d, keyOf(d, bm25));
    }
    for (const r of required) for (const l of r.lists) l.pos = 0;
    for (const l of excluded) l.pos = 0;
    if (i > budget && !ended) return undefined;
    if (ended && partial) {
      // the rest rank after every document walked: exact when the page (and one more) is full
      if (!topK.full) return undefined;
      ended = false;
    }
    // Stopped early: the total is estimated from the share of documents walked (the API's totalResults is approximate too).
    const total = ended ? matched : Math.max(matched, Math.round((matched * length) / Math.max(1, i)));
    strategyStats.walk++;
    return finish(topK.sorted().slice(0, reach), total);
  };
  if (reach > 0 && !(scoring && textClauses.length)) {
    // A selective candidate set with its own lists in ranking order (live broadcasts, the geo cells
    // of a circle): walked to the end at most, which costs no more than scoring each candidate.
    if (driverReq?.ranked && driverN > ORDERED_SCAN_MIN / 16) {
      const r = walk(mergedInRankOrder(index, driverReq.lists, order), driverN, Infinity);
      if (r) return r;
    }
    // An exact order with a term's documents as candidates: its first documents in the order's ranking.
    const driving = driverReq?.lists.length === 1 ? driverReq.lists[0] : undefined;
    if (rank && driving?.term !== undefined && driverN > ORDERED_SCAN_MIN / 8) {
      const dl = deepList(index, `${order} ${driving.term}`, index.postings[driving.term], (d) => -rank[d]);
      let j = 0;
      const r = walk(() => (j < dl.docs.length ? dl.docs[j++] : -1), driverN, Infinity, dl.cutoff !== -Infinity, required.indexOf(driverReq!));
      if (r) return r;
    }
    if (driverN > ORDERED_SCAN_MIN) {
      const perm = ordering(index, order);
      let j = 0;
      // Walking costs more per document than scoring a candidate list; past this budget, score the list
      // instead (0: tests, walk to the end). Exact orders give up sooner: their scan skips most candidates
      // by their place alone (below), and a term's documents may all sit late in the order (titles in
      // another script, old videos).
      const budget = ORDERED_SCAN_MIN === 0 ? Infinity : rankedByPlace ? driverN >> 4 : ORDERED_SCAN_MIN + (driverN >> 3);
      const r = walk(() => (j < perm.length ? perm[j++] : -1), perm.length, budget);
      if (r) return r;
    }
  }

  // --- few candidates (or a selective combination): score every candidate, exact total
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
  const pl = floor > -Infinity && driverReq?.scored && driverReq.lists.length === 1 && driverReq.lists[0].tf ? driverReq.lists[0] : undefined;
  let rest = 0;
  if (pl) for (let r = 0; r < textClauses.length; r++) if (required[r] !== driverReq) rest += Math.max(...textClauses[r].atoms.map((a) => a.maxBm25));
  const pruneBelow = floor / (language > 0 ? LANGUAGE_BOOST : 1) - rest;
  // a long list's scores precomputed along it: read in order instead of two columns per posting
  const impact = pl?.term !== undefined && pl.n > ORDERED_SCAN_MIN / 8 ? impactsOf(index, pl.term, pl.idf, avgLen) : undefined;
  let skipped = 0;
  let checked = 0;
  for (let i = 0; i < driverN; i++) {
    const d = driver ? driver[i] : i;
    if (pl) {
      if ((impact ? impact[i] : bm25Of(pl.idf, pl.tf![i], index.docLen[d], avgLen) + index.staticScore[d]) < pruneBelow) {
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
  strategyStats.scan++;
  return finish(skipByPlace ? topK.sorted().slice(0, reach) : topK.sorted(), total);
}

/** Below this many candidates every candidate is scored; above it the ranking-order walk is tried first. */
let ORDERED_SCAN_MIN = 20_000;

/** Tests: force one strategy (0: always walk in ranking order, never falling back; Infinity: always score every candidate). */
export function setOrderedScanThreshold(n: number): number {
  const was = ORDERED_SCAN_MIN;
  ORDERED_SCAN_MIN = n;
  return was;
}

/** The ranking key of the exact orders (bigger ranks first; title order compares titles instead). */
function orderKey(index: SearchIndex, order: SearchQuery['order'], d: number): number {
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
      return index.staticScore[d];
    default:
      return 0;
  }
}

/** `orderings` key of each document's place in an order's ranking (built with the ranking). */
const rankKey = (order: SearchQuery['order']) => `rank ${order}`;

/** Every live document in the order's ranking order (relevance: by popularity + freshness), built once per catalogue version, with each document's place in it. */
function ordering(index: SearchIndex, order: SearchQuery['order']): Int32Array {
  let perm = index.orderings.get(order);
  if (perm) return perm;
  const docs: number[] = [];
  const keys = new Float64Array(index.n);
  for (let d = 0; d < index.n; d++) {
    if (!index.alive[d]) continue;
    docs.push(d);
    keys[d] = orderKey(index, order, d);
  }
  const { ids, titles, kind } = index;
  const byId = (a: number, b: number) => (ids[a] < ids[b] ? -1 : ids[a] > ids[b] ? 1 : kind[a] - kind[b]);
  docs.sort(order === 'title' ? (a, b) => (titles[a] < titles[b] ? -1 : titles[a] > titles[b] ? 1 : byId(a, b)) : (a, b) => keys[b] - keys[a] || byId(a, b));
  perm = Int32Array.from(docs);
  index.orderings.set(order, perm);
  const rank = new Int32Array(index.n);
  for (let i = 0; i < perm.length; i++) rank[perm[i]] = i;
  index.orderings.set(rankKey(order), rank);
  return perm;
}

/** Each document's place in the order's ranking (dead documents: 0, never asked). */
function rankOf(index: SearchIndex, order: SearchQuery['order']): Int32Array {
  return index.orderings.get(rankKey(order)) ?? (ordering(index, order), index.orderings.get(rankKey(order))!);
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
function mergedInRankOrder(index: SearchIndex, lists: List[], order: SearchQuery['order']): () => number {
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

/** Terms in at least this many documents get a champion list. */
let CHAMPION_MIN_DF = 2000;
/** Documents per champion list: more than the deepest reachable result (about 500). */
let CHAMPIONS = 1024;

/** Tests: champion lists for smaller catalogues (takes effect at the next index refresh). */
export function setChampionParameters(minDf: number, size: number): void {
  CHAMPION_MIN_DF = minDf;
  CHAMPIONS = size;
}

/**
 * A term's BM25 + popularity and freshness of each of its postings, along its posting list (dead
 * documents included: they are rejected later), remembered until the index changes. The same
 * computation as the scan's, so the same candidates are skipped.
 */
function impactsOf(index: SearchIndex, term: number, idf: number, avgLen: number): Float64Array {
  let impacts = index.impacts.get(term);
  if (impacts) {
    index.impacts.delete(term);
    index.impacts.set(term, impacts);
    return impacts;
  }
  const p = index.postings[term];
  const { docLen, staticScore } = index;
  impacts = new Float64Array(p.n);
  for (let i = 0; i < p.n; i++) impacts[i] = bm25Of(idf, p.tf[i], docLen[p.docs[i]], avgLen) + staticScore[p.docs[i]];
  index.rememberImpacts(term, impacts);
  return impacts;
}

/** Documents per deep list: eight champion lists' worth, about 100 KiB. */
const deepSize = () => 8 * CHAMPIONS;

/**
 * A term's best documents by `score` (higher first; ties in any order), at most deepSize() of them,
 * and the best score left out (-Infinity: none): made at the first search that needs it, remembered
 * until the index changes (SearchIndex.deepLists, least recently used dropped first). For relevance
 * the score is the term's BM25 + popularity and freshness (champion lists of any depth); for an
 * exact order, minus the place in its ranking (the term's documents in that order).
 */
function deepList(index: SearchIndex, key: string, p: Postings, score: (d: number, tf: number) => number): DeepList {
  const known = index.deepLists.get(key);
  if (known) {
    index.deepLists.delete(key);
    index.deepLists.set(key, known);
    return known;
  }
  const best = bestOf(index, p.docs, p.tf, p.n, deepSize(), score);
  const order = Array.from(best.docs.keys()).sort((a, b) => best.scores[b] - best.scores[a]);
  const list: DeepList = { docs: Int32Array.from(order, (i) => best.docs[i]), tf: Uint8Array.from(order, (i) => best.tf[i]), scores: Float64Array.from(order, (i) => best.scores[i]), cutoff: best.cutoff };
  index.rememberDeepList(key, list);
  return list;
}

/**
 * Champion lists ("top documents per term" of the IR textbooks): for every frequent term, its
 * CHAMPIONS best documents by BM25 of that term alone plus popularity and freshness, the score
 * of the last one (no other document of the term scores higher) and the term's highest BM25.
 * Built after each refresh (static scores change with the catalogue).
 */
export function buildChampions(index: SearchIndex): void {
  index.champions.clear();
  const CHAMPION_MIN = Math.max(CHAMPION_MIN_DF, CHAMPIONS);
  for (const [word, t] of index.terms) {
    const p = index.postings[t];
    if (p.n < CHAMPION_MIN) continue;
    const champ = championOf(index, p.docs, p.tf, p.n, idfOf(index, p.n));
    if (champ) index.champions.set(word, champ);
  }
}

/** The champion list of a remembered phrase with many documents (made at its first use, dropped with it), else undefined. */
function phraseChampion(index: SearchIndex, key: string, l: List): Champion | undefined {
  if (l.n < Math.max(CHAMPION_MIN_DF, CHAMPIONS) || !l.tf || index.phrases.get(key) !== l.docs) return undefined;
  let champ = index.phraseChampions.get(key);
  if (!champ) {
    champ = championOf(index, l.docs, l.tf, l.n, l.idf);
    if (champ) index.phraseChampions.set(key, champ);
  }
  return champ;
}

/** The CHAMPIONS best documents of a posting list by BM25 + static score, or undefined when all of them fit. */
function championOf(index: SearchIndex, pdocs: Int32Array, ptf: Uint8Array, n: number, idf: number): Champion | undefined {
  const avgLen = index.averageLength;
  let maxBm25 = 0;
  const best = bestOf(index, pdocs, ptf, n, CHAMPIONS, (d, tf) => {
    const bm25 = bm25Of(idf, tf, index.docLen[d], avgLen);
    if (bm25 > maxBm25) maxBm25 = bm25;
    return bm25 + index.staticScore[d];
  });
  if (best.cutoff === -Infinity) return undefined; // every document fits: no champion list needed
  // ascending documents (unions and cursors need them so), their term frequencies alongside
  const order = Array.from(best.docs.keys()).sort((a, b) => best.docs[a] - best.docs[b]);
  return { docs: Int32Array.from(order, (i) => best.docs[i]), tf: Uint8Array.from(order, (i) => best.tf[i]), score: Float64Array.from(order, (i) => best.scores[i]), threshold: best.threshold, maxBm25 };
}

let heapScores = new Float64Array(0);
/**
 * The `k` best live documents of a posting list by `score` (a bounded min-heap; in heap order),
 * their term frequencies and scores, the worst kept score (`threshold`) and the best score left
 * out (-Infinity: none left out).
 */
function bestOf(index: SearchIndex, pdocs: Int32Array, ptf: Uint8Array, n: number, k: number, score: (d: number, tf: number) => number) {
  if (heapScores.length < k) heapScores = new Float64Array(k);
  const scores = heapScores;
  const docs = new Int32Array(k);
  const tfs = new Uint8Array(k);
  let size = 0;
  let cutoff = -Infinity;
  for (let i = 0; i < n; i++) {
    const d = pdocs[i];
    if (!index.alive[d]) continue;
    const tf = ptf[i];
    const s = score(d, tf);
    if (size < k) {
      let j = size++;
      while (j > 0) {
        const parent = (j - 1) >> 1;
        if (scores[parent] <= s) break;
        scores[j] = scores[parent];
        docs[j] = docs[parent];
        tfs[j] = tfs[parent];
        j = parent;
      }
      scores[j] = s;
      docs[j] = d;
      tfs[j] = tf;
      continue;
    }
    if (s <= scores[0]) {
      if (s > cutoff) cutoff = s;
      continue;
    }
    if (scores[0] > cutoff) cutoff = scores[0];
    let j = 0;
    for (;;) {
      const l = 2 * j + 1;
      if (l >= size) break;
      const c = l + 1 < size && scores[l + 1] < scores[l] ? l + 1 : l;
      if (scores[c] >= s) break;
      scores[j] = scores[c];
      docs[j] = docs[c];
      tfs[j] = tfs[c];
      j = c;
    }
    scores[j] = s;
    docs[j] = d;
    tfs[j] = tf;
  }
  return { docs: docs.subarray(0, size), tf: tfs.subarray(0, size), scores: scores.slice(0, size), threshold: size ? scores[0] : -Infinity, cutoff };
}

/** A champion list's positions, best score first (made at its first use). */
function bestFirst(champ: Champion): Int32Array {
  return (champ.bestFirst ??= Int32Array.from(champ.docs.keys()).sort((a, b) => champ.score[b] - champ.score[a]));
}

/** Popularity and freshness of each document, recomputed after the catalogue changes. */
export function staticScores(index: SearchIndex): Float32Array<ArrayBuffer> {
  const out = new Float32Array(index.capacity);
  for (let d = 0; d < index.n; d++) {
    const k = index.kind[d];
    const pop = k === 0 ? Math.log10(1 + index.views[d]) / 7 : k === 1 ? Math.log10(1 + index.likes[d]) / 6 : Math.log10(1 + index.count[d]) / 6;
    const age = Math.max(0, index.maxPublished - index.published[d]) / DAY_MS;
    out[d] = POPULARITY_WEIGHT * pop + FRESHNESS_WEIGHT * Math.exp(-age / FRESHNESS_DAYS);
  }
  return out;
}

/** The best `k` documents seen: a heap whose root is the worst kept. */
class TopK {
  readonly #index: SearchIndex;
  readonly #k: number;
  readonly #byTitle: boolean;
  readonly #docs: number[] = [];
  readonly #keys: number[] = [];

  constructor(index: SearchIndex, k: number, byTitle: boolean) {
    this.#index = index;
    this.#k = k;
    this.#byTitle = byTitle;
  }

  /** Whether a ranks above b. */
  #above(da: number, ka: number, db: number, kb: number): boolean {
    if (this.#byTitle) {
      const ta = this.#index.titles[da];
      const tb = this.#index.titles[db];
      if (ta !== tb) return ta < tb;
    } else if (ka !== kb) return ka > kb;
    const ia = this.#index.ids[da];
    const ib = this.#index.ids[db];
    if (ia !== ib) return ia < ib;
    return this.#index.kind[da] < this.#index.kind[db];
  }

  get full(): boolean {
    return this.#docs.length >= this.#k;
  }
  /** The key of the worst document kept (meaningful when full). */
  get worstKey(): number {
    return this.#keys[0];
  }

  offer(d: number, key: number): void {
    const docs = this.#docs;
    const keys = this.#keys;
    if (docs.length < this.#k) {
      let i = docs.length;
      docs.push(d);
      keys.push(key);
      while (i > 0) {
        const parent = (i - 1) >> 1;
        if (!this.#above(docs[parent], keys[parent], docs[i], keys[i])) break;
        this.#swap(i, parent);
        i = parent;
      }
      return;
    }
    if (!this.#above(d, key, docs[0], keys[0])) return;
    docs[0] = d;
    keys[0] = key;
    let i = 0;
    const n = docs.length;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let worst = i;
      if (l < n && this.#above(docs[worst], keys[worst], docs[l], keys[l])) worst = l;
      if (r < n && this.#above(docs[worst], keys[worst], docs[r], keys[r])) worst = r;
      if (worst === i) break;
      this.#swap(i, worst);
      i = worst;
    }
  }

  #swap(i: number, j: number): void {
    const d = this.#docs[i];
    this.#docs[i] = this.#docs[j];
    this.#docs[j] = d;
    const k = this.#keys[i];
    this.#keys[i] = this.#keys[j];
    this.#keys[j] = k;
  }

  sorted(): number[] {
    const idx = this.#docs.map((_, i) => i);
    idx.sort((a, b) => (this.#above(this.#docs[a], this.#keys[a], this.#docs[b], this.#keys[b]) ? -1 : 1));
    return idx.map((i) => this.#docs[i]);
  }
}
