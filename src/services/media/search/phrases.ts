import type { QueryAtom } from '../catalog/types.ts';
import type { SearchIndex, TermPostings } from './index.ts';
import { advance } from './postingLists.ts';
import { grown } from './typedArrays.ts';

/**
 * Phrases: the documents holding words adjacent and in order, from positional postings (each
 * term's word positions in each of its documents) and the pair index (pairs.ts: the documents of
 * two frequent words adjacent). Candidates come from the shortest of the words' lists and the
 * indexed pairs' lists (a phrase of two frequent words is its pair's list); each is looked up in
 * every word's list (galloping cursors) and kept when some start position has every word at its
 * offset. No document is read.
 */

/** Documents holding the phrase (all its words, adjacent, in order), ascending (remembered by the index until it changes). */
export function phraseDocs(index: SearchIndex, atom: QueryAtom): Int32Array {
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
  const docs = phraseMatches(index, ids);
  index.rememberPhrase(key, docs);
  return docs;
}

/** Documents whose positions hold the term ids `ids` at consecutive positions, ascending. */
function phraseMatches(index: SearchIndex, ids: number[]): Int32Array {
  const m = ids.length;
  // two words: an indexed pair's documents are the phrase's
  if (m === 2) {
    const pair = index.pairs.docs(ids[0], ids[1]);
    if (pair) return pair.docs.slice(0, pair.n);
  }
  // each distinct term once (a phrase may repeat a word: "la la"), rarest first
  const terms = [...new Set(ids)].sort((a, b) => index.postings[a].n - index.postings[b].n);
  const lists: TermPostings[] = terms.map((t) => index.postings[t]);
  // the candidates: the rarest word's documents, or an indexed pair's when fewer
  let driver: { docs: Int32Array; n: number } = lists[0];
  let pairDriven = false;
  for (let w = 0; w + 1 < m; w++) {
    const pair = index.pairs.docs(ids[w], ids[w + 1]);
    if (pair && pair.n < driver.n) {
      driver = pair;
      pairDriven = true;
    }
  }
  // for each word of the phrase, its term's list
  const listOf = ids.map((t) => terms.indexOf(t));
  const cursor = new Int32Array(lists.length);
  // per word: where its positions in the current document are (start, end in its list's `pos`)
  const from = new Int32Array(m);
  const to = new Int32Array(m);
  // the rarest word's list is searched too when a pair drives (else it is the driver: its cursor is the driver's)
  const searched = pairDriven ? 0 : 1;
  let out = new Int32Array(Math.min(driver.n, 1024));
  let n = 0;
  outer: for (let i = 0; i < driver.n; i++) {
    const d = driver.docs[i];
    if (!pairDriven) cursor[0] = i;
    for (let j = searched; j < lists.length; j++) {
      const l = lists[j];
      const c = (cursor[j] = advance(l.docs, l.n, cursor[j], d));
      if (c >= l.n) break outer;
      if (l.docs[c] !== d) continue outer;
    }
    for (let w = 0; w < m; w++) {
      const l = lists[listOf[w]];
      const c = cursor[listOf[w]];
      from[w] = l.at[c];
      to[w] = l.end(c);
    }
    if (!adjacent(lists, listOf, from, to)) continue;
    if (n === out.length) out = grown(out, Math.min(driver.n, n * 2));
    out[n++] = d;
  }
  return out.slice(0, n);
}

/**
 * Whether some start position p has word w at p + w for every word (positions ascending per
 * word, so each word's scan only moves forward as p grows). Moves `from`.
 */
function adjacent(lists: TermPostings[], listOf: number[], from: Int32Array, to: Int32Array): boolean {
  const m = listOf.length;
  const first = lists[listOf[0]].pos;
  starts: for (let s = from[0]; s < to[0]; s++) {
    const p = first[s];
    for (let w = 1; w < m; w++) {
      const pos = lists[listOf[w]].pos;
      const want = p + w;
      let k = from[w];
      while (k < to[w] && pos[k] < want) k++;
      from[w] = k;
      if (k === to[w]) return false;
      if (pos[k] !== want) continue starts;
    }
    return true;
  }
  return false;
}

/** Term frequencies of a phrase's documents: all 3 (a title hit), shared read-only by every phrase (never written). */
let PHRASE_TF = new Uint8Array(0);
export function phraseTf(n: number): Uint8Array {
  if (PHRASE_TF.length < n) PHRASE_TF = new Uint8Array(Math.max(n, PHRASE_TF.length * 2)).fill(3);
  return PHRASE_TF;
}

/** Whether `words` holds `run` as adjacent words, in order. */
export function containsRun(words: string[], run: string[]): boolean {
  outer: for (let i = 0; i + run.length <= words.length; i++) {
    for (let j = 0; j < run.length; j++) if (words[i + j] !== run[j]) continue outer;
    return true;
  }
  return false;
}
