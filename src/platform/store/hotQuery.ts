import { type Compilable, CompiledQuery, type Kysely, type QueryResult } from 'kysely';

/**
 * A hot query whose SQL text never changes, only its parameter values, compiled once per dialect.
 * Kysely builds an operation tree and compiles it on every call (tens of microseconds, and garbage);
 * here `build` runs once per dialect, and the parameters it compiles to must be exactly `params`
 * in that order (checked that once: a builder whose parameter order differs from `params` throws
 * there, never later). Later calls only substitute values. The SQL goes through the executor as
 * any Kysely query does (plugins, the SQLite statement cache, the transaction it is run in).
 */
export class HotQuery<P extends readonly unknown[], R = unknown> {
  readonly #build: (db: Kysely<any>, ...params: P) => Compilable<R>;
  readonly #sql = new Map<unknown, string>();

  constructor(build: (db: Kysely<any>, ...params: P) => Compilable<R>) {
    this.#build = build;
  }

  /** Runs the query through `db` (a Kysely instance or transaction) with these values. */
  async execute(db: Kysely<any>, ...params: P): Promise<QueryResult<R>> {
    const dialect = db.getExecutor().adapter.constructor;
    const sql = this.#sql.get(dialect);
    if (sql !== undefined) return db.executeQuery<R>(CompiledQuery.raw(sql, params as unknown as unknown[]));
    const compiled = this.#build(db, ...params).compile();
    if (compiled.parameters.length !== params.length || compiled.parameters.some((p, i) => p !== params[i])) {
      throw new Error(`HotQuery: the builder's parameters differ from the values given (${compiled.sql})`);
    }
    this.#sql.set(dialect, compiled.sql);
    return db.executeQuery<R>(compiled);
  }

  async rows(db: Kysely<any>, ...params: P): Promise<R[]> {
    return (await this.execute(db, ...params)).rows;
  }
}
