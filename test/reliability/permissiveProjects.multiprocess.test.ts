/**
 * Permissive mode on PostgreSQL: two processes racing to bring the same undeclared project into
 * being make one project, with one number, that both serve.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type ServerProcess, startServer } from '../support/server.ts';
import { type TestDatabase, TEST_STORE, freshDatabase } from '../support/store.ts';
import { newMasterKey } from './helpers.ts';

const skip = TEST_STORE !== 'postgres' ? 'several processes share one store only on PostgreSQL (CLOUDTWIN_TEST_STORE=postgres)' : false;

describe('permissive mode, two processes on one PostgreSQL database', () => {
  let db: TestDatabase;
  let servers: ServerProcess[] = [];

  before(async () => {
    if (skip) return;
    db = await freshDatabase();
    const env = { CLOUDTWIN_MASTER_KEY: newMasterKey() };
    servers = await Promise.all([0, 1].map(() => startServer({ databaseUrl: db.url, env, args: ['--auth', 'permissive'] })));
  });
  after(async () => {
    for (const s of servers) {
      await s.stop();
      s.cleanup();
    }
    await db?.drop();
  });

  test('both create keys in the same new project at once: one project, one number, every key in it', { skip, timeout: 60_000 }, async () => {
    const create = (s: ServerProcess, i: number) =>
      fetch(`${s.url}/v2/projects/raced-project/locations/global/keys?keyId=k${i}`, { method: 'POST', headers: { authorization: 'Bearer anything', 'content-type': 'application/json' }, body: '{}' });
    const answers = await Promise.all(Array.from({ length: 12 }, (_, i) => create(servers[i % 2], i)));
    const bodies = await Promise.all(answers.map((r) => r.json() as Promise<any>));
    for (const [i, r] of answers.entries()) assert.equal(r.status, 200, JSON.stringify(bodies[i]));
    const numbers = new Set(bodies.map((b) => b.response.name.split('/')[1]));
    assert.equal(numbers.size, 1, [...numbers].join(' '));
    const snap = await servers[1].admin('GET', '/_twin/v1/snapshot');
    assert.deepEqual(
      snap.tables.projects.filter((p: any) => p.project_id === 'raced-project').map((p: any) => p.project_number),
      [...numbers],
    );
    for (const s of servers) {
      const list = (await (await fetch(`${s.url}/v2/projects/raced-project/locations/global/keys`, { headers: { authorization: 'Bearer x' } })).json()) as { keys: unknown[] };
      assert.equal(list.keys.length, 12);
    }
  });
});
