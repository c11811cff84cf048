import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import type { Clock } from '../clock/clock.ts';
import type { Database } from '../store/schema.ts';
import type { Store } from '../store/store.ts';
import { nextPacificMidnight, pacificDay } from './pacificDay.ts';

export const DEFAULT_DAILY_LIMIT = 10_000;
/** Usage rows of days older than this are dropped by `purgeOld`. */
const KEEP_DAYS = 8;

export interface QuotaUsage {
  /** `projects/<number>` (or another consumer id, e.g. `user:<email>` for a token without a project). */
  consumer: string;
  service: string;
  /** The Pacific day the usage counts for (`YYYY-MM-DD`). */
  day: string;
  used: number;
  dailyLimit: number;
  /** Whether the limit was set explicitly (world document or admin API) rather than the default. */
  configured: boolean;
  /** When the counter starts again from 0 (next midnight Pacific), epoch ms. */
  resetAt: number;
}

/** How long units leased to this process stay reserved for it when it does not spend them. */
const LEASE_IDLE_MS = 1000;
/** A lease is at most this many calls' worth of units, and at most 1/64 of what the day has left. */
const MAX_LEASE_CALLS = 50;
const LEASE_FRACTION = 64;

interface Lease {
  consumer: string;
  service: string;
  day: string;
  /** Units reserved in the store for this process and not spent yet. */
  available: number;
  /** Units to ask for at the next reservation (shrinks as the day's quota runs out). */
  nextBlock: number;
  /** Wall-clock ms after which unspent units go back to the store. */
  idleUntil: number;
}

/**
 * Per-consumer, per-service daily quota counters, kept in the store so every process on it
 * shares them. The day is the Pacific day of the platform clock.
 *
 * Never overspent: units leave the store's counter only through one atomic conditional upsert
 * (`used + n <= dailyLimit`), in one process or many on PostgreSQL. Cheap: a process reserves
 * units in leases (a few calls' worth, at most 1/64 of what is left, so leases shrink to single
 * calls near the limit) and spends them in memory; units it does not spend within a second go
 * back. Reads of usage through this process first give its own unspent units back, so they are
 * exact; another process's unspent lease (at most 1/64 of what was left) counts as used until
 * it is spent or returned.
 */
export class Quota {
  readonly #store: Store;
  readonly #clock: Clock;
  readonly #defaultLimit: number;
  readonly #leases = new Map<string, Lease>();
  readonly #reserving = new Map<string, Promise<boolean>>();
  #timer: NodeJS.Timeout | undefined;

  constructor(store: Store, clock: Clock, opts: { defaultDailyLimit?: number } = {}) {
    this.#store = store;
    this.#clock = clock;
    this.#defaultLimit = opts.defaultDailyLimit ?? DEFAULT_DAILY_LIMIT;
  }

  get defaultDailyLimit(): number {
    return this.#defaultLimit;
  }

  /** Spends `cost` units of today's quota; false (and nothing spent) when that would pass the limit. */
  async charge(consumer: string, service: string, cost: number): Promise<boolean> {
    if (!Number.isSafeInteger(cost) || cost < 0) throw new RangeError(`invalid quota cost ${cost}`);
    const day = pacificDay(this.#clock.nowMs());
    const k = `${consumer}\u0000${service}\u0000${day}`;
    for (;;) {
      const lease = this.#leases.get(k);
      if (lease && lease.available >= cost) {
        lease.available -= cost;
        lease.idleUntil = Date.now() + LEASE_IDLE_MS;
        return true;
      }
      // One reservation at a time per counter in this process; the others wait for it and look again.
      const pending = this.#reserving.get(k);
      if (pending) {
        await pending;
        continue;
      }
      const p = this.#reserve(k, consumer, service, day, cost).finally(() => this.#reserving.delete(k));
      this.#reserving.set(k, p);
      if (!(await p)) return false;
    }
  }

  /** Moves units from the store's counter into this process's lease: the block when it fits, else just what `cost` lacks. */
  async #reserve(k: string, consumer: string, service: string, day: string, cost: number): Promise<boolean> {
    let lease = this.#leases.get(k);
    if (!lease) {
      lease = { consumer, service, day, available: 0, nextBlock: cost, idleUntil: 0 };
      this.#leases.set(k, lease);
    }
    const need = cost - lease.available;
    const tries = lease.nextBlock > need ? [lease.nextBlock, need] : [need];
    for (const units of tries) {
      const added = await this.#add(consumer, service, day, units);
      if (added === undefined) continue;
      lease.available += units;
      lease.idleUntil = Date.now() + LEASE_IDLE_MS;
      const left = added.limit - added.used;
      lease.nextBlock = Math.max(cost, Math.min(Math.floor(left / LEASE_FRACTION), MAX_LEASE_CALLS * cost));
      this.#startTimer();
      return true;
    }
    lease.nextBlock = cost;
    return false;
  }

  /** The one way units leave the counter: atomic, conditional on the limit. Returns the new `used` and that limit, or undefined. */
  async #add(consumer: string, service: string, day: string, units: number): Promise<{ used: number; limit: number } | undefined> {
    const limit = sql<number>`COALESCE((SELECT daily_limit FROM quota_limits WHERE consumer = ${consumer} AND service = ${service}), ${this.#defaultLimit})`;
    // On PostgreSQL the reservation commits asynchronously (no WAL flush wait): a database crash
    // can forget the last moments of reservations, never make one visible before it is atomic.
    const pg = this.#store.dialect === 'postgres';
    const from = pg ? sql`FROM (SELECT set_config('synchronous_commit', 'off', true)) AS async_commit` : sql``;
    const result = await sql<{ used: number | string; daily_limit: number | string }>`
      INSERT INTO quota_usage (consumer, service, day, used)
      SELECT ${consumer}, ${service}, ${day}, ${units} ${from} WHERE ${units} <= ${limit}
      ON CONFLICT (consumer, service, day) DO UPDATE SET used = quota_usage.used + excluded.used
      WHERE quota_usage.used + excluded.used <= ${limit}
      RETURNING used, ${limit} AS daily_limit`.execute(this.#store.db);
    const row = result.rows[0];
    return row ? { used: Number(row.used), limit: Number(row.daily_limit) } : undefined;
  }

  #startTimer(): void {
    this.#timer ??= setInterval(() => void this.#releaseIdle().catch(() => {}), LEASE_IDLE_MS / 2).unref();
  }

  async #releaseIdle(): Promise<void> {
    const now = Date.now();
    for (const [k, lease] of this.#leases) if (lease.idleUntil <= now && !this.#reserving.has(k)) await this.#release(k);
    if (this.#leases.size === 0 && this.#timer) {
      clearInterval(this.#timer);
      this.#timer = undefined;
    }
  }

  /** Gives a lease's unspent units back to the store. */
  async #release(k: string): Promise<void> {
    const lease = this.#leases.get(k);
    if (!lease) return;
    this.#leases.delete(k);
    const n = lease.available;
    lease.available = 0;
    if (n > 0) {
      await this.#store.db
        .updateTable('quota_usage')
        .set({ used: sql`used - ${n}` })
        .where('consumer', '=', lease.consumer)
        .where('service', '=', lease.service)
        .where('day', '=', lease.day)
        .execute();
    }
  }

  /** Gives every unspent unit of this process back (before exact reads, limit changes and shutdown). */
  async releaseLeases(): Promise<void> {
    await Promise.all([...this.#reserving.values()]);
    for (const k of [...this.#leases.keys()]) await this.#release(k);
  }

  /** Drops leases without giving anything back: the store's state was replaced (snapshot restore, reset). */
  forgetLeases(): void {
    this.#leases.clear();
  }

  async close(): Promise<void> {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = undefined;
    await this.releaseLeases();
  }

  async setDailyLimit(consumer: string, service: string, dailyLimit: number): Promise<void> {
    await this.releaseLeases();
    await setDailyLimit(this.#store.db, consumer, service, dailyLimit);
  }

  /** Today's usage of one consumer and service. */
  async usage(consumer: string, service: string): Promise<QuotaUsage> {
    await this.releaseLeases();
    const now = this.#clock.nowMs();
    const day = pacificDay(now);
    const [limit, usage] = await Promise.all([
      this.#store.db.selectFrom('quota_limits').select('daily_limit').where('consumer', '=', consumer).where('service', '=', service).executeTakeFirst(),
      this.#store.db.selectFrom('quota_usage').select('used').where('consumer', '=', consumer).where('service', '=', service).where('day', '=', day).executeTakeFirst(),
    ]);
    return { consumer, service, day, used: Number(usage?.used ?? 0), dailyLimit: Number(limit?.daily_limit ?? this.#defaultLimit), configured: limit !== undefined, resetAt: nextPacificMidnight(now) };
  }

  /** Today's usage of every consumer and service that has a configured limit or was charged today. */
  async all(): Promise<QuotaUsage[]> {
    await this.releaseLeases();
    const now = this.#clock.nowMs();
    const day = pacificDay(now);
    const [limits, usages] = await Promise.all([
      this.#store.db.selectFrom('quota_limits').selectAll().execute(),
      this.#store.db.selectFrom('quota_usage').selectAll().where('day', '=', day).execute(),
    ]);
    const out = new Map<string, QuotaUsage>();
    const resetAt = nextPacificMidnight(now);
    for (const l of limits) out.set(`${l.consumer}|${l.service}`, { consumer: l.consumer, service: l.service, day, used: 0, dailyLimit: Number(l.daily_limit), configured: true, resetAt });
    for (const u of usages) {
      const k = `${u.consumer}|${u.service}`;
      const entry = out.get(k) ?? { consumer: u.consumer, service: u.service, day, used: 0, dailyLimit: this.#defaultLimit, configured: false, resetAt };
      entry.used = Number(u.used);
      out.set(k, entry);
    }
    return [...out.values()].sort((a, b) => (a.consumer + a.service < b.consumer + b.service ? -1 : 1));
  }

  /** Forgets usage of days long past (the background worker calls this). */
  async purgeOld(): Promise<void> {
    await this.#store.db.deleteFrom('quota_usage').where('day', '<', oldestKeptDay(this.#clock.nowMs())).execute();
  }
}

/**
 * The oldest quota day `purgeOld` keeps at `nowMs`: the UTC date of KEEP_DAYS days and 8 hours
 * earlier. Pacific time is UTC-8 or UTC-7, so that date is the Pacific date KEEP_DAYS days
 * earlier or the day before it: no day the Pacific calendar would keep is dropped (one more may
 * stay until the next purge), and the purge needs no time-zone data (ICU's, about 8 MiB
 * resident once loaded, which a server that takes no quota-charged call never needs).
 */
export function oldestKeptDay(nowMs: number): string {
  return new Date(nowMs - KEEP_DAYS * 24 * 3600 * 1000 - 8 * 3600 * 1000).toISOString().slice(0, 10);
}

/** Largest daily limit accepted (units). */
export const MAX_DAILY_LIMIT = 1_000_000_000_000;

/** Sets a consumer's daily limit for a service (also inside a transaction, e.g. a world document's). */
export async function setDailyLimit(db: Kysely<Database>, consumer: string, service: string, dailyLimit: number): Promise<void> {
  await db
    .insertInto('quota_limits')
    .values({ consumer, service, daily_limit: dailyLimit })
    .onConflict((c) => c.columns(['consumer', 'service']).doUpdateSet({ daily_limit: dailyLimit }))
    .execute();
}
