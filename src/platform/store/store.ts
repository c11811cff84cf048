import { chmodSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { CompiledQuery, Kysely, PostgresDialect, SqliteDialect, sql } from 'kysely';
import type pg from 'pg';
import type { Database } from './schema.ts';
import { lockDataDir } from './dataDirLock.ts';
import { preparedStatements } from './hotQuery.ts';
import { migrateToLatest } from './migrations.ts';
import { openSqlite } from './sqlite.ts';

export type Dialect = 'sqlite' | 'postgres';

export interface StoreOptions {
  /** `postgres://...` for PostgreSQL; else SQLite in `dataDir`, an existing directory (or in memory when absent). */
  databaseUrl?: string;
  dataDir?: string;
  /**
   * Another connection to a database a Store of this process has open (a worker thread's, for
   * reads): it takes no data-directory lock (the first Store holds it) and runs no migrations (the
   * first Store ran them). Not for an in-memory database, which no other connection can see.
   */
  secondary?: boolean;
}

/** The database every part of cloudtwin shares, with the few places where the dialects differ. */
export class Store {
  readonly db: Kysely<Database>;
  readonly dialect: Dialect;
  readonly description: string;
  readonly #release: () => void;
  /** PostgreSQL: the schema unqualified names resolve to (advisory-lock keys are database-wide: they name it). */
  #schema = '';
  /** SQLite file: the last `PRAGMA data_version` read (undefined before the first). */
  #dataVersion: number | undefined;
  /** What it was opened with (see `databaseUrl`, `shareable`). */
  #opened: StoreOptions = {};

  private constructor(db: Kysely<Database>, dialect: Dialect, description: string, release: () => void = () => {}) {
    this.db = db;
    this.dialect = dialect;
    this.description = description;
    this.#release = release;
  }

  /** PostgreSQL: the URL it was opened with (for a connection of its own off the event loop, see media's versionReader.ts). */
  get databaseUrl(): string | undefined {
    return this.#opened.databaseUrl;
  }

  /** What the store was opened with (a worker thread opens a `secondary` Store with it; undefined in memory). */
  get shareable(): StoreOptions | undefined {
    return this.description === 'sqlite-memory' ? undefined : { ...this.#opened, secondary: true };
  }

  static async open(opts: StoreOptions): Promise<Store> {
    if (opts.secondary && !opts.databaseUrl && !opts.dataDir) throw new Error('an in-memory database has no secondary connection');
    let store: Store;
    if (opts.databaseUrl) {
      // Loaded only when PostgreSQL is used (a SQLite server never pays for the driver).
      const { default: pg } = await import('pg');
      const pool = new pg.Pool({
        connectionString: opts.databaseUrl,
        max: 10,
        Client: preparingClient(pg),
        // int8 columns (our epoch-millisecond times) as numbers; they stay far below 2^53.
        types: { getTypeParser: (oid: number, format?: any) => (oid === 20 ? Number : pg.types.getTypeParser(oid, format)) },
      } as pg.PoolConfig);
      store = new Store(new Kysely<Database>({ dialect: new PostgresDialect({ pool }) }), 'postgres', 'postgres');
    } else {
      let path = ':memory:';
      let release = () => {};
      if (opts.dataDir) {
        if (!opts.secondary) release = lockDataDir(opts.dataDir);
        path = join(opts.dataDir, 'cloudtwin.db');
      }
      const database = openSqlite(path);
      for (const f of [path, `${path}-wal`, `${path}-shm`]) if (path !== ':memory:' && existsSync(f)) chmodSync(f, 0o600);
      store = new Store(new Kysely<Database>({ dialect: new SqliteDialect({ database }) }), 'sqlite', opts.dataDir ? 'sqlite' : 'sqlite-memory', release);
    }
    store.#opened = { databaseUrl: opts.databaseUrl, dataDir: opts.dataDir };
    if (store.dialect === 'postgres') store.#schema = (await currentSchema(store.db)) ?? '';
    if (!opts.secondary) await migrateToLatest(store.db, { schema: store.dialect === 'postgres' ? store.#schema : undefined });
    return store;
  }

  /** `SELECT ... FOR UPDATE` on PostgreSQL; SQLite serialises writers already. */
  forUpdate<Q extends { forUpdate(): Q }>(query: Q): Q {
    return this.dialect === 'postgres' ? query.forUpdate() : query;
  }

  /**
   * Serialises, across processes, the transactions that take the same `key`: the caller waits
   * until every other transaction that took it has ended, and holds it until its own ends (a
   * transaction-scoped advisory lock on PostgreSQL, keyed by the schema and `key`; SQLite
   * serialises writers already). For a read-then-write no unique key can guard (the first free
   * internal IP of a subnetwork): take the lock, then read what is committed, then write.
   */
  async serialize(trx: Kysely<Database>, key: string): Promise<void> {
    if (this.dialect === 'postgres') await sql`SELECT pg_advisory_xact_lock(hashtext(${`cloudtwin.${this.#schema}.${key}`}))`.execute(trx);
  }

  /**
   * Whether another connection (another process) may have committed since the last call: the
   * background worker re-reads shared settings only then. In-memory SQLite has no other
   * connection (false); a SQLite file answers with `PRAGMA data_version`, which moves only when
   * another connection commits; PostgreSQL has no such mark (always true: read every tick).
   * Changes this process makes update its own caches as they are made.
   */
  async changedElsewhere(): Promise<boolean> {
    if (this.description === 'sqlite-memory') return false;
    if (this.dialect === 'postgres') return true;
    const { rows } = await this.db.executeQuery<{ data_version: number }>(DATA_VERSION);
    const version = Number(rows[0]?.data_version);
    const changed = version !== this.#dataVersion;
    this.#dataVersion = version;
    return changed;
  }

  async close(): Promise<void> {
    try {
      await this.db.destroy();
    } finally {
      this.#release();
    }
  }
}

export type Tx = Kysely<Database>;

const DATA_VERSION = CompiledQuery.raw('PRAGMA data_version');

/**
 * The pool's connection class: a hot query's text (see HotQuery, `preparedStatements`) runs as
 * its named prepared statement, parsed by the server once per connection; any other as given.
 */
function preparingClient(pg: typeof import('pg').default): typeof pg.Client {
  return class PreparingClient extends pg.Client {
    // Kysely's PostgreSQL driver calls query(text, values)
    override query(config: any, values?: any, callback?: any): any {
      const name = typeof config === 'string' ? preparedStatements.get(config) : undefined;
      return name ? super.query({ name, text: config, values }, callback) : super.query(config, values, callback);
    }
  };
}

/** The schema unqualified names resolve to (the first existing one on the `search_path`). */
async function currentSchema(db: Kysely<Database>): Promise<string | undefined> {
  const { rows } = await sql<{ schema: string | null }>`SELECT current_schema() AS schema`.execute(db);
  return rows[0]?.schema ?? undefined;
}
