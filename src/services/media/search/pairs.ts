import type { TermPostings } from './index.ts';
import { grown } from './typedArrays.ts';

/**
 * The pair index (the "phrase index for common word pairs" of combined phrase indexes): for every
 * two frequent words (each in at least `minDf` documents) that sit adjacent somewhere, the
 * documents where they do, ascending. A phrase of two frequent words ("the best", "el la") is
 * then a list read, and a longer one takes its candidates from its rarest pair; from positions
 * alone, such a phrase costs a check of the positions of every document holding both words
 * (half a million at a million videos: tens of milliseconds). Phrases with a rarer word are
 * answered from positions (phrases.ts): they hold fewer documents.
 *
 * Built from the positional postings (after a build from the store, when the index has doubled
 * since, and when the threshold changes); documents added after are indexed as they come, so a
 * pair's list always holds every document with that pair. Dead documents stay in it, like in the
 * postings.
 */

/** Ascending document numbers. */
export class DocList {
  docs: Int32Array;
  n = 0;
  constructor(capacity = 4) {
    this.docs = new Int32Array(capacity);
  }
  /** Appends `doc` unless it is already the last one. */
  add(doc: number): void {
    if (this.n && this.docs[this.n - 1] === doc) return;
    if (this.n === this.docs.length) this.docs = grown(this.docs, this.n * 2);
    this.docs[this.n++] = doc;
  }
  trim(): void {
    if (this.docs.length > this.n + 8) this.docs = this.docs.slice(0, this.n);
  }
}

const NONE = new DocList(0);
/** Documents per chunk of a build (each a row of `STRIDE` word slots: 256 KiB, within a core's cache). */
const CHUNK = 256;
/** Word slots per document: every position (< 256, see index.ts MAX_POSITIONS) and the one after the last. */
const STRIDE = 257;
/** Paired terms are numbered in 16 bits, under a chunk's stamp (see `build`). */
const MAX_PAIRED = 0xffff;
const STAMPS = 0x7fff;

/** What a snapshot holds of the pair index. */
export interface PairState {
  minDf: number;
  builtAt: number;
  /** The paired terms' ids, in the order that numbers them. */
  terms: Int32Array;
  /** Each list's pair: first word's number * terms + second's. */
  keys: Int32Array;
  lists: DocList[];
}

export class PairIndex {
  /** The threshold it was built with, and the documents the index had then. */
  readonly minDf: number;
  readonly builtAt: number;
  /** The paired terms' ids; a term's number among them (-1: not paired). */
  readonly terms: Int32Array;
  readonly #number: Int32Array;
  /** Pair key (see PairState.keys) -> its documents. */
  readonly lists = new Map<number, DocList>();

  constructor(minDf = -1, builtAt = 0, terms: Int32Array = new Int32Array(0), termCount = 0) {
    this.minDf = minDf;
    this.builtAt = builtAt;
    this.terms = terms;
    this.#number = new Int32Array(termCount).fill(-1);
    terms.forEach((t, i) => (this.#number[t] = i));
  }

  /** Whether it should be built again: another threshold, or twice the documents it was built with (more words are frequent). */
  stale(docs: number, minDf: number): boolean {
    return minDf !== this.minDf || (docs > 0 && docs >= 2 * this.builtAt);
  }

  #numberOf(t: number): number {
    return t >= 0 && t < this.#number.length ? this.#number[t] : -1;
  }

  /** The documents holding term `a` right before term `b`, or undefined when the pair is not indexed (a word not frequent). */
  docs(a: number, b: number): DocList | undefined {
    const na = this.#numberOf(a);
    const nb = this.#numberOf(b);
    if (na < 0 || nb < 0) return undefined;
    return this.lists.get(na * this.terms.length + nb) ?? NONE;
  }

  /** Each indexed pair: its first and second word's term ids and its documents. */
  *pairs(): Generator<[first: number, second: number, docs: DocList]> {
    const r = this.terms.length;
    for (const [key, l] of this.lists) yield [this.terms[Math.floor(key / r)], this.terms[key % r], l];
  }

  #list(key: number): DocList {
    let l = this.lists.get(key);
    if (!l) this.lists.set(key, (l = new DocList()));
    return l;
  }

  /** Indexes a document added after the build: its term ids by word position (`words[0..length)`, negative at a field break). */
  addDocument(d: number, words: Int32Array, length: number): void {
    const r = this.terms.length;
    if (!r) return;
    let prev = this.#numberOf(words[0]);
    for (let p = 1; p < length; p++) {
      const next = this.#numberOf(words[p]);
      if (prev >= 0 && next >= 0) this.#list(prev * r + next).add(d);
      prev = next;
    }
  }

  /**
   * The pair index of `postings` (documents 0 to `docs` - 1): the terms in at least `minDf`
   * documents (the most frequent MAX_PAIRED of them at most), and their adjacent pairs, found
   * chunk by chunk of documents: the paired terms' positions written into a slot per word
   * position, then each paired term's next slot read. A slot holds its chunk's stamp above the
   * term's number, so no chunk clears the slots of the one before. `chunking`: tests try other
   * chunk sizes and stamp counts.
   */
  static build(postings: TermPostings[], docs: number, minDf: number, chunking = { documents: CHUNK, stamps: STAMPS }): PairIndex {
    let paired: number[] = [];
    postings.forEach((p, t) => {
      if (p.n >= minDf) paired.push(t);
    });
    if (paired.length > MAX_PAIRED) paired = paired.sort((a, b) => postings[b].n - postings[a].n).slice(0, MAX_PAIRED).sort((a, b) => a - b);
    const x = new PairIndex(minDf, docs, Int32Array.from(paired), postings.length);
    const r = paired.length;
    if (!r) return x;
    const { documents: CHUNK_DOCS, stamps: STAMP_COUNT } = chunking;
    const slots = new Int32Array(CHUNK_DOCS * STRIDE);
    const cursor = new Int32Array(r);
    const rows: (DocList | undefined)[][] = Array.from({ length: r }, () => []);
    for (let d0 = 0, chunk = 0; d0 < docs; d0 += CHUNK_DOCS, chunk++) {
      const d1 = Math.min(docs, d0 + CHUNK_DOCS);
      // stamps 1 to STAMPS (in the 15 bits above the number); after that many chunks the slots are cleared and stamps start again
      if (chunk % STAMP_COUNT === 0 && chunk) slots.fill(0);
      const stamp = ((chunk % STAMP_COUNT) + 1) << 16;
      for (let a = 0; a < r; a++) {
        const p = postings[paired[a]];
        const { docs: pd, at, pos } = p;
        for (let c = cursor[a]; c < p.n && pd[c] < d1; c++) {
          const base = (pd[c] - d0) * STRIDE;
          for (let k = at[c], end = p.end(c); k < end; k++) slots[base + pos[k]] = stamp | a;
        }
      }
      for (let a = 0; a < r; a++) {
        const p = postings[paired[a]];
        const { docs: pd, at, pos } = p;
        const row = rows[a];
        let c = cursor[a];
        for (; c < p.n && pd[c] < d1; c++) {
          const d = pd[c];
          const base = (d - d0) * STRIDE + 1;
          for (let k = at[c], end = p.end(c); k < end; k++) {
            const slot = slots[base + pos[k]];
            if ((slot & ~MAX_PAIRED) === stamp) {
              const b = slot & MAX_PAIRED;
              (row[b] ??= x.#list(a * r + b)).add(d);
            }
          }
        }
        cursor[a] = c;
      }
    }
    for (const l of x.lists.values()) l.trim();
    return x;
  }

  state(): PairState {
    return { minDf: this.minDf, builtAt: this.builtAt, terms: this.terms, keys: Int32Array.from(this.lists.keys()), lists: [...this.lists.values()] };
  }

  /** The pair index of a snapshot (the inverse of `state`), for an index of `termCount` terms. */
  static restore(st: PairState, termCount: number): PairIndex {
    const x = new PairIndex(st.minDf, st.builtAt, st.terms, termCount);
    st.keys.forEach((k, i) => x.lists.set(k, st.lists[i]));
    return x;
  }
}
