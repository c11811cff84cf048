import type { Kysely } from 'kysely';
import type { Ids } from '../crypto/random.ts';
import type { Database } from '../store/schema.ts';
import { readSetting, writeSetting } from '../store/settings.ts';
import type { Store } from '../store/store.ts';

const SETTING = 'credentials.generation';

/** How stale another process's view of revocations may be, at most (plus the request in flight). */
export const CREDENTIALS_REFRESH_MS = 100;

/**
 * Revocation across processes. Every change that takes a credential back (a service-account key
 * deleted or disabled, an access token revoked, a world that disables a key) writes a new
 * generation id into the shared store in the same transaction as the change. Each process keeps
 * its credential caches (verified JWTs, token grants, public keys) only while the generation it
 * last read is current: before a cached credential is trusted, the generation is read again if
 * it was last read more than `refreshMs` ago, and every cache is dropped when it changed. The
 * process that made the change drops its caches at once, after the commit.
 *
 * A cache fill races a concurrent drop: a fill that started before a drop must not store what it
 * read. `epoch` counts local drops; a cache stores an entry only if the epoch is the one it saw
 * before reading.
 */
export class CredentialGeneration {
  readonly #store: Store;
  readonly #ids: Ids;
  readonly #refreshMs: number;
  readonly #listeners: (() => void)[] = [];
  #generation: string | undefined;
  #checkedAt = 0;
  #epoch = 0;
  #loading: Promise<void> | undefined;

  constructor(store: Store, ids: Ids, refreshMs = CREDENTIALS_REFRESH_MS) {
    this.#store = store;
    this.#ids = ids;
    this.#refreshMs = refreshMs;
  }

  /** Counts local cache drops (see the class comment). */
  get epoch(): number {
    return this.#epoch;
  }

  /** Whether the shared generation must be read again before a cached credential is trusted. */
  get stale(): boolean {
    return Date.now() - this.#checkedAt >= this.#refreshMs;
  }

  /** Registers a cache to drop whenever credentials change. */
  onChange(drop: () => void): void {
    this.#listeners.push(drop);
  }

  /** Reads the shared generation (one query; concurrent callers share it) and drops the caches if it changed. */
  refresh(): Promise<void> {
    this.#loading ??= this.#read().finally(() => {
      this.#loading = undefined;
    });
    return this.#loading;
  }

  /**
   * Runs a change that takes credentials back, together with a new generation, in one
   * transaction; after the commit this process's caches are dropped at once. `changed` tells
   * from the change's result whether anything was taken back (revoking an unknown token must not
   * make every process drop its caches).
   */
  async revoke<T>(change: (trx: Kysely<Database>) => Promise<T>, changed: (result: T) => boolean = () => true): Promise<T> {
    const generation = this.#ids.uuid();
    let wrote = false;
    const out = await this.#store.db.transaction().execute(async (trx) => {
      const result = await change(trx);
      if (changed(result)) {
        await writeSetting(trx, SETTING, generation);
        wrote = true;
      }
      return result;
    });
    if (!wrote) return out;
    this.#generation = generation;
    this.#checkedAt = Date.now();
    this.#dropAll();
    return out;
  }

  /** After state was replaced wholesale (snapshot restore): every process drops its credential caches. */
  async replaced(): Promise<void> {
    await this.revoke(async () => undefined);
  }

  /** For a change already written inside a caller's transaction: writes the new generation there. */
  async bumpIn(trx: Kysely<Database>): Promise<void> {
    await writeSetting(trx, SETTING, this.#ids.uuid());
  }

  /** After the commit of a transaction that called `bumpIn`: drops this process's caches at once. */
  changed(): void {
    this.#checkedAt = 0;
    this.#dropAll();
  }

  async #read(): Promise<void> {
    const generation = await readSetting(this.#store.db, SETTING, '');
    this.#checkedAt = Date.now();
    if (generation !== this.#generation) {
      this.#generation = generation;
      this.#dropAll();
    }
  }

  #dropAll(): void {
    this.#epoch++;
    for (const drop of this.#listeners) drop();
  }
}
