/**
 * Fault rules on PostgreSQL: every process applies the same rules, and a schedule ("the next 3
 * calls", "every 2nd call") counts calls across processes, whichever process serves them.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type ServerProcess, startServer } from '../support/server.ts';
import { type TestDatabase, TEST_STORE, freshDatabase } from '../support/store.ts';
import { ALICE, DEMO, testWorld } from '../support/world.ts';
import { newMasterKey, tokenFor } from './helpers.ts';

const skip = TEST_STORE !== 'postgres' ? 'several processes share one store only on PostgreSQL (CLOUDTWIN_TEST_STORE=postgres)' : false;

describe('fault rules across two processes on one PostgreSQL database', () => {
  let db: TestDatabase;
  let a: ServerProcess;
  let b: ServerProcess;
  let token: string;

  before(async () => {
    if (skip) return;
    db = await freshDatabase();
    const env = { CLOUDTWIN_MASTER_KEY: newMasterKey() };
    [a, b] = await Promise.all([startServer({ databaseUrl: db.url, env }), startServer({ databaseUrl: db.url, env })]);
    await a.admin('POST', '/_twin/v1/world:apply', testWorld);
    token = await tokenFor(a.url, a.adminToken, ALICE);
  });
  after(async () => {
    for (const p of [a, b]) {
      if (!p) continue;
      await p.stop();
      p.cleanup();
    }
    await db?.drop();
  });

  const list = async (s: ServerProcess) => (await fetch(`${s.url}/v2/projects/${DEMO.projectId}/locations/global/keys`, { headers: { authorization: `Bearer ${token}` } })).status;

  test('a rule made through A acts on B; "next 3" is 3 calls in all, spread over both', { skip, timeout: 30_000 }, async () => {
    const rule = await a.admin('POST', '/_twin/v1/faults', { match: { method: 'apikeys.projects.locations.keys.list' }, action: { type: 'error', status: 'UNAVAILABLE' }, when: { next: 3 } });
    // B picks the rule up on its next worker tick (every 100 ms it reads the rules' version mark)
    await new Promise((r) => setTimeout(r, 400));
    const codes = [];
    for (let i = 0; i < 6; i++) codes.push(await list(i % 2 ? b : a));
    assert.deepEqual(codes, [503, 503, 503, 200, 200, 200]);
    const seen = await b.admin('GET', `/_twin/v1/faults/${rule.id}`);
    assert.deepEqual([seen.injected, seen.active], [3, false]);
    // the process that did not make the 3rd call counts one more match before it knows the rule is spent
    assert.ok(seen.matched >= 3 && seen.matched <= 4, String(seen.matched));
    // Each process journals the calls it served, the faulted ones marked
    const onA = (await a.admin('GET', '/_twin/v1/requests?method=apikeys.projects.locations.keys.list')).requests;
    const onB = (await b.admin('GET', '/_twin/v1/requests?method=apikeys.projects.locations.keys.list')).requests;
    assert.equal(onA.length + onB.length, 6);
    assert.equal([...onA, ...onB].filter((e: any) => e.fault?.rule === rule.id).length, 3);
  });

  test('every 2nd call across both processes; a rule deleted through B stops on A', { skip, timeout: 30_000 }, async () => {
    const rule = await b.admin('POST', '/_twin/v1/faults', { match: { method: 'apikeys.projects.locations.keys.list', principal: ALICE }, action: { type: 'error', status: 'INTERNAL' }, when: { every: 2 } });
    assert.ok((await a.admin('GET', '/_twin/v1/faults')).faults.some((f: any) => f.id === rule.id));
    await new Promise((r) => setTimeout(r, 400));
    const codes = [];
    for (let i = 0; i < 6; i++) codes.push(await list(i % 2 ? a : b));
    assert.deepEqual(codes, [200, 500, 200, 500, 200, 500]);
    await b.admin('DELETE', `/_twin/v1/faults/${rule.id}`);
    await new Promise((r) => setTimeout(r, 400));
    for (let i = 0; i < 4; i++) assert.equal(await list(a), 200);
  });
});
