import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { DatabaseSync } from 'node:sqlite';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { sql } from 'kysely';
import { ALL_TABLES } from '../../src/platform/store/migrations.ts';
import { Store } from '../../src/platform/store/store.ts';
import { TEST_STORE, freshDatabase } from '../support/store.ts';

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
