import type { ApiKeyRecord } from './model.ts';
import { type CompiledRestrictions, compileRestrictions } from './restrictions/enforce.ts';

export interface CachedKey {
  record: ApiKeyRecord | undefined;
  restrictions: CompiledRestrictions | undefined;
  fetchedAt: number;
}

/**
 * Keys by lookup hash, with their restrictions compiled once, for the key-check hot path.
 * Entries live `ttlMs` (so changes made by another process show within that time); changes
 * made by this process drop the entry at once.
 */
export class KeyCache {
  readonly #entries = new Map<string, CachedKey>();
  readonly #ttlMs: number;

  constructor(ttlMs = 1000) {
    this.#ttlMs = ttlMs;
  }

  get(keyHash: string): CachedKey | undefined {
    const e = this.#entries.get(keyHash);
    if (e && Date.now() - e.fetchedAt < this.#ttlMs) return e;
    return undefined;
  }

  put(keyHash: string, record: ApiKeyRecord | undefined): CachedKey {
    if (this.#entries.size >= 50_000) this.#entries.clear();
    const e: CachedKey = { record, restrictions: record ? compileRestrictions(record.restrictions) : undefined, fetchedAt: Date.now() };
    this.#entries.set(keyHash, e);
    return e;
  }

  /** The cached entry, or the loaded one (cached) when there is none or it is stale. */
  async fetch(keyHash: string, load: (keyHash: string) => Promise<ApiKeyRecord | undefined>): Promise<CachedKey> {
    return this.get(keyHash) ?? this.put(keyHash, await load(keyHash));
  }

  forget(keyHash: string): void {
    this.#entries.delete(keyHash);
  }

  clear(): void {
    this.#entries.clear();
  }
}
