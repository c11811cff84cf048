import { DatabaseSync, type StatementSync } from 'node:sqlite';
import type { SqliteDatabase, SqliteStatement } from 'kysely';

/**
 * Adapts `node:sqlite` to the better-sqlite3 shape Kysely's SQLite dialect drives, with a cache
 * of prepared statements (Kysely prepares on every query; preparing is the costly part).
 */
export function openSqlite(path: string): SqliteDatabase {
  const db = new DatabaseSync(path);
  // WAL + synchronous=FULL: a write acknowledged to a client is on disk (survives kill -9 and power loss).
  db.exec('PRAGMA journal_mode = WAL');
  db.exec('PRAGMA synchronous = FULL');
  db.exec('PRAGMA busy_timeout = 5000');
  db.exec('PRAGMA foreign_keys = ON');
  const statements = new Map<string, SqliteStatement>();
  return {
    close: () => db.close(),
    prepare(sql: string): SqliteStatement {
      let cached = statements.get(sql);
      if (!cached) {
        cached = adapt(db.prepare(sql));
        if (statements.size > 2000) statements.clear();
        statements.set(sql, cached);
      }
      return cached;
    },
  };
}

function adapt(stmt: StatementSync): SqliteStatement {
  const reader = stmt.columns().length > 0;
  return {
    reader,
    all: (parameters) => stmt.all(...(parameters as any[])),
    run: (parameters) => {
      const r = stmt.run(...(parameters as any[]));
      return { changes: r.changes, lastInsertRowid: r.lastInsertRowid };
    },
    iterate: (parameters) => stmt.iterate(...(parameters as any[])) as IterableIterator<unknown>,
  };
}
