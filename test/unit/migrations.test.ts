import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { DatabaseSync } from 'node:sqlite';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { sql } from 'kysely';
import { ALL_TABLES } from '../../src/platform/store/migrations.ts';
import { MIGRATION_SQL } from '../../src/platform/store/migrationSql.ts';
import { Store } from '../../src/platform/store/store.ts';
import { TEST_STORE, freshDatabase } from '../support/store.ts';
import { MIGRATION_SQL_FILE, migrationSqlSource } from '../../scripts/generate-migration-sql.ts';

test('migrationSql.ts is the SQL the migration steps compile to now (run node scripts/generate-migration-sql.ts after changing a step)', async () => {
  assert.equal(readFileSync(MIGRATION_SQL_FILE, 'utf8'), await migrationSqlSource());
});

const tablesOf = (file: string): string[] => {
  const db = new DatabaseSync(file);
  try {
    return (db.prepare(`SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name`).all() as { name: string }[]).map((r) => r.name);
  } finally {
    db.close();
  }
};

test('SQLite: a fresh data directory gets every table, and a second open migrates nothing', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'ct-migrate-'));
  try {
    await (await Store.open({ dataDir: dir })).close();
    const tables = tablesOf(join(dir, 'cloudtwin.db'));
    for (const t of ALL_TABLES) assert.ok(tables.includes(t), `table ${t} exists`);
    const store = await Store.open({ dataDir: dir });
    await store.close();
    assert.deepEqual(tablesOf(join(dir, 'cloudtwin.db')), tables);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('SQLite: a store made by an earlier version (its first migrations applied) gets the later ones, and keeps its rows', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'ct-migrate-'));
  try {
    const file = join(dir, 'cloudtwin.db');
    const db = new DatabaseSync(file);
    db.exec('CREATE TABLE kysely_migration (name varchar(255) NOT NULL PRIMARY KEY, timestamp varchar(255) NOT NULL)');
    for (const m of MIGRATION_SQL.slice(0, 2)) {
      for (const statement of m.statements) db.exec(statement);
      db.prepare('INSERT INTO kysely_migration (name, timestamp) VALUES (?, ?)').run(m.name, '2026-01-01T00:00:00.000Z');
    }
    db.prepare(`INSERT INTO projects (project_number, project_id) VALUES ('300000000001', 'old-project')`).run();
    db.close();
    await (await Store.open({ dataDir: dir })).close();
    const tables = tablesOf(file);
    for (const t of ALL_TABLES) assert.ok(tables.includes(t), `table ${t} exists`);
    const after = new DatabaseSync(file);
    try {
      assert.deepEqual((after.prepare('SELECT name, timestamp FROM kysely_migration ORDER BY name').all() as { name: string; timestamp: string }[]).map((r) => r.name), MIGRATION_SQL.map((m) => m.name));
      assert.equal((after.prepare(`SELECT timestamp FROM kysely_migration WHERE name = '0001_initial'`).get() as { timestamp: string }).timestamp, '2026-01-01T00:00:00.000Z', 'applied steps are not applied again');
      assert.equal((after.prepare('SELECT project_id FROM projects').get() as { project_id: string }).project_id, 'old-project');
    } finally {
      after.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('SQLite: a migration that fails leaves nothing half-applied (one transaction)', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'ct-migrate-'));
  try {
    // A table in the way of a later migration's CREATE TABLE: that statement fails.
    const file = join(dir, 'cloudtwin.db');
    const db = new DatabaseSync(file);
    db.exec('CREATE TABLE quota_usage (x INTEGER)');
    db.close();
    await assert.rejects(Store.open({ dataDir: dir }), /database migration \S+ failed/);
    assert.deepEqual(tablesOf(file), ['quota_usage'], 'no table of the earlier migrations, no bookkeeping table');
    // Once the obstacle is gone, the next start migrates from scratch.
    const fix = new DatabaseSync(file);
    fix.exec('DROP TABLE quota_usage');
    fix.close();
    await (await Store.open({ dataDir: dir })).close();
    assert.ok(tablesOf(file).includes('api_keys'));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

describe('PostgreSQL migrations', { skip: TEST_STORE !== 'postgres' && 'PostgreSQL only (CLOUDTWIN_TEST_STORE=postgres)' }, () => {
  test('stores opened together on one fresh schema migrate once (advisory lock)', async () => {
    const db = await freshDatabase();
    try {
      const stores = await Promise.all(Array.from({ length: 4 }, () => Store.open({ databaseUrl: db.url })));
      const rows = (await sql<{ name: string }>`SELECT name FROM kysely_migration ORDER BY name`.execute(stores[0].db)).rows.map((r) => r.name);
      assert.equal(new Set(rows).size, rows.length, 'each migration recorded once');
      assert.ok(rows.includes('0001_initial') && rows.length >= 6, rows.join(', '));
      await Promise.all(stores.map((s) => s.close()));
    } finally {
      await db.drop();
    }
  });

  test('other schemas of the database created and dropped meanwhile do not fail a migration', async () => {
    // Kysely's Migrator introspected every schema and failed now and then with `schema "..." does not exist`.
    let churning = true;
    const churn = (async () => {
      while (churning) {
        const other = await freshDatabase();
        const s = await Store.open({ databaseUrl: other.url });
        await s.close();
        await other.drop();
      }
    })();
    try {
      for (let i = 0; i < 8; i++) {
        const db = await freshDatabase();
        try {
          await (await Store.open({ databaseUrl: db.url })).close();
        } finally {
          await db.drop();
        }
      }
    } finally {
      churning = false;
      await churn;
    }
  });
});

test('0008: the world entries and templates of an earlier store become compute_resources rows; operations keep their scope as location', async () => {
  const { Kysely, SqliteDialect, PostgresDialect } = await import('kysely');
  const { migrateToLatest } = await import('../../src/platform/store/migrations.ts');
  const { openSqlite } = await import('../../src/platform/store/sqlite.ts');
  const { stableId } = await import('../../src/platform/crypto/stableId.ts');
  const dir = mkdtempSync(join(tmpdir(), 'ct-migrate-'));
  const pgdb = await freshDatabase();
  try {
    let old: InstanceType<typeof Kysely<any>>;
    if (pgdb.url) {
      const { default: pgm } = await import('pg');
      old = new Kysely<any>({ dialect: new PostgresDialect({ pool: new pgm.Pool({ connectionString: pgdb.url, max: 1 }) }) });
    } else {
      old = new Kysely<any>({ dialect: new SqliteDialect({ database: openSqlite(join(dir, 'cloudtwin.db')) }) });
    }
    await migrateToLatest(old, { through: '0007_fault_rules', schema: pgdb.url ? String((await sql<{ s: string }>`SELECT current_schema() AS s`.execute(old)).rows[0].s) : undefined });
    await old.insertInto('compute_world').values([
      { kind: 'network', project_number: '300000000001', location: 'global', name: 'net-a', body: JSON.stringify({ name: 'net-a', autoCreateSubnetworks: false }) },
      { kind: 'image', project_number: '300000000001', location: 'global', name: 'img', body: JSON.stringify({ name: 'img', creationTimestamp: '2025-02-03T04:05:06.000-08:00' }) },
    ]).execute();
    await old.insertInto('compute_instance_templates').values({ id: '1234567890123456789', project_number: '300000000001', region: 'us-central1', name: 't-1', creation_ms: 1700000000000, body: '{"name":"t-1"}' }).execute();
    await old.insertInto('compute_operations').values({ name: 'operation-1', id: '99', project_number: '300000000001', region: 'us-central1', request_id: null, insert_ms: 1700000000000 }).execute();
    await old.destroy();
    const store = await Store.open(pgdb.url ? { databaseUrl: pgdb.url } : { dataDir: dir });
    try {
      const rows = await store.db.selectFrom('compute_resources').selectAll().orderBy('kind').orderBy('name').execute();
      assert.deepEqual(
        rows.map((r) => [r.kind, r.location, r.name, r.id, Number(r.creation_ms)]),
        [
          ['image', 'global', 'img', stableId('image/300000000001/global/img'), Date.parse('2025-02-03T04:05:06.000-08:00')],
          ['instanceTemplate', 'us-central1', 't-1', '1234567890123456789', 1700000000000],
          ['network', 'global', 'net-a', stableId('network/300000000001/global/net-a'), Date.parse('2024-01-01T00:00:00.000-08:00')],
        ],
      );
      const ops = await store.db.selectFrom('compute_operations').selectAll().execute();
      assert.deepEqual(ops.map((o) => [o.name, o.location]), [['operation-1', 'us-central1']]);
    } finally {
      await store.close();
    }
  } finally {
    await pgdb.drop();
    rmSync(dir, { recursive: true, force: true });
  }
});
