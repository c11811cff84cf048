import type { SearchHit } from '../catalog/types.ts';

/**
 * The hits of recent results by document number, as Solr's documentCache keeps the stored fields
 * of the documents recent results showed: a document on the first pages of popular queries is
 * shown again and again, and making its hit (its title and description copied out of the index's
 * text buffer, two cache misses at a million documents, and an object of eight fields) is a sixth
 * of a search's time on the main thread. Direct-mapped (slot = document number modulo the size,
 * the last one there kept): a lookup is one read of a small array, no recency to keep; a hit is
 * shared by the results that show it, and never changed (SearchHit's fields are read-only).
 *
 * Entries hold for one state of the index: `validFor(stamp)` empties the cache when the state it
 * is asked for is not the one its entries were made in (a catch-up, a wipe, a new tuning).
 */
export class HitCache {
  readonly #size: number;
  readonly #mask: number;
  /** Made at the first search (a server that is never asked for one holds none). */
  #docs = new Int32Array(0);
  #hits: (SearchHit | undefined)[] = [];
  #stamp = NaN;
  /** Lookups answered from the cache, and hits made (and kept) instead. */
  readonly stats = { found: 0, made: 0 };

  /** `size`: slots, a power of two (0: nothing is kept). */
  constructor(size: number) {
    if (size !== 0 && (size & (size - 1)) !== 0) throw new Error(`the hit cache's size must be a power of two, not ${size}`);
    this.#size = size;
    this.#mask = size - 1;
  }

  /** Makes the entries those of the index state `stamp` (emptied when they were another's). */
  validFor(stamp: number): void {
    if (stamp === this.#stamp) return;
    this.#stamp = stamp;
    if (this.#docs.length !== this.#size) {
      this.#docs = new Int32Array(this.#size);
      this.#hits = new Array<SearchHit | undefined>(this.#size);
    }
    this.#docs.fill(-1);
    this.#hits.fill(undefined);
  }

  /** Whether document `d`'s hit is kept. */
  has(d: number): boolean {
    return this.#docs.length !== 0 && this.#docs[d & this.#mask] === d;
  }

  /** Document `d`'s hit: from the cache, else made by `make` and kept. */
  hitOf(d: number, make: (d: number) => SearchHit): SearchHit {
    // (none kept: size 0, or before the first validFor)
    if (this.#docs.length === 0) return make(d);
    const slot = d & this.#mask;
    if (this.#docs[slot] === d) {
      this.stats.found++;
      return this.#hits[slot]!;
    }
    const hit = make(d);
    this.#docs[slot] = d;
    this.#hits[slot] = hit;
    this.stats.made++;
    return hit;
  }
}
