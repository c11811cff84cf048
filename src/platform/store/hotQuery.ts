import { type Compilable, CompiledQuery, type Kysely, type QueryResult } from 'kysely';

/**
 * The SQL texts of hot queries, each with the name of its prepared statement: a PostgreSQL
 * connection of the store (store.ts) prepares such a text the first time it runs it and from then
 * on only binds values (the server parses and plans it once per connection, not at every call:
 * half the server's time for a one-row read). Filled as each HotQuery is first compiled.
 */
export const preparedStatements = new Map<string, string>();

/**
 * A hot query whose SQL text never changes, only its parameter values, compiled once per dialect
 * (and on PostgreSQL prepared once per connection: `preparedStatements`).
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
    if (!preparedStatements.has(compiled.sql)) preparedStatements.set(compiled.sql, `cloudtwin_hot_${preparedStatements.size}`);
    return db.executeQuery<R>(compiled);
  }

  async rows(db: Kysely<any>, ...params: P): Promise<R[]> {
    return (await this.execute(db, ...params)).rows;
  }
}

/**
 * A statement over many rows (a multi-row insert or upsert) whose SQL is the same for a fixed
 * number of rows, `rows`: at that size it runs as a HotQuery whose parameters are the rows'
 * values, row after row in `columns` order (Kysely compiles a 500-row insert from a tree of
 * thousands of nodes, every time). Any other number of rows is built by Kysely as usual. Callers
 * pass the values flat, so no object is made per row on the hot path.
 */
export class HotRows<R = unknown> {
  readonly rows: number;
  readonly #columns: readonly string[];
  readonly #build: (db: Kysely<any>, rows: Record<string, unknown>[]) => Compilable<R> & { execute(): Promise<unknown> };
  readonly #hot: HotQuery<unknown[], R>;

  constructor(rows: number, columns: readonly string[], build: (db: Kysely<any>, rows: Record<string, unknown>[]) => Compilable<R> & { execute(): Promise<unknown> }) {
    this.rows = rows;
    this.#columns = columns;
    this.#build = build;
    this.#hot = new HotQuery((db, ...values) => build(db, this.#objects(values)));
  }

  /** Runs the statement through `db` over the rows whose values `values` holds (a multiple of the columns' count). */
  async execute(db: Kysely<any>, values: unknown[]): Promise<void> {
    if (values.length === this.rows * this.#columns.length) await this.#hot.execute(db, ...values);
    else if (values.length) await this.#build(db, this.#objects(values)).execute();
  }

  #objects(values: unknown[]): Record<string, unknown>[] {
    const columns = this.#columns;
    const out: Record<string, unknown>[] = [];
    for (let i = 0; i < values.length; i += columns.length) {
      const row: Record<string, unknown> = {};
      for (let c = 0; c < columns.length; c++) row[columns[c]] = values[i + c];
      out.push(row);
    }
    return out;
  }
}
