import type { ApiKeyRecord } from './model.ts';
import { type CompiledRestrictions, compileRestrictions } from './restrictions/enforce.ts';

export interface CachedKey {
  record: ApiKeyRecord | undefined;
  restrictions: CompiledRestrictions | undefined;
  fetchedAt: number;
}

export interface KeyCacheOptions {
  /** How long an entry is trusted (changes made by another process show within this time). */
  ttlMs?: number;
  /** Most keys that exist kept at once; the least recently used goes first. */
  maxKeys?: number;
  /** Most key strings that matched no key kept at once, in their own list. */
  maxMisses?: number;
  now?: () => number;
}

/**
 * A bounded least-recently-used map: a Map keeps insertion order, and a hit moves the entry to
 * the end, so the first entry is always the least recently used.
 */
class Lru<V> {
  readonly #map = new Map<string, V>();
  readonly #max: number;

  constructor(max: number) {
    this.#max = max;
  }

  get size(): number {
    return this.#map.size;
  }

  get(k: string): V | undefined {
    const v = this.#map.get(k);
    // Recency only decides evictions, and there are none below capacity: under half full a hit
    // skips the move (the hot path of a cache of a few keys is one Map lookup).
    if (v !== undefined && this.#map.size * 2 >= this.#max) {
      this.#map.delete(k);
      this.#map.set(k, v);
    }
    return v;
  }

  set(k: string, v: V): void {
    this.#map.delete(k);
    if (this.#map.size >= this.#max) this.#map.delete(this.#map.keys().next().value!);
    this.#map.set(k, v);
  }

  delete(k: string): void {
    this.#map.delete(k);
  }

  clear(): void {
    this.#map.clear();
  }
}

/**
 * Keys by lookup hash, with their restrictions compiled once, for the key-check hot path.
 * Entries live `ttlMs` (so changes made by another process show within that time); changes
 * made by this process drop the entry at once.
 *
 * Keys that exist and key strings that match nothing are kept in two separate LRU lists: a
 * flood of bogus key strings only churns the list of misses and cannot evict the keys in use.
 */
export class KeyCache {
  readonly #keys: Lru<CachedKey>;
  readonly #misses: Lru<CachedKey>;
  readonly #ttlMs: number;
  readonly #now: () => number;

  constructor(opts: KeyCacheOptions = {}) {
    this.#ttlMs = opts.ttlMs ?? 1000;
    this.#keys = new Lru(opts.maxKeys ?? 50_000);
    this.#misses = new Lru(opts.maxMisses ?? 10_000);
    this.#now = opts.now ?? Date.now;
  }

  /** How many entries each list holds. */
  get sizes(): { keys: number; misses: number } {
    return { keys: this.#keys.size, misses: this.#misses.size };
  }

  get(keyHash: string): CachedKey | undefined {
    const e = this.#keys.get(keyHash) ?? this.#misses.get(keyHash);
    if (e && this.#now() - e.fetchedAt < this.#ttlMs) return e;
    return undefined;
  }

  put(keyHash: string, record: ApiKeyRecord | undefined): CachedKey {
    const e: CachedKey = { record, restrictions: record ? compileRestrictions(record.restrictions) : undefined, fetchedAt: this.#now() };
    if (record) {
      this.#misses.delete(keyHash);
      this.#keys.set(keyHash, e);
    } else {
      this.#keys.delete(keyHash);
      this.#misses.set(keyHash, e);
    }
    return e;
  }

  /** The cached entry, or the loaded one (cached) when there is none or it is stale. */
  async fetch(keyHash: string, load: (keyHash: string) => Promise<ApiKeyRecord | undefined>): Promise<CachedKey> {
    return this.get(keyHash) ?? this.put(keyHash, await load(keyHash));
  }

  forget(keyHash: string): void {
    this.#keys.delete(keyHash);
    this.#misses.delete(keyHash);
  }

  clear(): void {
    this.#keys.clear();
    this.#misses.clear();
  }
}
