import type { QueryAtom } from '../catalog/types.ts';
import type { SearchIndex } from './index.ts';
import { advance } from './postingLists.ts';

/** Phrases: the documents holding words adjacent and in order. */

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
