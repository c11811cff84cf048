import type { TermPostings } from './index.ts';
import { grown } from './typedArrays.ts';

/** Entries (a term in a document) a block holds before it is added to the terms' lists. */
const BLOCK_ENTRIES = 1 << 20;

/**
 * The postings of a build from the store, collected in a block and added to the terms' lists
 * term by term (block sort-based inversion). Adding each document's postings straight to its
 * terms' lists touches a list (its object, its arrays) per term per document: at a million
 * documents the lists are hundreds of MB and nearly every touch is a cache miss, most of a
 * build's time. A block is written in order; when it fills, its entries are sorted by term
 * (counting sort: stable, so each term's documents stay ascending) and each term's list is
 * touched once, its new postings and positions copied in a run. The lists come out the same as
 * document by document (`test/unit/media.postingBlock.test.ts`).
 */
export class PostingBlock {
  readonly #capacity: number;
  #term: Int32Array;
  #doc: Int32Array;
  #tf: Uint16Array;
  #count: Uint16Array;
  /** Where each entry's positions start in `#pos` (they are `#count` long). */
  #posStart: Int32Array;
  #n = 0;
  #pos: Uint8Array;
  #posN = 0;

  /** `capacity`: entries per block (tests make it small, so that a build takes many blocks). */
  constructor(capacity = BLOCK_ENTRIES) {
    this.#capacity = capacity;
    // a small catalogue's build needs a small block: it grows up to `capacity`
    const size = Math.min(capacity, 1 << 12);
    this.#term = new Int32Array(size);
    this.#doc = new Int32Array(size);
    this.#tf = new Uint16Array(size);
    this.#count = new Uint16Array(size);
    this.#posStart = new Int32Array(size);
    this.#pos = new Uint8Array(size * 4);
  }

  /** Room for `entries` more entries and `positions` more positions: the block grown (up to its capacity), else added to `postings` first. */
  #makeRoom(postings: TermPostings[], entries: number, positions: number): void {
    if (this.#n + entries <= this.#term.length && this.#posN + positions <= this.#pos.length) return;
    if (this.#term.length < this.#capacity) {
      const size = Math.min(this.#capacity, this.#term.length * 2);
      this.#term = grown(this.#term, size, this.#n);
      this.#doc = grown(this.#doc, size, this.#n);
      this.#tf = grown(this.#tf, size, this.#n);
      this.#count = grown(this.#count, size, this.#n);
      this.#posStart = grown(this.#posStart, size, this.#n);
      this.#pos = grown(this.#pos, size * 4, this.#posN);
      return this.#makeRoom(postings, entries, positions);
    }
    this.flushInto(postings);
    if (entries > this.#capacity) throw new Error(`a document of ${entries} terms does not fit a posting block of ${this.#capacity}`);
    if (positions > this.#pos.length) this.#pos = new Uint8Array(positions);
  }

  /**
   * Adds document `d`: its distinct `terms` with their weighted frequency and occurrence count
   * (`tf[t]`, `count[t]`), and its term per word position (`words`, `length` of them; `skip` at a
   * field break). `cursor` is the caller's per-term scratch. Adds the block to `postings` first
   * when the document does not fit.
   */
  add(postings: TermPostings[], d: number, terms: number[], tf: Uint16Array, count: Uint16Array, words: Int32Array, length: number, skip: number, cursor: Int32Array): void {
    this.#makeRoom(postings, terms.length, length);
    for (let i = 0; i < terms.length; i++) {
      const t = terms[i];
      const e = this.#n++;
      this.#term[e] = t;
      this.#doc[e] = d;
      this.#tf[e] = tf[t];
      this.#count[e] = count[t];
      this.#posStart[e] = this.#posN;
      cursor[t] = this.#posN;
      this.#posN += count[t];
    }
    for (let p = 0; p < length; p++) {
      const t = words[p];
      if (t !== skip) this.#pos[cursor[t]++] = p;
    }
  }

  /** Adds the block's entries to the terms' lists (appended after what they hold) and empties it. */
  flushInto(postings: TermPostings[]): void {
    const n = this.#n;
    if (!n) return;
    const terms = postings.length;
    // entries and positions per term, then where each term's entries start once sorted
    const start = new Int32Array(terms + 1);
    const positions = new Int32Array(terms);
    const term = this.#term;
    const count = this.#count;
    for (let e = 0; e < n; e++) {
      start[term[e] + 1]++;
      positions[term[e]] += count[e];
    }
    for (let t = 0; t < terms; t++) start[t + 1] += start[t];
    // the entries sorted by term (stable): each term's then read in one run
    const next = start.slice(0, terms);
    const doc = new Int32Array(n);
    const tf = new Uint16Array(n);
    const from = new Int32Array(n);
    const counts = new Uint16Array(n);
    for (let e = 0; e < n; e++) {
      const i = next[term[e]]++;
      doc[i] = this.#doc[e];
      tf[i] = this.#tf[e];
      from[i] = this.#posStart[e];
      counts[i] = count[e];
    }
    const pos = this.#pos;
    for (let t = 0; t < terms; t++) {
      const first = start[t];
      const end = start[t + 1];
      if (first === end) continue;
      const list = postings[t];
      list.reserve(end - first, positions[t]);
      for (let i = first; i < end; i++) list.append(doc[i], tf[i], pos, from[i], counts[i]);
    }
    this.#n = 0;
    this.#posN = 0;
  }
}
