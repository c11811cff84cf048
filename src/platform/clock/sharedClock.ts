import { readSetting, writeSetting } from '../store/settings.ts';
import type { Store } from '../store/store.ts';
import type { Clock } from './clock.ts';

const OFFSET = 'clock.offsetMs';

/** Keeps the clock's offset in the store so every process on it shares one "now". */
export class SharedClock {
  readonly #store: Store;
  readonly #clock: Clock;

  constructor(store: Store, clock: Clock) {
    this.#store = store;
    this.#clock = clock;
  }

  /** Moves time forward (never back) by `seconds`, for every process on the store. */
  async advance(seconds: number): Promise<void> {
    await this.#store.db.transaction().execute(async (trx) => {
      const offset = (await readSetting(trx, OFFSET, 0)) + Math.round(seconds * 1000);
      await writeSetting(trx, OFFSET, offset);
      this.#clock.setOffsetMs(offset);
    });
  }

  async reload(): Promise<void> {
    this.#clock.setOffsetMs(await readSetting(this.#store.db, OFFSET, 0));
  }
}
