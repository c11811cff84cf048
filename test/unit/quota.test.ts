import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Clock } from '../../src/platform/clock/clock.ts';
import { nextPacificMidnight, pacificDay } from '../../src/platform/quota/pacificDay.ts';
import { DEFAULT_DAILY_LIMIT, Quota, oldestKeptDay } from '../../src/platform/quota/quota.ts';
import { Store } from '../../src/platform/store/store.ts';
import { type TestDatabase, freshDatabase } from '../support/store.ts';

const H = 3600_000;

describe('Pacific quota days', () => {
  test('winter (PST, UTC-8) and summer (PDT, UTC-7)', () => {
    assert.equal(pacificDay(Date.UTC(2024, 0, 15, 7, 59)), '2024-01-14');
    assert.equal(pacificDay(Date.UTC(2024, 0, 15, 8, 0)), '2024-01-15');
    assert.equal(pacificDay(Date.UTC(2024, 6, 15, 6, 59)), '2024-07-14');
    assert.equal(pacificDay(Date.UTC(2024, 6, 15, 7, 0)), '2024-07-15');
    assert.equal(nextPacificMidnight(Date.UTC(2024, 0, 15, 12)), Date.UTC(2024, 0, 16, 8));
    assert.equal(nextPacificMidnight(Date.UTC(2024, 6, 15, 12)), Date.UTC(2024, 6, 16, 7));
  });
  test('the days daylight saving time starts (23 h) and ends (25 h)', () => {
    // 2024-03-10 starts at 08:00Z (PST) and ends at 07:00Z on the 11th (PDT).
    assert.equal(nextPacificMidnight(Date.UTC(2024, 2, 10, 8)), Date.UTC(2024, 2, 11, 7));
    assert.equal(nextPacificMidnight(Date.UTC(2024, 2, 10, 8)) - Date.UTC(2024, 2, 10, 8), 23 * H);
    // 2024-11-03 starts at 07:00Z (PDT) and ends at 08:00Z on the 4th (PST).
    assert.equal(nextPacificMidnight(Date.UTC(2024, 10, 3, 7)), Date.UTC(2024, 10, 4, 8));
    assert.equal(nextPacificMidnight(Date.UTC(2024, 10, 3, 7)) - Date.UTC(2024, 10, 3, 7), 25 * H);
    assert.equal(pacificDay(Date.UTC(2024, 10, 4, 7, 59)), '2024-11-03');
  });
  test('the next midnight is always after now and starts another day', () => {
    for (let t = Date.UTC(2023, 0, 1); t < Date.UTC(2025, 0, 1); t += 7 * H + 13 * 60_000) {
      const m = nextPacificMidnight(t);
      assert.ok(m > t && m - t <= 25 * H, new Date(t).toISOString());
      assert.notEqual(pacificDay(m), pacificDay(t));
      assert.equal(pacificDay(m - 1), pacificDay(t));
    }
  });
  test("the purge's oldest kept day is the Pacific date eight days earlier or the day before, worked out without time-zone data", () => {
    const dayBefore = (day: string) => new Date(Date.parse(day) - 24 * H).toISOString().slice(0, 10);
    const intl = Intl.DateTimeFormat;
    (Intl as { DateTimeFormat: unknown }).DateTimeFormat = () => {
      throw new Error('oldestKeptDay used Intl');
    };
    const kept: [number, string][] = [];
    try {
      for (let t = Date.UTC(2023, 0, 1); t < Date.UTC(2025, 0, 1); t += 5 * H + 17 * 60_000) kept.push([t, oldestKeptDay(t)]);
    } finally {
      Intl.DateTimeFormat = intl;
    }
    let sameDay = 0;
    for (const [t, day] of kept) {
      const pacific = pacificDay(t - 8 * 24 * H);
      assert.ok(day === pacific || day === dayBefore(pacific), `${new Date(t).toISOString()}: ${day} against ${pacific}`);
      if (day === pacific) sameDay++;
    }
    // The UTC-8 date is the Pacific one all winter, and a day early only in summer from midnight to 1 a.m. Pacific.
    assert.ok(sameDay > kept.length * 0.9, `${sameDay} of ${kept.length}`);
  });
});

describe('Quota counters', () => {
  let db: TestDatabase;
  let store: Store;
  let clock: Clock;
  let quota: Quota;
  const S = 'youtube.googleapis.com';

  before(async () => {
    db = await freshDatabase();
    store = await Store.open({ databaseUrl: db.url });
    clock = new Clock();
    // 2024-06-01 12:00 Pacific (19:00Z): far from midnight.
    clock.setOffsetMs(Date.UTC(2024, 5, 1, 19) - Date.now());
    quota = new Quota(store, clock);
  });
  after(async () => {
    await quota.close();
    await store.close();
    await db.drop();
  });

  test('default limit 10,000; charges add up to the limit exactly and not one unit more', async () => {
    const c = 'projects/1001';
    assert.equal(quota.defaultDailyLimit, DEFAULT_DAILY_LIMIT);
    for (let i = 0; i < 100; i++) assert.equal(await quota.charge(c, S, 100), true, `charge ${i}`);
    assert.equal(await quota.charge(c, S, 1), false);
    assert.equal(await quota.charge(c, S, 0), true);
    const u = await quota.usage(c, S);
    assert.deepEqual([u.used, u.dailyLimit, u.configured, u.day], [10_000, 10_000, false, '2024-06-01']);
    assert.equal(u.resetAt, Date.UTC(2024, 5, 2, 7));
  });
  test('a configured limit; a cost above it is refused even on a fresh day; services and consumers are separate', async () => {
    const c = 'projects/1002';
    await quota.setDailyLimit(c, S, 250);
    assert.equal(await quota.charge(c, S, 300), false);
    assert.equal((await quota.usage(c, S)).used, 0);
    assert.equal(await quota.charge(c, S, 100), true);
    assert.equal(await quota.charge(c, S, 100), true);
    assert.equal(await quota.charge(c, S, 100), false);
    assert.equal(await quota.charge(c, S, 50), true);
    assert.equal(await quota.charge(c, 'other.googleapis.com', 5000), true);
    assert.equal(await quota.charge('projects/1003', S, 5000), true);
    await quota.setDailyLimit(c, S, 0);
    assert.equal(await quota.charge(c, S, 1), false);
    const u = await quota.usage(c, S);
    assert.deepEqual([u.used, u.dailyLimit, u.configured], [250, 0, true]);
    const all = await quota.all();
    assert.ok(all.some((x) => x.consumer === c && x.service === S && x.used === 250));
    assert.ok(all.some((x) => x.consumer === 'projects/1003' && x.used === 5000 && x.dailyLimit === 10_000));
  });
  test('counters start again at midnight Pacific, not UTC', async () => {
    const c = 'projects/1004';
    await quota.setDailyLimit(c, S, 100);
    assert.equal(await quota.charge(c, S, 100), true);
    assert.equal(await quota.charge(c, S, 1), false);
    // 23:59:59 Pacific = 06:59:59Z next UTC day: still the same quota day.
    clock.setOffsetMs(Date.UTC(2024, 5, 2, 6, 59, 59) - Date.now());
    assert.equal(await quota.charge(c, S, 1), false);
    clock.setOffsetMs(Date.UTC(2024, 5, 2, 7, 0, 1) - Date.now());
    assert.equal(await quota.charge(c, S, 100), true);
    assert.equal((await quota.usage(c, S)).day, '2024-06-02');
    // Old days are purged after a week.
    clock.setOffsetMs(Date.UTC(2024, 5, 20, 19) - Date.now());
    await quota.purgeOld();
    const rows = await store.db.selectFrom('quota_usage').selectAll().where('consumer', '=', c).execute();
    assert.deepEqual(rows, []);
  });
  test('concurrent charges never overspend', async () => {
    const c = 'projects/1005';
    await quota.setDailyLimit(c, S, 1000);
    const results = await Promise.all(Array.from({ length: 40 }, () => quota.charge(c, S, 100)));
    assert.equal(results.filter(Boolean).length, 10);
    assert.equal((await quota.usage(c, S)).used, 1000);
    const ones = await Promise.all(Array.from({ length: 20 }, () => quota.charge('projects/1006', S, 1)));
    assert.equal(ones.filter(Boolean).length, 20);
    assert.equal((await quota.usage('projects/1006', S)).used, 20);
  });
  test('leases: spends come from memory, unspent units go back on reads and when idle', async () => {
    const c = 'projects/1007';
    await quota.setDailyLimit(c, S, 1_000_000);
    for (let i = 0; i < 20; i++) assert.equal(await quota.charge(c, S, 100), true);
    const stored = async () => Number((await store.db.selectFrom('quota_usage').select('used').where('consumer', '=', c).executeTakeFirst())?.used ?? 0);
    // The store holds the lease (more than spent) until it is given back ...
    assert.ok((await stored()) > 2000, String(await stored()));
    assert.ok((await stored()) <= 2000 + 50 * 100);
    // ... by an exact read,
    assert.equal((await quota.usage(c, S)).used, 2000);
    assert.equal(await stored(), 2000);
    // ... or after a second of not being spent.
    for (let i = 0; i < 5; i++) assert.equal(await quota.charge(c, S, 100), true);
    assert.ok((await stored()) > 2500);
    await new Promise((r) => setTimeout(r, 1700));
    assert.equal(await stored(), 2500);
  });
  test('leases shrink near the limit: every unit can be spent, none more', async () => {
    const c = 'projects/1008';
    await quota.setDailyLimit(c, S, 1000);
    let ok = 0;
    for (let i = 0; i < 1100; i++) if (await quota.charge(c, S, 1)) ok++;
    assert.equal(ok, 1000);
    const c2 = 'projects/1009';
    await quota.setDailyLimit(c2, S, 10_000);
    const results = await Promise.all(Array.from({ length: 300 }, (_, i) => quota.charge(c2, S, i % 2 ? 100 : 7)));
    const spent = results.reduce((sum, r, i) => sum + (r ? (i % 2 ? 100 : 7) : 0), 0);
    assert.ok(spent <= 10_000 && spent > 10_000 - 100, String(spent));
    assert.equal((await quota.usage(c2, S)).used, spent);
  });
  test('two processes (two counters on one store) never overspend together', async () => {
    const other = new Quota(store, clock);
    const c = 'projects/1010';
    await quota.setDailyLimit(c, S, 1000);
    const results = await Promise.all(Array.from({ length: 300 }, (_, i) => (i % 2 ? quota : other).charge(c, S, 10)));
    const served = results.filter(Boolean).length;
    await other.close();
    assert.ok(served <= 100 && served >= 98, String(served));
    assert.equal((await quota.usage(c, S)).used, served * 10);
  });
  test('forgetLeases drops leases without touching the store (state replaced)', async () => {
    const c = 'projects/1011';
    await quota.setDailyLimit(c, S, 1_000_000);
    await quota.charge(c, S, 100);
    const before = Number((await store.db.selectFrom('quota_usage').select('used').where('consumer', '=', c).executeTakeFirstOrThrow()).used);
    quota.forgetLeases();
    assert.equal((await quota.usage(c, S)).used, before);
  });
  test('invalid costs are refused', async () => {
    await assert.rejects(quota.charge('projects/1', S, -1), RangeError);
    await assert.rejects(quota.charge('projects/1', S, 1.5), RangeError);
  });
});
