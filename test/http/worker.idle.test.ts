/** The background worker's tick: an idle server queries nothing (SQLite); a delayed operation still completes when due. */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { TEST_STORE } from '../support/store.ts';
import { startTestTwin, type TestTwin } from '../support/twin.ts';
import { ALICE } from '../support/world.ts';
import { keysPath, setOperationsMode } from './helpers.ts';

describe('worker tick', () => {
  let t: TestTwin;
  let queries = 0;
  before(async () => {
    t = await startTestTwin();
    const executor = t.twin.store.db.getExecutor();
    const run = executor.executeQuery.bind(executor);
    executor.executeQuery = ((...args: Parameters<typeof run>) => {
      queries++;
      return run(...args);
    }) as typeof executor.executeQuery;
  });
  after(() => t.close());

  const ticks = async (n: number) => {
    queries = 0;
    for (let i = 0; i < n; i++) await t.twin.worker.tick();
    return queries;
  };

  it('idle, it queries the store only when another process may have written (never on SQLite in one process; every tick on PostgreSQL)', async () => {
    await ticks(1); // learns that nothing is pending
    const n = await ticks(10);
    if (TEST_STORE === 'sqlite') assert.equal(n, 0, `${n} queries in 10 idle ticks`);
    else assert.ok(n >= 10, `PostgreSQL has no change mark: the settings are read every tick (${n} queries in 10)`);
  });

  it('a delayed operation submitted here is not looked for before it is due, and is completed by the first tick after', async () => {
    await setOperationsMode(t, 'delayed', 400);
    const res = await t.call(ALICE, { method: 'POST', url: keysPath(), payload: {} });
    assert.equal(res.statusCode, 200, res.body);
    const { name, done } = res.json();
    assert.equal(done, undefined, res.body);
    const early = await ticks(3);
    if (TEST_STORE === 'sqlite') assert.equal(early, 0, `${early} queries before the operation is due`);
    await new Promise((r) => setTimeout(r, 450));
    await ticks(1);
    const row = await t.twin.store.db.selectFrom('operations').select('done').where('name', '=', name).executeTakeFirst();
    assert.equal(row?.done, 1, `the operation ${name} is completed by the worker`);
    await setOperationsMode(t, 'instant');
  });
});
