import { type Champion, type DeepList, type Postings, RECORD, type RecordWords, type SearchIndex } from './index.ts';
import type { List } from './postingLists.ts';
import { phraseTf } from './phrases.ts';
import { bm25Of, idfOf, phraseIdf } from './scoring.ts';

/**
 * A term's best documents, made ahead of the searches that need them: champion lists (each
 * frequent term's best documents by its BM25 + popularity and freshness, rebuilt after each
 * refresh), deep lists (a term's best documents by some score, made on demand) and impacts (a
 * term's score along its posting list). The sizes are the index's tuning (SearchIndex.tuning).
 */

/**
 * A term's BM25 + popularity and freshness of each of its postings, along its posting list (dead
 * documents included: they are rejected later), remembered until the index changes. The same
 * computation as the scan's, so the same candidates are skipped.
 */
export function impactsOf(index: SearchIndex, term: number, idf: number, avgLen: number): Float64Array {
  let impacts = index.impacts.get(term);
  if (impacts) {
    index.impacts.delete(term);
    index.impacts.set(term, impacts);
    return impacts;
  }
  const p = index.postings[term];
  const { records, recordScores } = index;
  const W = RECORD.words;
  impacts = new Float64Array(p.n);
  for (let i = 0; i < p.n; i++) {
    const r = p.docs[i] * W;
    impacts[i] = bm25Of(idf, p.tf[i], records[r + RECORD.length], avgLen) + recordScores[r + RECORD.staticScore];
  }
  index.rememberImpacts(term, impacts);
  return impacts;
}

/**
 * A term's best documents by `score` (higher first; ties in any order), at most eight champion lists' worth
 * (`8 * tuning.champions`, about 100 KiB at the default size),
 * and the best score left out (-Infinity: none): made at the first search that needs it, remembered
 * until the index changes (SearchIndex.deepLists, least recently used dropped first). For relevance
 * the score is the term's BM25 + popularity and freshness (champion lists of any depth); for an
 * exact order, minus the place in its ranking (the term's documents in that order).
 */
export function deepList(index: SearchIndex, key: string, p: Postings, score: (d: number, tf: number) => number): DeepList {
  const known = index.deepLists.get(key);
  if (known) {
    index.deepLists.delete(key);
    index.deepLists.set(key, known);
    return known;
  }
  const scores = scratchScores(p.n);
  for (let i = 0; i < p.n; i++) scores[i] = index.alive[p.docs[i]] ? score(p.docs[i], p.tf[i]) : NaN;
  const best = bestOf(p.docs, p.tf, p.n, 8 * index.tuning.champions, scores);
  const order = Array.from(best.docs.keys()).sort((a, b) => best.scores[b] - best.scores[a]);
  const docs = Int32Array.from(order, (i) => best.docs[i]);
  const list: DeepList = {
    docs,
    tf: Uint8Array.from(order, (i) => best.tf[i]),
    ...recordWordsOf(index, docs),
    scores: Float64Array.from(order, (i) => best.scores[i]),
    cutoff: best.cutoff,
  };
  index.rememberDeepList(key, list);
  return list;
}

/**
 * Champion lists ("top documents per term" of the IR textbooks): for every frequent term, its
 * `tuning.champions` best documents by BM25 of that term alone plus popularity and freshness,
 * the score of the last one (no other document of the term scores higher) and the term's highest
 * BM25; the same for the two-word phrases of the pair index (pairs.ts) with many documents,
 * scored as plan.ts scores a phrase, so that a first search of one is answered from its champion
 * list, not by scoring its tens of thousands of documents. All of them after a build from the
 * store or a snapshot load (at a million videos 1,673 terms and 1,148 pairs: 3 - 6 s).
 */
export function buildChampions(index: SearchIndex): void {
  index.champions.clear();
  index.pairChampions.clear();
  index.lazyChampions = false;
  const tuning = index.tuning;
  index.championsTuning = { championMinDf: tuning.championMinDf, champions: tuning.champions, pairMinDf: tuning.pairMinDf };
  const minDf = championMinDf(index);
  for (const [word, t] of index.terms) {
    const p = index.postings[t];
    if (p.n >= minDf) index.champions.set(word, championOf(index, p.docs, p.tf, p.n, idfOf(index, p.n)) ?? null);
  }
  for (const [a, b, l] of index.pairs.pairs()) if (l.n >= minDf) index.pairChampions.set(`${a} ${b}`, pairChampionOf(index, l));
}

/**
 * After a catch-up with later writes (static scores change with the catalogue: every champion
 * list may): the lists are dropped and each is made again at its first use (`termChampion`,
 * `phraseChampion`), so that a write to a catalogue of a million videos does not stall the next
 * searches for the seconds all of them take.
 */
export function dropChampions(index: SearchIndex): void {
  index.champions.clear();
  index.pairChampions.clear();
  index.lazyChampions = true;
  index.championsTuning = undefined;
}

/** Every champion list is there, made with the index's tuning (a snapshot's are, when it was saved with the same). */
export function championsCurrent(index: SearchIndex): boolean {
  const made = index.championsTuning;
  const t = index.tuning;
  return made !== undefined && made.championMinDf === t.championMinDf && made.champions === t.champions && made.pairMinDf === t.pairMinDf;
}

const championMinDf = (index: SearchIndex) => Math.max(index.tuning.championMinDf, index.tuning.champions);

/** A frequent term's champion list, else undefined. */
export function termChampion(index: SearchIndex, word: string): Champion | undefined {
  const known = index.champions.get(word);
  if (known !== undefined || !index.lazyChampions) return known ?? undefined;
  const t = index.terms.get(word);
  const p = t === undefined ? undefined : index.postings[t];
  if (!p || p.n < championMinDf(index)) return undefined;
  const champ = championOf(index, p.docs, p.tf, p.n, idfOf(index, p.n)) ?? null;
  index.champions.set(word, champ);
  return champ ?? undefined;
}

/** An indexed pair's champion list (scored as its phrase: see plan.ts), with the idf it was scored with. */
function pairChampionOf(index: SearchIndex, l: { docs: Int32Array; n: number }): { champ: Champion; idf: number } | null {
  const idf = phraseIdf(index, l.n, 2);
  const champ = championOf(index, l.docs, phraseTf(l.n), l.n, idf);
  return champ ? { champ, idf } : null;
}

/** The champion list of the indexed pair of a two-word phrase's `key` (its term ids), else undefined. */
function pairChampion(index: SearchIndex, key: string): { champ: Champion; idf: number } | undefined {
  const known = index.pairChampions.get(key);
  if (known !== undefined || !index.lazyChampions) return known ?? undefined;
  const ids = key.split(' ');
  const l = ids.length === 2 ? index.pairs.docs(Number(ids[0]), Number(ids[1])) : undefined;
  if (!l || l.n < championMinDf(index)) return undefined;
  const entry = pairChampionOf(index, l);
  index.pairChampions.set(key, entry);
  return entry ?? undefined;
}

/**
 * The champion list of a phrase with many documents: a pair's (see `buildChampions`), else made at
 * the phrase's first use and dropped with it; undefined for a phrase of few documents.
 */
export function phraseChampion(index: SearchIndex, key: string, l: List): Champion | undefined {
  if (l.n < championMinDf(index) || !l.tf) return undefined;
  // a two-word phrase of an indexed pair: its list is the pair's (the same idf says the same size)
  const pair = pairChampion(index, key);
  if (pair && pair.idf === l.idf) return pair.champ;
  if (index.phrases.get(key) !== l.docs) return undefined;
  let champ = index.phraseChampions.get(key);
  if (!champ) {
    champ = championOf(index, l.docs, l.tf, l.n, l.idf);
    if (champ) index.phraseChampions.set(key, champ);
  }
  return champ;
}

/** The `tuning.champions` best documents of a posting list by BM25 + static score, or undefined when all of them fit. */
function championOf(index: SearchIndex, pdocs: Int32Array, ptf: Uint8Array, n: number, idf: number): Champion | undefined {
  const avgLen = index.averageLength;
  const { records, recordScores } = index;
  const W = RECORD.words;
  let maxBm25 = 0;
  const scores = scratchScores(n);
  for (let i = 0; i < n; i++) {
    const r = pdocs[i] * W;
    // dead (RECORD.gate's bit 0)
    if (!(records[r + RECORD.gate] & 1)) {
      scores[i] = NaN;
      continue;
    }
    const bm25 = bm25Of(idf, ptf[i], records[r + RECORD.length], avgLen);
    if (bm25 > maxBm25) maxBm25 = bm25;
    scores[i] = bm25 + recordScores[r + RECORD.staticScore];
  }
  const best = bestOf(pdocs, ptf, n, index.tuning.champions, scores);
  if (best.cutoff === -Infinity) return undefined; // every document fits: no champion list needed
  // ascending documents (unions and cursors need them so), their term frequencies alongside:
  // each kept document and its place in the heap in one number, sorted as numbers
  const size = best.docs.length;
  const byDoc = new Float64Array(size);
  for (let i = 0; i < size; i++) byDoc[i] = best.docs[i] * size + i;
  byDoc.sort();
  const docs = new Int32Array(size);
  const tf = new Uint8Array(size);
  const score = new Float64Array(size);
  for (let j = 0; j < size; j++) {
    const i = byDoc[j] % size;
    docs[j] = best.docs[i];
    tf[j] = best.tf[i];
    score[j] = best.scores[i];
  }
  return { docs, tf, score, ...recordWordsOf(index, docs), threshold: best.threshold, maxBm25 };
}

/** The record words a list of documents carries (see RecordWords). */
function recordWordsOf(index: SearchIndex, docs: Int32Array): RecordWords {
  const { records, recordScores } = index;
  const length = new Uint16Array(docs.length);
  const gate = new Uint32Array(docs.length);
  const staticScore = new Float32Array(docs.length);
  for (let j = 0; j < docs.length; j++) {
    const r = docs[j] * RECORD.words;
    length[j] = records[r + RECORD.length];
    gate[j] = records[r + RECORD.gate];
    staticScore[j] = recordScores[r + RECORD.staticScore];
  }
  return { length, gate, staticScore };
}

let scoreScratch = new Float64Array(0);
/** Room for `n` scores (shared: used before the next call). */
function scratchScores(n: number): Float64Array {
  if (scoreScratch.length < n) scoreScratch = new Float64Array(Math.max(n, scoreScratch.length * 2));
  return scoreScratch;
}

let heapScores = new Float64Array(0);
/**
 * The `k` best documents of a posting list by their scores along it (`all`; NaN: a dead
 * document, left out), in a bounded min-heap (in heap order): their term frequencies and scores,
 * the worst kept score (`threshold`) and the best score left out (-Infinity: none left out).
 */
function bestOf(pdocs: Int32Array, ptf: Uint8Array, n: number, k: number, all: Float64Array) {
  if (heapScores.length < k) heapScores = new Float64Array(k);
  const scores = heapScores;
  const docs = new Int32Array(k);
  const tfs = new Uint8Array(k);
  let size = 0;
  let cutoff = -Infinity;
  for (let i = 0; i < n; i++) {
    const s = all[i];
    if (s !== s) continue;
    const d = pdocs[i];
    const tf = ptf[i];
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
export function bestFirst(champ: Champion): Int32Array {
  return (champ.bestFirst ??= Int32Array.from(champ.docs.keys()).sort((a, b) => champ.score[b] - champ.score[a]));
}
