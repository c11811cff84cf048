/**
 * Group commit in the operation engine: concurrent works share one transaction, each inside its
 * own savepoint. One failing never affects another; every answer comes after the commit (a second
 * connection sees the write when the promise settles); instant completions inside a group record
 * their outcome; a finished operation keeps the payload its kind says. On SQLite, commits are
 * checkpointed into the database file by a background thread.
 */
import assert from 'node:assert/strict';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Clock } from '../../src/platform/clock/clock.ts';
import { ApiError } from '../../src/platform/http/errors.ts';
import { OperationEngine } from '../../src/platform/operations/engine.ts';
import { Store } from '../../src/platform/store/store.ts';
import { type TestDatabase, TEST_STORE, freshDatabase } from '../support/store.ts';
import { type StoreReader, openStoreReader, removeDir, tempDir } from './helpers.ts';

const quiet = { error() {}, warn() {}, info() {}, debug() {} };

describe(`operation engine group commit on ${TEST_STORE}`, () => {
  let store: Store;
  let engine: OperationEngine;
  let reader: StoreReader;
  let db: TestDatabase;
  const dataDir = tempDir();

  before(async () => {
    db = await freshDatabase();
    store = await Store.open({ databaseUrl: db.url, dataDir });
    engine = new OperationEngine(store, new Clock(), quiet as any);
    engine.register({
      kind: 'test.write',
      async complete(trx, payload: { key: string; fail?: boolean }) {
        await trx.insertInto('twin_settings').values({ name: payload.key, value: 'written' }).execute();
        if (payload.fail) throw new ApiError({ status: 'FAILED_PRECONDITION', message: `refused ${payload.key}` });
        return { wrote: payload.key };
      },
    });
    engine.register({
      kind: 'test.trim',
      async complete(_trx, payload: { key: string; bulk: string }) {
        return { bulkLength: payload.bulk.length };
      },
      finishedPayload: ({ bulk: _bulk, ...kept }: { key: string; bulk: string }) => kept,
    });
    reader = await openStoreReader({ dataDir, databaseUrl: db.url });
  });
  after(async () => {
    await reader.close();
    await store.close();
    await db.drop();
    removeDir(dataDir);
  });

  const seen = async (name: string) => (await reader.query('SELECT value FROM twin_settings WHERE name = ?', [name])).length === 1;

  test('concurrent works: each succeeds or fails alone, and is visible to another connection when its promise settles', async () => {
    const n = 40;
    const results = await Promise.allSettled(
      Array.from({ length: n }, (_, i) =>
        engine.grouped(async (trx) => {
          await trx.insertInto('twin_settings').values({ name: `g-${i}`, value: String(i) }).execute();
          if (i % 5 === 3) throw new Error(`work ${i} fails`);
          return i;
        }).then(async (v) => {
          // settled only after the commit: a second connection already sees the row
          assert.equal(await seen(`g-${i}`), true, `g-${i} visible when its promise resolved`);
          return v;
        }),
      ),
    );
    for (let i = 0; i < n; i++) {
      const r = results[i];
      if (i % 5 === 3) {
        assert.equal(r.status, 'rejected');
        assert.match(String((r as PromiseRejectedResult).reason), new RegExp(`work ${i} fails`));
        assert.equal(await seen(`g-${i}`), false, `g-${i} rolled back`);
      } else {
        assert.deepEqual(r, { status: 'fulfilled', value: i });
      }
    }
  });

  test('a store error in one work (duplicate key) leaves the others of its group committed', async () => {
    const results = await Promise.allSettled(
      ['dup-a', 'dup-b', 'dup-a', 'dup-c'].map((name) => engine.grouped((trx) => trx.insertInto('twin_settings').values({ name, value: 'x' }).execute())),
    );
    assert.deepEqual(results.map((r) => r.status), ['fulfilled', 'fulfilled', 'rejected', 'fulfilled']);
    for (const name of ['dup-a', 'dup-b', 'dup-c']) assert.equal(await seen(name), true);
  });

  test('instant completion inside a group: the outcome is stored with the operation, a failing handler undoes only its own writes', async () => {
    const ops = await Promise.all(
      ['ok-1', 'bad-1', 'ok-2'].map((key) =>
        engine.grouped((trx) => engine.submitAndComplete(trx, { name: `operations/${key}`, service: 'test', kind: 'test.write', projectNumber: '1', payload: { key, fail: key.startsWith('bad') } })),
      ),
    );
    assert.deepEqual(ops.map((o) => o?.done), [true, true, true]);
    assert.deepEqual(ops[0]!.result, { wrote: 'ok-1' });
    assert.deepEqual(ops[1]!.error, { code: 9, message: 'refused bad-1' });
    assert.equal(await seen('ok-1'), true);
    assert.equal(await seen('ok-2'), true);
    assert.equal(await seen('bad-1'), false);
    const stored = await engine.get('operations/bad-1');
    assert.equal(stored?.done, true);
    assert.deepEqual(stored?.error, { code: 9, message: 'refused bad-1' });
    assert.deepEqual((await engine.get('operations/ok-2'))?.result, { wrote: 'ok-2' });
  });

  test('a finished operation keeps what its kind keeps of the payload; the handler saw all of it (instant and claimed completions)', async () => {
    const bulk = 'b'.repeat(5000);
    const instant = await engine.grouped((trx) => engine.submitAndComplete(trx, { name: 'operations/trim-1', service: 'test', kind: 'test.trim', projectNumber: '1', payload: { key: 'k1', bulk } }));
    assert.deepEqual(instant?.payload, { key: 'k1' });
    await store.db.transaction().execute((trx) => engine.submit(trx, { name: 'operations/trim-2', service: 'test', kind: 'test.trim', projectNumber: '1', payload: { key: 'k2', bulk } }));
    assert.equal(await engine.tryComplete('operations/trim-2'), true);
    for (const [name, key] of [['operations/trim-1', 'k1'], ['operations/trim-2', 'k2']]) {
      const [row] = await reader.query('SELECT payload, result FROM operations WHERE name = ?', [name]);
      assert.deepEqual(JSON.parse(row.payload), { key }, `${name}: stored payload`);
      assert.deepEqual(JSON.parse(row.result), { bulkLength: 5000 }, `${name}: the handler had the whole payload`);
    }
  });

  test('SQLite: commits reach the database file through background checkpoints, long before the WAL holds 1,000 pages', { skip: TEST_STORE !== 'sqlite' && 'a SQLite data directory only' }, async () => {
    const file = join(dataDir, 'cloudtwin.db');
    const before = statSync(file).size;
    // 48 commits of ~3 KB: about 100 WAL pages; SQLite's own checkpoint would wait for 1,000.
    for (let i = 0; i < 48; i++) await engine.grouped((trx) => trx.insertInto('twin_settings').values({ name: `ck-${i}`, value: 'c'.repeat(3000) }).execute());
    const deadline = Date.now() + 10_000;
    while (statSync(file).size < before + 100_000 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    assert.ok(statSync(file).size >= before + 100_000, `database file ${before} -> ${statSync(file).size} bytes`);
  });

  // Group sizing, with times widened so the policy shows without racing a clock: works of one
  // group run in one transaction (the same `trx`).
  const sameTurn = (engine: OperationEngine, n: number) => Promise.all(Array.from({ length: n }, () => engine.grouped(async (trx) => trx)));

  test('SQLite: once writers are known to be concurrent, works queued in separate turns of the event loop commit as one group', { skip: TEST_STORE !== 'sqlite' && 'PostgreSQL groups never wait to fill' }, async () => {
    const sized = new OperationEngine(store, new Clock(), quiet as any, { fillWaitMs: 5_000, sizeWindowMs: 60_000 });
    assert.equal(new Set(await sameTurn(sized, 8)).size, 1, '8 queued in one turn: one group, whose size is learnt');
    const later: Promise<unknown>[] = [];
    for (let i = 0; i < 8; i++) {
      later.push(sized.grouped(async (trx) => trx));
      await new Promise((r) => setImmediate(r));
    }
    // Without the fill, the first of these would have committed alone at the end of its turn.
    assert.equal(new Set(await Promise.all(later)).size, 1, '8 queued in 8 turns: one group');
  });

  test('a group expecting more works than come commits when its fill time is over; then a lone writer never waits', async () => {
    const sized = new OperationEngine(store, new Clock(), quiet as any, { fillWaitMs: 600, sizeWindowMs: 100 });
    await sameTurn(sized, 8);
    const timed = async () => {
      const t0 = performance.now();
      await sized.grouped(async () => 0);
      return performance.now() - t0;
    };
    const first = await timed();
    // SQLite: the group expected 8 and waited its fill time for them; PostgreSQL never waits.
    if (TEST_STORE === 'sqlite') assert.ok(first >= 590, `the lone work waited ${first} ms`);
    else assert.ok(first < 500, `the lone work took ${first} ms`);
    // That group of one came after the size window: the size is now 1, and a lone writer's works commit at once.
    for (let i = 0; i < 5; i++) {
      const ms = await timed();
      assert.ok(ms < 500, `lone write ${i} took ${ms} ms`);
    }
  });
});
