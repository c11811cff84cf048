import { DatabaseSync, type StatementSync } from 'node:sqlite';
import type { Worker } from 'node:worker_threads';
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
  const checkpoints = path === ':memory:' ? undefined : new BackgroundCheckpoints(db, path);
  const statements = new Map<string, SqliteStatement>();
  return {
    close: () => {
      checkpoints?.close();
      db.close();
    },
    prepare(sql: string): SqliteStatement {
      let cached = statements.get(sql);
      if (!cached) {
        cached = adapt(db.prepare(sql), checkpoints);
        if (statements.size > 2000) statements.clear();
        statements.set(sql, cached);
      }
      return cached;
    },
  };
}

function adapt(stmt: StatementSync, checkpoints: BackgroundCheckpoints | undefined): SqliteStatement {
  const reader = stmt.columns().length > 0;
  return {
    reader,
    all: (parameters) => stmt.all(...(parameters as any[])),
    run: (parameters) => {
      const r = stmt.run(...(parameters as any[]));
      checkpoints?.afterWrite();
      return { changes: r.changes, lastInsertRowid: r.lastInsertRowid };
    },
    iterate: (parameters) => stmt.iterate(...(parameters as any[])) as IterableIterator<unknown>,
  };
}

/** Commits between two background checkpoints (~16 x a few pages: far below SQLite's 1,000-page mark). */
const COMMITS_PER_CHECKPOINT = 16;
/** A checkpoint thread idle this long ends (it holds ~14 MiB resident); the next checkpoint due starts another. */
const THREAD_IDLE_MS = 10_000;

/**
 * WAL checkpoints, mostly off the event loop. SQLite's automatic checkpoint runs inside the
 * commit that takes the WAL past 1,000 pages: it copies them into the database file and fsyncs
 * it while every request waits (~20 ms against ~3 ms for a plain commit on this machine's
 * busy disk). Here a worker thread with its own connection runs a PASSIVE checkpoint every
 * COMMITS_PER_CHECKPOINT commits (it never waits for nor blocks a writer or a reader, and a
 * checkpoint is crash-safe at any point: durability is unchanged). The automatic checkpoint
 * stays on as the bound of the WAL (the WAL restarts from its beginning only after a checkpoint
 * on the writing connection): when it comes, the thread has already copied and synced all but
 * the last few commits' pages. The thread starts at the first checkpoint due (a short-lived
 * process never pays for it) and ends after THREAD_IDLE_MS without one (an idle server neither).
 */
class BackgroundCheckpoints {
  readonly #db: DatabaseSync;
  readonly #path: string;
  #worker: Worker | undefined;
  #commits = 0;
  /** A checkpoint was asked for and has not answered yet (asks never queue up). */
  #running = false;
  #idleTimer: NodeJS.Timeout | undefined;

  constructor(db: DatabaseSync, path: string) {
    this.#db = db;
    this.#path = path;
  }

  /** After a write statement: counts it when it ended a transaction (explicit COMMIT or autocommit). */
  afterWrite(): void {
    if (this.#db.isTransaction || ++this.#commits < COMMITS_PER_CHECKPOINT || this.#running) return;
    this.#commits = 0;
    this.#running = true;
    this.#thread().postMessage('checkpoint');
  }

  close(): void {
    clearTimeout(this.#idleTimer);
    this.#worker?.postMessage('close');
    this.#worker = undefined;
  }

  #thread(): Worker {
    if (!this.#worker) {
      // node:worker_threads is loaded with the first checkpoint thread (an in-memory store never has one).
      const worker = new (process.getBuiltinModule('node:worker_threads').Worker)(CHECKPOINT_THREAD, { eval: true, workerData: { path: this.#path } });
      worker.unref();
      worker.on('message', () => {
        this.#running = false;
        clearTimeout(this.#idleTimer);
        this.#idleTimer = setTimeout(() => this.close(), THREAD_IDLE_MS).unref();
      });
      // A thread that failed (its database removed, say) is replaced at the next checkpoint due;
      // meanwhile the automatic checkpoint bounds the WAL.
      worker.on('error', () => {
        if (this.#worker === worker) this.#worker = undefined;
        this.#running = false;
      });
      this.#worker = worker;
    }
    return this.#worker;
  }
}

/** The checkpoint thread (plain JavaScript: `eval` workers are not type-stripped). */
const CHECKPOINT_THREAD = `
const { parentPort, workerData } = require('node:worker_threads');
const { DatabaseSync } = require('node:sqlite');
const db = new DatabaseSync(workerData.path);
db.exec('PRAGMA synchronous = FULL');
const checkpoint = db.prepare('PRAGMA wal_checkpoint(PASSIVE)');
parentPort.on('message', (m) => {
  if (m === 'close') {
    db.close();
    parentPort.close();
    return;
  }
  parentPort.postMessage(checkpoint.get());
});
`;
