import { CompiledQuery, type ControlledTransaction, type Kysely } from 'kysely';
import type { Clock } from '../clock/clock.ts';
import { ApiError } from '../http/errors.ts';
import type { Database } from '../store/schema.ts';
import { HotQuery } from '../store/hotQuery.ts';
import { injectedOperationFailure, withOperationFailure } from './injectedFailure.ts';
import { readSetting, writeSetting } from '../store/settings.ts';
import type { Store } from '../store/store.ts';
import type { Log } from './worker.ts';

export interface OperationError {
  /** gRPC code. */
  code: number;
  message: string;
  /** A service's own error code for it (Compute's `QUOTA_EXCEEDED`), when a fault rule named one. */
  reason?: string;
  /** The HTTP status a service shows for it (Compute's `httpErrorStatusCode`). */
  httpCode?: number;
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
  /**
   * What a finished operation keeps of its payload (default: all of it). An insert's resource
   * body, say, is needed only until the operation has run; storing it again with the finished
   * operation costs a serialisation and kilobytes of every commit.
   */
  finishedPayload?(payload: P): unknown;
}

export interface OperationsConfig {
  mode: 'instant' | 'delayed';
  delayMs: number;
}

/** The longest delay a delayed operation may be given (a day). */
export const MAX_OPERATION_DELAY_MS = 24 * 3600 * 1000;

const CONFIG = 'operations.config';

/** An operation stored already done (instant completion inside its submitting transaction). */
const INSERT_DONE = new HotQuery(
  (db: Kysely<Database>, name: string, service: string, kind: string, projectNumber: string, payload: string, done: number, dueAt: number, result: string | null, error: string | null, createdAt: number, updatedAt: number) =>
    db.insertInto('operations').values({ name, service, kind, project_number: projectNumber, payload, done, due_at: dueAt, result, error, created_at: createdAt, updated_at: updatedAt }),
);

/** The worker's queries: due operations, and the earliest due time of those not done. */
const DUE = new HotQuery((db: Kysely<Database>, done: number, now: number, limit: number) =>
  db.selectFrom('operations').select(['name', 'kind']).where('done', '=', done).where('due_at', '<=', now).orderBy('due_at').limit(limit),
);
const NEXT_DUE = new HotQuery((db: Kysely<Database>, done: number) => db.selectFrom('operations').select((eb) => eb.fn.min('due_at').as('next')).where('done', '=', done));

/**
 * Savepoint statements as Kysely's SQLite and PostgreSQL drivers write them, run on the
 * transaction's connection without Kysely's per-call savepoint objects (two savepoints per
 * operation start are on the hot path of every insert).
 */
const SAVEPOINT = {
  work: { begin: CompiledQuery.raw('savepoint "work"'), release: CompiledQuery.raw('release "work"'), rollback: CompiledQuery.raw('rollback to "work"') },
  complete: { begin: CompiledQuery.raw('savepoint "complete"'), release: CompiledQuery.raw('release "complete"'), rollback: CompiledQuery.raw('rollback to "complete"') },
};

/** Most works one group commit carries. */
const MAX_GROUP = 64;

/**
 * On SQLite a commit blocks the event loop for its fsync. When the last one took at least
 * SLOW_COMMIT_MS (a busy disk), the next group waits up to half that, at most MAX_GROUP_WAIT_MS,
 * for the requests being read to queue their works: fewer, larger groups, fewer fsyncs (the idea
 * of PostgreSQL's commit_delay). A fast disk keeps starting each group at once.
 */
const SLOW_COMMIT_MS = 1;
const MAX_GROUP_WAIT_MS = 2;

/**
 * On SQLite, concurrent writers (N clients each waiting for its write before sending the next)
 * would otherwise split into groups of whatever happened to arrive in one turn of the event loop
 * (4 - 5 of 8 on average). A group waits, turn by turn, until as many works have queued as the
 * largest group of the last GROUP_SIZE_WINDOW_MS, or GROUP_FILL_WAIT_MS has passed: a lone
 * writer never waits, N writers commit together (measured with 8 Compute inserters: groups of
 * 7.9 against 4.4, +20 - 22 % inserts/s, -18 % CPU per insert), and when writers go away the
 * size is re-learnt within the window. PostgreSQL commits do not block the event loop: groups fill by themselves.
 */
const GROUP_FILL_WAIT_MS = 1;
const GROUP_SIZE_WINDOW_MS = 50;

/** How groups fill (tests widen the times to observe the policy without racing a clock). */
export interface GroupCommitOptions {
  /** Most a group waits, from its first work, for the works it expects. Default GROUP_FILL_WAIT_MS. */
  fillWaitMs?: number;
  /** How long the largest group size is remembered. Default GROUP_SIZE_WINDOW_MS. */
  sizeWindowMs?: number;
}

interface GroupWork {
  run(trx: ControlledTransaction<Database>): Promise<unknown>;
  /** The failure a fault rule asked for the request that queued the work. */
  failure: OperationError | undefined;
  resolve(value: unknown): void;
  reject(err: unknown): void;
}

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
  readonly #log: Log;
  readonly #kinds = new Map<string, OperationKind>();
  readonly #loaders: { prefix: string; load: () => Promise<unknown> }[] = [];
  #config: OperationsConfig = { mode: 'instant', delayMs: 0 };
  readonly #group: GroupWork[] = [];
  #grouping = false;
  /** How long the last group's commit took (ms). */
  #lastCommitMs = 0;
  /** The largest group of the current window (SQLite), and when that window began (performance.now()). */
  #recentGroupMax = 1;
  #recentGroupSince = 0;
  readonly #fillWaitMs: number;
  readonly #sizeWindowMs: number;
  /**
   * The earliest due time (clock ms) of an operation not yet done, as far as this process knows:
   * the worker's completeDue queries nothing before it. -Infinity when unknown (at start, after
   * another process may have written, after a snapshot restore); Infinity when none is pending.
   */
  #nextDueMs = -Infinity;
  /** Bumped by every submit, so a completeDue that raced one does not trust its own answer. */
  #submits = 0;

  constructor(store: Store, clock: Clock, log: Log, groupCommit: GroupCommitOptions = {}) {
    this.#store = store;
    this.#clock = clock;
    this.#log = log;
    this.#fillWaitMs = groupCommit.fillWaitMs ?? GROUP_FILL_WAIT_MS;
    this.#sizeWindowMs = groupCommit.sizeWindowMs ?? GROUP_SIZE_WINDOW_MS;
  }

  register(kind: OperationKind): void {
    this.#kinds.set(kind.kind, kind);
  }

  /**
   * A service loaded on first use registers its kinds when it loads: `load` (which registers
   * them) is awaited before an operation whose kind starts with `prefix` and is not registered
   * yet is completed, so a due operation (delayed mode, or one a restart left) completes even
   * when no request has loaded its service.
   */
  registerLoader(prefix: string, load: () => Promise<unknown>): void {
    this.#loaders.push({ prefix, load });
  }

  /** Loads the service of `kind` if it is not registered yet and a loader serves it. */
  async #knownKind(kind: string): Promise<void> {
    if (this.#kinds.has(kind)) return;
    await this.#loaders.find((l) => kind.startsWith(l.prefix))?.load();
  }

  get config(): OperationsConfig {
    return this.#config;
  }

  async setConfig(config: OperationsConfig): Promise<void> {
    if (!Number.isInteger(config.delayMs) || config.delayMs < 0 || config.delayMs > MAX_OPERATION_DELAY_MS) {
      throw new RangeError(`delayMs must be a whole number of milliseconds from 0 to ${MAX_OPERATION_DELAY_MS}, not ${config.delayMs}`);
    }
    await writeSetting(this.#store.db, CONFIG, config);
    this.#config = config;
  }

  /** Picks up a configuration another process wrote. */
  async reloadConfig(): Promise<void> {
    this.#config = await readSetting(this.#store.db, CONFIG, this.#config);
  }

  /** Forgets the earliest due time it knew: another process, or a restore, may have stored operations. */
  forgetNextDue(): void {
    this.#nextDueMs = -Infinity;
  }

  /** Stores a new operation inside the caller's transaction. */
  async submit(trx: Kysely<Database>, op: { name: string; service: string; kind: string; projectNumber: string; payload: unknown }): Promise<void> {
    const now = this.#clock.nowMs();
    const dueAt = now + (this.#config.mode === 'delayed' ? this.#config.delayMs : 0);
    this.#submits++;
    this.#nextDueMs = Math.min(this.#nextDueMs, dueAt);
    // A fault rule's failure is stored with the pending operation; completing it keeps that error instead of running it.
    const failure = injectedOperationFailure();
    await trx
      .insertInto('operations')
      .values({
        name: op.name,
        service: op.service,
        kind: op.kind,
        project_number: op.projectNumber,
        payload: JSON.stringify(op.payload),
        done: 0,
        due_at: dueAt,
        result: null,
        error: failure ? JSON.stringify(failure) : null,
        created_at: now,
        updated_at: now,
      })
      .execute();
  }

  /** The operation as it stands, completing it first when it is due. */
  async get(name: string): Promise<OperationRecord | undefined> {
    let rec = await this.#read(name);
    if (rec && !rec.done && rec.dueAt <= this.#clock.nowMs()) {
      await this.#knownKind(rec.kind);
      await this.tryComplete(name);
      rec = await this.#read(name);
    }
    return rec;
  }

  /**
   * Stores a new operation inside the caller's (controlled) transaction and, in instant mode,
   * completes it in that same transaction: one commit instead of two. Answers the completed
   * operation (undefined when it is left for later: delayed mode).
   */
  async submitAndComplete(
    trx: ControlledTransaction<Database>,
    op: { name: string; service: string; kind: string; projectNumber: string; payload: unknown },
  ): Promise<OperationRecord | undefined> {
    if (this.#config.mode !== 'instant') {
      await this.submit(trx, op);
      return undefined;
    }
    // Nobody sees the operation before this transaction commits: complete it first, then store it
    // done (one row write, no claim, no read back). The payload is serialised before the handler runs.
    const now = this.#clock.nowMs();
    const kept = this.#finishedPayload(op.kind, op.payload);
    const payload = JSON.stringify(kept);
    const rec: OperationRecord = {
      name: op.name,
      service: op.service,
      kind: op.kind,
      projectNumber: op.projectNumber,
      payload: op.payload,
      done: false,
      dueAt: now,
      result: null,
      error: null,
      createdAt: now,
      updatedAt: now,
    };
    const failure = injectedOperationFailure();
    const { result, error } = failure ? { result: null, error: failure } : await this.#apply(trx, rec);
    await INSERT_DONE.execute(trx, op.name, op.service, op.kind, op.projectNumber, payload, 1, now, result === null ? null : JSON.stringify(result), error ? JSON.stringify(error) : null, now, now);
    return { ...rec, payload: kept, done: true, result: result ?? null, error };
  }

  #finishedPayload(kind: string, payload: unknown): unknown {
    const k = this.#kinds.get(kind);
    return k?.finishedPayload ? k.finishedPayload(payload) : payload;
  }

  /**
   * Runs `work` in a transaction shared with the other callers waiting at the same moment (group
   * commit): each work inside its own savepoint, so one that fails (its promise rejects, its writes
   * undone) never affects another; one commit for the group; every promise settles only after that
   * commit, so an answered write is durable. A work may use only `trx` (on SQLite the one
   * connection is held by the group), and must not wait for anything but its own queries.
   */
  grouped<T>(work: (trx: ControlledTransaction<Database>) => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.#group.push({ run: work, failure: injectedOperationFailure(), resolve: resolve as (v: unknown) => void, reject });
      if (this.#grouping) return;
      this.#grouping = true;
      // Starts after the requests read in this turn of the event loop have queued their works
      // (node:sqlite runs synchronously: without this, every group would hold one work).
      const wait = this.#groupWaitMs();
      if (wait > 0) setTimeout(() => void this.#drainGroups(), wait);
      else this.#fillGroup(performance.now());
    });
  }

  #groupWaitMs(): number {
    // PostgreSQL commits do not block the event loop: waiting would only add latency.
    if (this.#store.dialect !== 'sqlite' || this.#lastCommitMs < SLOW_COMMIT_MS) return 0;
    return Math.min(MAX_GROUP_WAIT_MS, this.#lastCommitMs / 2);
  }

  /** Starts the group at the end of this turn of the event loop, or of a later one while it fills (see GROUP_FILL_WAIT_MS). */
  #fillGroup(since: number): void {
    setImmediate(() => {
      if (this.#group.length < this.#expectedGroupSize() && performance.now() - since < this.#fillWaitMs) this.#fillGroup(since);
      else void this.#drainGroups();
    });
  }

  /** How many works a group waits for: the largest group of the current window (1 on PostgreSQL). */
  #expectedGroupSize(): number {
    return this.#store.dialect === 'sqlite' ? Math.min(this.#recentGroupMax, MAX_GROUP) : 1;
  }

  /** Learns the writers' concurrency from a group of `size` works. */
  #groupFormed(size: number): void {
    const now = performance.now();
    if (size >= this.#recentGroupMax || now - this.#recentGroupSince > this.#sizeWindowMs) {
      this.#recentGroupMax = size;
      this.#recentGroupSince = now;
    }
  }

  async #drainGroups(): Promise<void> {
    try {
      while (this.#group.length) await this.#runGroup();
    } finally {
      this.#grouping = false;
    }
  }

  async #runGroup(): Promise<void> {
    const settled: [GroupWork, { ok: true; value: unknown } | { ok: false; err: unknown }][] = [];
    let current: GroupWork | undefined;
    let trx: ControlledTransaction<Database> | undefined;
    try {
      trx = await this.#store.db.startTransaction().execute();
      // Works that arrive while the group runs join it, up to MAX_GROUP.
      while (settled.length < MAX_GROUP && (current = this.#group.shift())) {
        await trx.executeQuery(SAVEPOINT.work.begin);
        try {
          // The group runs in whichever request started it: each work sees its own request's fault.
          const work = current;
          const t = trx;
          const value = await (work.failure ? withOperationFailure(work.failure, () => work.run(t)) : work.run(t));
          await trx.executeQuery(SAVEPOINT.work.release);
          settled.push([current, { ok: true, value }]);
        } catch (err) {
          await trx.executeQuery(SAVEPOINT.work.rollback);
          await trx.executeQuery(SAVEPOINT.work.release);
          settled.push([current, { ok: false, err }]);
        }
        current = undefined;
      }
      this.#groupFormed(settled.length);
      const committing = performance.now();
      await trx.commit().execute();
      this.#lastCommitMs = performance.now() - committing;
    } catch (err) {
      // The group could not commit: nothing of it is written, every caller gets the error.
      await trx?.rollback().execute().catch(() => {});
      for (const [w] of settled) w.reject(err);
      current?.reject(err);
      return;
    }
    for (const [w, o] of settled) {
      if (o.ok) w.resolve(o.value);
      else w.reject(o.err);
    }
  }

  /** Completes the operation if it is due and nobody has; true when this call completed it. */
  async tryComplete(name: string): Promise<boolean> {
    const now = this.#clock.nowMs();
    const trx = await this.#store.db.startTransaction().execute();
    try {
      if (!(await this.#claimAndComplete(trx, name, now))) {
        await trx.rollback().execute();
        return false;
      }
      await trx.commit().execute();
      return true;
    } catch (err) {
      await trx.rollback().execute().catch(() => {});
      throw err;
    }
  }

  /** Inside `trx`: claims the operation if it is due and not done, then applies its effect and records the outcome. */
  async #claimAndComplete(trx: ControlledTransaction<Database>, name: string, now: number): Promise<boolean> {
    const claimed = await trx
      .updateTable('operations')
      .set({ done: 1, updated_at: now })
      .where('name', '=', name)
      .where('done', '=', 0)
      .where('due_at', '<=', now)
      .executeTakeFirst();
    if (Number(claimed.numUpdatedRows) !== 1) return false;
    const row = await trx.selectFrom('operations').selectAll().where('name', '=', name).executeTakeFirstOrThrow();
    const rec = toRecord(row);
    // An operation stored with an error (a fault rule's) ends with it and does nothing.
    const { result, error } = rec.error ? { result: null, error: rec.error } : await this.#apply(trx, rec);
    const kept = this.#finishedPayload(rec.kind, rec.payload);
    await trx
      .updateTable('operations')
      .set({
        result: result === null || result === undefined ? null : JSON.stringify(result),
        error: error ? JSON.stringify(error) : null,
        ...(kept === rec.payload ? {} : { payload: JSON.stringify(kept) }),
      })
      .where('name', '=', name)
      .execute();
    return true;
  }

  /** Applies an operation's effect inside a savepoint of `trx`: its result, or its error (and its writes undone). */
  async #apply(trx: Kysely<Database>, rec: OperationRecord): Promise<{ result: unknown; error: OperationError | null }> {
    const kind = this.#kinds.get(rec.kind);
    await trx.executeQuery(SAVEPOINT.complete.begin);
    try {
      if (!kind) throw new ApiError({ status: 'INTERNAL', message: `No handler for operation kind ${rec.kind}.` });
      const result = await kind.complete(trx, rec.payload, rec);
      await trx.executeQuery(SAVEPOINT.complete.release);
      return { result: result ?? null, error: null };
    } catch (err) {
      await trx.executeQuery(SAVEPOINT.complete.rollback);
      await trx.executeQuery(SAVEPOINT.complete.release);
      if (err instanceof ApiError) return { result: null, error: { code: err.grpcCode, message: err.message } };
      this.#log.error({ err, operation: rec.name }, 'operation failed unexpectedly');
      return { result: null, error: { code: 13, message: 'Internal error encountered.' } };
    }
  }

  /**
   * Completes every due operation (the worker's tick); returns how many this process completed.
   * Queries nothing before the earliest due time it knows of (an idle server stays idle).
   */
  async completeDue(limit = 100): Promise<number> {
    if (this.#clock.nowMs() < this.#nextDueMs) return 0;
    const due = await DUE.rows(this.#store.db, 0, this.#clock.nowMs(), limit);
    let n = 0;
    for (const { name, kind } of due) {
      await this.#knownKind(kind);
      if (await this.tryComplete(name)) n++;
    }
    if (due.length < limit) {
      // SQLite: an open transaction that submitted holds the one connection, so this reads its
      // commit; a submit after the read is caught by the counter. (PostgreSQL forgets the
      // mark every tick: another process may submit at any time.)
      const submits = this.#submits;
      const [next] = await NEXT_DUE.rows(this.#store.db, 0);
      const at = next?.next === null || next?.next === undefined ? Infinity : Number(next.next);
      this.#nextDueMs = submits === this.#submits ? at : -Infinity;
    }
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

  /** Forgets one operation (a client's `operations.delete`); true when it existed. */
  async delete(name: string): Promise<boolean> {
    const r = await this.#store.db.deleteFrom('operations').where('name', '=', name).executeTakeFirst();
    return Number(r.numDeletedRows) > 0;
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
