import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { DatabaseSync } from 'node:sqlite';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { ALL_TABLES } from '../../src/platform/store/migrations.ts';
import { Store } from '../../src/platform/store/store.ts';

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
