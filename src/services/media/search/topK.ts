import type { SearchIndex } from './index.ts';

/** The best `k` documents seen: a heap whose root is the worst kept. */
export class TopK {
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
    this.#siftDown(0);
  }

  /** Moves the document at i down to its place (every document below ranks above it). */
  #siftDown(i: number): void {
    const docs = this.#docs;
    const keys = this.#keys;
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

  /**
   * The documents ranked [from, to) (0 is the best), best first, taken from the heap (which is
   * left with the better ones only): the worst is popped until the rank `to` - 1 is at the root,
   * so a page deep in the results (offset 450 of 500) costs 51 pops, not a sort of 500.
   */
  ranks(from: number, to: number): number[] {
    const end = Math.min(to, this.#docs.length);
    const page = new Array<number>(Math.max(0, end - from));
    while (this.#docs.length > end) this.#popWorst();
    for (let r = end - 1; r >= from; r--) page[r - from] = this.#popWorst();
    return page;
  }

  /** Removes and returns the worst document kept (the root). */
  #popWorst(): number {
    const docs = this.#docs;
    const keys = this.#keys;
    const worst = docs[0];
    const lastDoc = docs.pop()!;
    const lastKey = keys.pop()!;
    if (docs.length) {
      docs[0] = lastDoc;
      keys[0] = lastKey;
      this.#siftDown(0);
    }
    return worst;
  }
}
