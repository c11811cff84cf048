import type { FastifyBaseLogger } from 'fastify';
import type { Kysely } from 'kysely';
import type { Clock } from '../clock/clock.ts';
import { ApiError } from '../http/errors.ts';
import type { Database } from '../store/schema.ts';
import { readSetting, writeSetting } from '../store/settings.ts';
import type { Store } from '../store/store.ts';

export interface OperationError {
  /** gRPC code. */
  code: number;
  message: string;
}

export interface OperationRecord {
  name: string;
  service: string;
  kind: string;
  projectNumber: string;
  payload: any;
  done: boolean;
  dueAt: number;
  result: any;
  error: OperationError | null;
  createdAt: number;
  updatedAt: number;
}

/**
 * What an operation does when it completes. `complete` applies the effect inside the completing
 * transaction and returns the result to store; an ApiError it throws becomes the operation's
 * error, and any writes it made are rolled back (a savepoint wraps it).
 */
export interface OperationKind<P = any> {
  kind: string;
  complete(trx: Kysely<Database>, payload: P, op: OperationRecord): Promise<unknown>;
}

export interface OperationsConfig {
  mode: 'instant' | 'delayed';
  delayMs: number;
}

const CONFIG = 'operations.config';

/** How long finished operations stay readable. */
export const OPERATION_RETENTION_MS = 30 * 24 * 60 * 60 * 1000;

/**
 * The durable long-running-operation engine (one engine; each service renders its own wire
 * shape). An operation is stored in the same transaction as the request that starts it; it is
 * completed exactly once, by whichever process claims it first (inline for instant mode, on
 * read, or by the background worker), so an acknowledged operation survives `kill -9`.
 */
export class OperationEngine {
  readonly #store: Store;
  readonly #clock: Clock;
  readonly #log: FastifyBaseLogger;
  readonly #kinds = new Map<string, OperationKind>();
  #config: OperationsConfig = { mode: 'instant', delayMs: 0 };

  constructor(store: Store, clock: Clock, log: FastifyBaseLogger) {
    this.#store = store;
    this.#clock = clock;
    this.#log = log;
  }

  register(kind: OperationKind): void {
    this.#kinds.set(kind.kind, kind);
  }

  get config(): OperationsConfig {
    return this.#config;
  }

  async setConfig(config: OperationsConfig): Promise<void> {
    await writeSetting(this.#store.db, CONFIG, config);
    this.#config = config;
  }

  /** Picks up a configuration another process wrote. */
  async reloadConfig(): Promise<void> {
    this.#config = await readSetting(this.#store.db, CONFIG, this.#config);
  }

  /** Stores a new operation inside the caller's transaction. */
  async submit(trx: Kysely<Database>, op: { name: string; service: string; kind: string; projectNumber: string; payload: unknown }): Promise<void> {
    const now = this.#clock.nowMs();
    await trx
      .insertInto('operations')
      .values({
        name: op.name,
        service: op.service,
        kind: op.kind,
        project_number: op.projectNumber,
        payload: JSON.stringify(op.payload),
        done: 0,
        due_at: now + (this.#config.mode === 'delayed' ? this.#config.delayMs : 0),
        result: null,
        error: null,
        created_at: now,
        updated_at: now,
      })
      .execute();
  }

  /** The operation as it stands, completing it first when it is due. */
  async get(name: string): Promise<OperationRecord | undefined> {
    let rec = await this.#read(name);
    if (rec && !rec.done && rec.dueAt <= this.#clock.nowMs()) {
      await this.tryComplete(name);
      rec = await this.#read(name);
    }
    return rec;
  }

  /** Completes the operation if it is due and nobody has; true when this call completed it. */
  async tryComplete(name: string): Promise<boolean> {
    const now = this.#clock.nowMs();
    const trx = await this.#store.db.startTransaction().execute();
    try {
      const claimed = await trx
        .updateTable('operations')
        .set({ done: 1, updated_at: now })
        .where('name', '=', name)
        .where('done', '=', 0)
        .where('due_at', '<=', now)
        .executeTakeFirst();
      if (Number(claimed.numUpdatedRows) !== 1) {
        await trx.rollback().execute();
        return false;
      }
      const row = await trx.selectFrom('operations').selectAll().where('name', '=', name).executeTakeFirstOrThrow();
      const rec = toRecord(row);
      const kind = this.#kinds.get(rec.kind);
      let result: unknown = null;
      let error: OperationError | null = null;
      const sp = await trx.savepoint('complete').execute();
      try {
        if (!kind) throw new ApiError({ status: 'INTERNAL', message: `No handler for operation kind ${rec.kind}.` });
        result = await kind.complete(sp, rec.payload, rec);
        await sp.releaseSavepoint('complete').execute();
      } catch (err) {
        await sp.rollbackToSavepoint('complete').execute();
        if (err instanceof ApiError) error = { code: err.grpcCode, message: err.message };
        else {
          this.#log.error({ err, operation: name }, 'operation failed unexpectedly');
          error = { code: 13, message: 'Internal error encountered.' };
        }
      }
      await trx
        .updateTable('operations')
        .set({ result: result === null || result === undefined ? null : JSON.stringify(result), error: error ? JSON.stringify(error) : null })
        .where('name', '=', name)
        .execute();
      await trx.commit().execute();
      return true;
    } catch (err) {
      await trx.rollback().execute().catch(() => {});
      throw err;
    }
  }

  /** Completes every due operation (the worker's tick); returns how many this process completed. */
  async completeDue(limit = 100): Promise<number> {
    const due = await this.#store.db
      .selectFrom('operations')
      .select('name')
      .where('done', '=', 0)
      .where('due_at', '<=', this.#clock.nowMs())
      .orderBy('due_at')
      .limit(limit)
      .execute();
    let n = 0;
    for (const { name } of due) if (await this.tryComplete(name)) n++;
    return n;
  }

  /**
   * Forgets finished operations older than the retention period (resource time); asking for one
   * afterwards answers NOT_FOUND, as Google keeps completed operations only for a while.
   */
  async purgeFinished(retentionMs = OPERATION_RETENTION_MS): Promise<number> {
    const r = await this.#store.db
      .deleteFrom('operations')
      .where('done', '=', 1)
      .where('updated_at', '<', this.#clock.nowMs() - retentionMs)
      .executeTakeFirst();
    return Number(r.numDeletedRows);
  }

  async #read(name: string): Promise<OperationRecord | undefined> {
    const row = await this.#store.db.selectFrom('operations').selectAll().where('name', '=', name).executeTakeFirst();
    return row ? toRecord(row) : undefined;
  }
}

function toRecord(row: Database['operations']): OperationRecord {
  return {
    name: row.name,
    service: row.service,
    kind: row.kind,
    projectNumber: row.project_number,
    payload: JSON.parse(row.payload),
    done: row.done === 1,
    dueAt: row.due_at,
    result: row.result === null ? null : JSON.parse(row.result),
    error: row.error === null ? null : JSON.parse(row.error),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}
