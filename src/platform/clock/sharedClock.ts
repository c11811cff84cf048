import { readSetting, writeSetting } from '../store/settings.ts';
import type { Store } from '../store/store.ts';
import type { Clock } from './clock.ts';

const OFFSET = 'clock.offsetMs';

/** Keeps the clock's offset in the store so every process on it shares one "now". */
export class SharedClock {
  readonly #store: Store;
  readonly #clock: Clock;
  /**
   * Bumped by every reload and every move of this process: a reload applies what it read only if
   * nothing started after it, so one that read the store before a newer move or reload (on
   * another connection, before that commit) never undoes it.
   */
  #sequence = 0;

  constructor(store: Store, clock: Clock) {
    this.#store = store;
    this.#clock = clock;
  }

  /** Moves time forward (never back) by `seconds`, for every process on the store. */
  async advance(seconds: number): Promise<void> {
    const offset = await this.#store.db.transaction().execute(async (trx) => {
      const next = (await readSetting(trx, OFFSET, 0)) + Math.round(seconds * 1000);
      await writeSetting(trx, OFFSET, next);
      return next;
    });
    this.#sequence++;
    this.#clock.setOffsetMs(offset);
  }

  /**
   * Sets "now" to `atMs` (epoch milliseconds) for every process on the store. Time only moves
   * forward: an instant before the current "now" is refused (returns false) and nothing changes.
   */
  async set(atMs: number): Promise<boolean> {
    const next = await this.#store.db.transaction().execute(async (trx) => {
      const offset = await readSetting(trx, OFFSET, 0);
      const wanted = Math.round(atMs - (this.#clock.nowMs() - this.#clock.offsetMs));
      if (wanted < offset) return undefined;
      await writeSetting(trx, OFFSET, wanted);
      return wanted;
    });
    if (next === undefined) return false;
    this.#sequence++;
    this.#clock.setOffsetMs(next);
    return true;
  }

  async reload(): Promise<void> {
    const sequence = ++this.#sequence;
    const offset = await readSetting(this.#store.db, OFFSET, 0);
    if (sequence === this.#sequence) this.#clock.setOffsetMs(offset);
  }
}
