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
