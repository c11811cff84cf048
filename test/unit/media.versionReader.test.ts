import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { Store } from '../../src/platform/store/store.ts';
import { nextSeq, readVersion } from '../../src/services/media/catalog/repository.ts';
import { APPLICATION_NAME, versionReader } from '../../src/services/media/catalog/versionReader.ts';
import { TEST_STORE, type TestDatabase, freshDatabase } from '../support/store.ts';

/** A write by another connection (another process): the next change sequence number, committed. */
const write = (store: Store) => store.db.transaction().execute((trx) => nextSeq(trx));

describe(`media catalogue version reader (${TEST_STORE})`, () => {
  let database: TestDatabase;
  let store: Store;
  let other: Store;
  before(async () => {
    database = await freshDatabase();
    store = await Store.open({ databaseUrl: database.url });
    other = database.url ? await Store.open({ databaseUrl: database.url }) : store;
  });
  after(async () => {
    if (other !== store) await other.close();
    await store.close();
    await database.drop();
  });

  test('every read sees what was committed before it, by any connection; reads at once all answer', async () => {
    const reader = versionReader(store);
    try {
      assert.deepEqual(await reader.read(), await readVersion(store.db));
      for (let i = 0; i < 5; i++) {
        const seq = await write(other);
        const v = await reader.read();
        assert.equal(v.seq, seq);
        assert.ok(v.epoch > 0);
      }
      const seq = await write(other);
      const many = await Promise.all(Array.from({ length: 16 }, () => reader.read()));
      for (const v of many) assert.equal(v.seq, seq);
    } finally {
      await reader.close();
    }
  });

  const connections = async () => Number((await sql<{ n: string }>`SELECT count(*) AS n FROM pg_stat_activity WHERE application_name = ${APPLICATION_NAME} AND datname = current_database()`.execute(other.db)).rows[0].n);
  /** The count once it is `n` (a backend leaves pg_stat_activity a moment after its connection ends), else the last seen after 2 s. */
  const connectionsReach = async (n: number) => {
    let seen = await connections();
    for (let i = 0; i < 40 && seen !== n; i++) {
      await new Promise((r) => setTimeout(r, 50));
      seen = await connections();
    }
    return seen;
  };

  test('PostgreSQL: a reader never closed holds no process open once its reads are done; closing one is awaited to its end', { skip: TEST_STORE !== 'postgres' && 'PostgreSQL only' }, () => {
    const source = (path: string) => JSON.stringify(new URL(path, import.meta.url).href);
    const run = (end: string) => {
      const script = `
        const { Store } = await import(${source('../../src/platform/store/store.ts')});
        const { versionReader } = await import(${source('../../src/services/media/catalog/versionReader.ts')});
        const store = await Store.open({ databaseUrl: process.env.URL });
        const reader = versionReader(store);
        await Promise.all([reader.read(), reader.read()]);
        console.log(JSON.stringify(await reader.read()));
        await store.close();
        ${end}
      `;
      const started = performance.now();
      const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { env: { ...process.env, URL: database.url }, encoding: 'utf8', timeout: 20_000 });
      assert.equal(r.status, 0, r.stderr);
      assert.ok(performance.now() - started < 10_000, 'the process ended by itself');
      return r.stdout.trim().split('\n');
    };
    assert.ok(JSON.parse(run('')[0]).epoch > 0);
    // nothing else keeps the process alive while a reader's connection ends (the store's pool is closed): the await must still come back
    assert.equal(run("const other = versionReader(store); await other.read(); await other.close(); console.log('closed');")[1], 'closed');
  });

  test('PostgreSQL: its own connection, ended by close; a lost connection costs no read (the pool answers) and is opened again', { skip: TEST_STORE !== 'postgres' && 'PostgreSQL only' }, async () => {
    const before = await connections();
    const reader = versionReader(store);
    try {
      await reader.read();
      assert.equal(await connections(), before + 1);
      await sql`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = ${APPLICATION_NAME} AND datname = current_database()`.execute(other.db);
      const seq = await write(other);
      assert.equal((await reader.read()).seq, seq, 'answered through the pool');
      assert.equal((await reader.read()).seq, seq, 'answered on a new connection');
      assert.equal(await connectionsReach(before + 1), before + 1);
    } finally {
      await reader.close();
    }
    assert.equal(await connectionsReach(before), before);
    const seq = await write(other);
    assert.equal((await reader.read()).seq, seq, 'after close, through the pool');
    assert.equal(await connectionsReach(before), before);
  });
});
