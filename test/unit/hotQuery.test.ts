import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type Kysely, sql } from 'kysely';
import { HotQuery } from '../../src/platform/store/hotQuery.ts';
import type { Database } from '../../src/platform/store/schema.ts';
import { Store } from '../../src/platform/store/store.ts';
import { TEST_STORE, type TestDatabase, freshDatabase } from '../support/store.ts';

const SETTING = new HotQuery((db: Kysely<Database>, name: string) => db.selectFrom('twin_settings').select(['name', 'value']).where('name', '=', name));
const rowsOf = async (rows: Promise<unknown[]>) => (await rows).map((r) => ({ ...(r as object) }));
const backend = async (db: Kysely<Database>) => (await sql<{ pid: number }>`SELECT pg_backend_pid() AS pid`.execute(db)).rows[0].pid;

describe(`HotQuery (${TEST_STORE})`, () => {
  let database: TestDatabase;
  let store: Store;
  before(async () => {
    database = await freshDatabase();
    store = await Store.open({ databaseUrl: database.url });
    await store.db.insertInto('twin_settings').values([{ name: 'hot.a', value: 'one' }, { name: 'hot.b', value: 'two' }]).execute();
  });
  after(async () => {
    await store.close();
    await database.drop();
  });

  test('later calls substitute their values into the SQL compiled at the first', async () => {
    assert.deepEqual(await rowsOf(SETTING.rows(store.db, 'hot.a')), [{ name: 'hot.a', value: 'one' }]);
    assert.deepEqual(await rowsOf(SETTING.rows(store.db, 'hot.b')), [{ name: 'hot.b', value: 'two' }]);
    assert.deepEqual(await rowsOf(SETTING.rows(store.db, "hot.a' OR 1=1 --")), []);
  });

  test('a builder whose parameters come in another order than the values throws at its first call', async () => {
    const swapped = new HotQuery((db: Kysely<Database>, a: string, b: string) => db.selectFrom('twin_settings').select('value').where('name', '=', b).where('value', '=', a));
    await assert.rejects(swapped.rows(store.db, 'one', 'hot.a'), /parameters differ/);
  });

  test('PostgreSQL: a connection prepares a hot query once and then only binds it; a preparation lost with an aborted transaction is made again', { skip: TEST_STORE !== 'postgres' && 'PostgreSQL only' }, async () => {
    const prepared = async (db: Kysely<Database>) => (await sql<{ statement: string }>`SELECT statement FROM pg_prepared_statements`.execute(db)).rows.map((x) => x.statement);
    await store.db.transaction().execute(async (trx) => {
      await SETTING.rows(trx, 'hot.a');
      await SETTING.rows(trx, 'hot.b');
      const statements = (await prepared(trx)).filter((s) => s.includes('"name", "value" from "twin_settings"'));
      assert.equal(statements.length, 1, `one prepared statement for the query: ${statements}`);
    });
    // the first run of another hot query on a connection is in a failed transaction: the server never prepared it
    const other = new HotQuery((db: Kysely<Database>, name: string) => db.selectFrom('twin_settings').select('value').where('name', '<>', name));
    let pid = 0;
    await assert.rejects(
      store.db.transaction().execute(async (trx) => {
        pid = await backend(trx);
        await assert.rejects(sql`SELECT 1/0`.execute(trx));
        await other.rows(trx, 'hot.a');
      }),
      /aborted/,
    );
    await store.db.transaction().execute(async (trx) => {
      assert.equal(await backend(trx), pid, 'the same connection (the pool gives the last one released)');
      for (let i = 0; i < 3; i++) assert.deepEqual(await rowsOf(other.rows(trx, 'hot.a')), [{ value: 'two' }]);
      assert.equal((await prepared(trx)).filter((s) => s.includes('"name" <> $1')).length, 1);
    });
  });
});
