import { STATUS_CODES } from '../../../platform/http/statusCodes.ts';
import type { Kysely } from 'kysely';
import type { Principal } from '../../../platform/auth/principal.ts';
import type { Clock } from '../../../platform/clock/clock.ts';
import type { Ids } from '../../../platform/crypto/random.ts';
import type { ProjectRecord } from '../../../platform/iam/directory.ts';
import type { OperationEngine, OperationError, OperationRecord } from '../../../platform/operations/engine.ts';
import type { Database } from '../../../platform/store/schema.ts';
import type { Store } from '../../../platform/store/store.ts';
import { isUniqueViolation } from '../../../platform/store/uniqueViolation.ts';
import { type OperationFailure, computeError, operationFailure, resourceNotFound } from '../errors.ts';
import type { OperationErrorEntry } from '../instanceTemplate/types.ts';
import { type ListParams, aggregatedAnswer, listAnswer, listPage } from '../listPage.ts';
import type { ComputeCall } from '../methods.ts';
import { LINK_BASE, SERVICE, computeTimestamp, operationName } from '../names.ts';
import { type Scope, allScopes, locationLink, locationOf, scopeAt, scopePath } from '../scope.ts';
import type { ListCursor, ListOrder } from '../store/keyset.ts';
import type { OperationIndex } from '../store/operationIndex.ts';

const ZERO_UUID = '00000000-0000-0000-0000-000000000000';
const UUID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;

export type WireOperation = Record<string, unknown>;

/** What every Compute operation stores (the engine's payload), whatever its kind. */
export interface OperationPayload<D = Record<string, unknown>> {
  opId: string;
  projectId: string;
  projectNumber: string;
  user: string;
  requestId: string | null;
  /** Where the operation lives: `global`, a region's or a zone's name (see `Scope`). */
  location: string;
  /** As answered: `insert`, `compute.instanceTemplates.insert`, ... */
  operationType: string;
  targetLink: string;
  targetId: string;
  /** What the kind's completion needs (an insert's resource, ...). */
  data: D;
}

/** What a completion answers: nothing (done), or the failure the operation ends with. */
export type Completion = OperationFailure | undefined;

/** What a finished operation stores as its result. */
interface OperationResult {
  failure?: OperationFailure;
}

/** A template operation stored before operations had one payload for every kind. */
interface LegacyTemplatePayload {
  type: 'insert' | 'delete';
  opId: string;
  projectId: string;
  projectNumber: string;
  region: string;
  templateName: string;
  templateId: string;
  user: string;
  requestId: string | null;
  body?: Record<string, unknown>;
  deferred?: OperationErrorEntry[];
}

/** The one payload shape, from either (an operation stored by an earlier version keeps working). */
function payloadOf(p: OperationPayload | LegacyTemplatePayload): OperationPayload {
  if (!('templateName' in p)) return p;
  const global = p.region === 'global';
  const scope = global ? 'global' : `regions/${p.region}`;
  return {
    opId: p.opId,
    projectId: p.projectId,
    projectNumber: p.projectNumber,
    user: p.user,
    requestId: p.requestId,
    location: p.region,
    operationType: global ? (p.type === 'insert' ? 'compute.instanceTemplates.insert' : 'delete') : `compute.regionInstanceTemplates.${p.type}`,
    targetLink: `${LINK_BASE}projects/${p.projectId}/${scope}/instanceTemplates/${p.templateName}`,
    targetId: p.templateId,
    data: { name: p.templateName, ...(p.body ? { body: p.body } : {}), ...(p.deferred ? { deferred: p.deferred } : {}) },
  };
}

/** The member's e-mail, as Compute writes `user`. */
const userOf = (p: Principal) => p.member.replace(/^[a-zA-Z]+:/, '');

/** An operation that ended with an engine error (its kind failed unexpectedly, or a fault rule's): Compute's `error.errors[]`. */
function errorFailure(error: OperationError): OperationFailure {
  const failure = operationFailure([{ code: error.reason ?? 'INTERNAL_ERROR', message: error.message }]);
  return error.httpCode ? { ...failure, httpErrorStatusCode: error.httpCode, httpErrorMessage: STATUS_CODES[error.httpCode]?.toUpperCase() ?? failure.httpErrorMessage } : failure;
}

export const operationPath = (project: string, scope: Scope, name: string) => `${scopePath(project, scope)}/operations/${name}`;

export interface OperationsDeps {
  store: Store;
  clock: Clock;
  ids: Ids;
  operations: OperationEngine;
  index: OperationIndex;
  /** How long `operations.wait` blocks at most (real: about 2 minutes). */
  waitTimeoutMs: number;
}

/** What a kind's write starts. */
export interface OperationStart<D> {
  /** The engine's kind of the completion (`compute.networks.insert`), registered with `register`. */
  kind: string;
  scope: Scope;
  operationType: string;
  targetLink: string;
  targetId: string;
  data: D;
  /**
   * Writes that belong to the request itself, in the operation's transaction before it is stored
   * (an instance is PROVISIONING from its insert on): a throw is the request's error and nothing is kept.
   */
  prepare?(trx: Kysely<Database>): Promise<void>;
}

/**
 * Compute's operations, global, regional and zonal alike: started by every kind's writes (with
 * requestId idempotency), completed by the engine (at once in instant mode, when the twin's clock
 * reaches them in delayed mode), answered in Compute's wire shape, listed, waited for and deleted.
 */
export class ComputeOperations {
  readonly #d: OperationsDeps;

  constructor(deps: OperationsDeps) {
    this.#d = deps;
  }

  /**
   * Registers a completion: it runs inside the completing transaction, reads and writes through
   * `trx` only, and answers nothing or the operation's failure. `finished`: what a finished
   * operation keeps of its data (an insert's resource is in the store once it has run).
   */
  register<D>(kind: string, complete: (trx: Kysely<Database>, p: OperationPayload<D>) => Promise<Completion>, finished?: (data: D) => unknown): void {
    this.#d.operations.register({
      kind,
      complete: async (trx, p): Promise<OperationResult> => {
        const failure = await complete(trx, payloadOf(p) as OperationPayload<D>);
        return failure ? { failure } : {};
      },
      ...(finished ? { finishedPayload: (p: OperationPayload<D>) => ('data' in p ? { ...p, data: finished(p.data) } : p) } : {}),
    });
  }

  /** Checks a `requestId` (a UUID other than the zero UUID); answers the operation an earlier request with it started, if any. */
  async earlierOperation(p: ProjectRecord, requestId: string): Promise<WireOperation | undefined> {
    if (!UUID.test(requestId) || requestId === ZERO_UUID) {
      throw computeError(
        'INVALID_ARGUMENT',
        'invalid',
        `Invalid value for field 'requestId': '${requestId}'. The request ID must be a valid UUID with the exception that zero UUID is not supported (${ZERO_UUID}).`,
        { location: 'requestId' },
      );
    }
    const earlier = await this.#d.index.byRequestId(this.#d.store.db, p.projectNumber, requestId.toLowerCase());
    return earlier ? this.#renderByName(earlier.name) : undefined;
  }

  /** The operation a concurrent repeat of the call's requestId started, if one has committed since the call began. */
  repeated(call: Pick<ComputeCall, 'project' | 'requestId'>): Promise<WireOperation | undefined> {
    return call.requestId ? this.earlierOperation(call.project, call.requestId) : Promise.resolve(undefined);
  }

  /** A new operation id (an insert's resource id is drawn the same way). */
  newId(): string {
    return this.#d.ids.decimal(19);
  }

  /**
   * Starts an operation: its index row, the operation and, in instant mode, its completion, in one
   * savepoint of a group commit (concurrent starts share the commit, each answered once durable).
   */
  async start<D>(call: Pick<ComputeCall, 'principal' | 'project' | 'requestId'>, o: OperationStart<D>): Promise<WireOperation> {
    const p = call.project;
    const now = this.#d.clock.nowMs();
    const name = operationName(now, this.#d.ids.hex(16));
    const payload: OperationPayload<D> = {
      opId: this.#d.ids.decimal(19),
      projectId: p.projectId,
      projectNumber: p.projectNumber,
      user: userOf(call.principal),
      requestId: call.requestId,
      location: locationOf(o.scope),
      operationType: o.operationType,
      targetLink: o.targetLink,
      targetId: o.targetId,
      data: o.data,
    };
    let done: OperationRecord | undefined;
    try {
      done = await this.#d.operations.grouped(async (trx) => {
        await o.prepare?.(trx);
        await this.#d.index.insert(trx, { name, id: payload.opId, projectNumber: p.projectNumber, scope: o.scope, requestId: call.requestId, insertMs: now });
        return this.#d.operations.submitAndComplete(trx, { name, service: SERVICE, kind: o.kind, projectNumber: p.projectNumber, payload });
      });
    } catch (err) {
      // A concurrent repeat of the same requestId (this or another process) won the race: answer its operation.
      if (call.requestId && isUniqueViolation(err)) {
        const earlier = await this.#d.index.byRequestId(this.#d.store.db, p.projectNumber, call.requestId);
        if (earlier) return this.#renderByName(earlier.name);
      }
      throw err;
    }
    return done ? this.render(done) : this.#renderByName(name);
  }

  // ---- the operations methods --------------------------------------------------------------

  async get(call: ComputeCall): Promise<WireOperation> {
    const row = await this.#row(call);
    return this.#renderByName(row.name, call.path);
  }

  async delete(call: ComputeCall): Promise<void> {
    const row = await this.#row(call);
    await this.#d.operations.delete(row.name);
    await this.#d.index.forget(this.#d.store.db, row.name);
  }

  /** Blocks until the operation is DONE or the wait deadline passes; answers it as it then stands. */
  async wait(call: ComputeCall): Promise<WireOperation> {
    const row = await this.#row(call);
    const deadline = Date.now() + this.#d.waitTimeoutMs;
    for (let pause = 5; ; pause = Math.min(pause * 2, 100)) {
      const op = await this.#d.operations.get(row.name);
      if (!op) throw resourceNotFound(call.path);
      if (op.done || Date.now() >= deadline || call.signal?.aborted) return this.render(op);
      const due = op.dueAt - this.#d.clock.nowMs();
      await new Promise((r) => setTimeout(r, Math.max(1, Math.min(pause, due > 0 ? due : pause, deadline - Date.now()))));
    }
  }

  async list(call: ComputeCall): Promise<Record<string, unknown>> {
    const { project: p, scope } = call;
    const page = await listPage(call.query as ListParams, `operations/${p.projectNumber}/${locationOf(scope)}`, (order, after, limit) => this.#page(p.projectNumber, scope, order, after, limit));
    return listAnswer('Operation', `${scopePath(p.projectId, scope)}/operations`, page);
  }

  /** `aggregated/operations`: `items` keyed `global`, `regions/R` and `zones/Z`, each with its operations or a warning. */
  async aggregatedList(call: ComputeCall): Promise<Record<string, unknown>> {
    const p = call.project;
    const page = await listPage(call.query as ListParams, `aggregated/operations/${p.projectNumber}`, (order, after, limit) => this.#page(p.projectNumber, undefined, order, after, limit));
    return aggregatedAnswer(p.projectId, 'operations', 'Operation', page, [...allScopes('global'), ...allScopes('region'), ...allScopes('zone')]);
  }

  async #page(projectNumber: string, scope: Scope | undefined, order: ListOrder, after: ListCursor | undefined, limit: number) {
    const rows = await this.#d.index.page(this.#d.store.db, { projectNumber, scope, order, after, limit });
    const out = [];
    for (const r of rows) {
      const op = await this.#d.operations.get(r.name);
      if (op) out.push({ resource: this.render(op), scope: r.scope, cursor: { name: { key: r.name, id: r.id }, creation: { key: r.insertMs, id: r.id } } });
    }
    return out;
  }

  async #row(call: ComputeCall) {
    const row = await this.#d.index.get(this.#d.store.db, call.project.projectNumber, call.scope, call.params.operation);
    if (!row) throw resourceNotFound(call.path);
    return row;
  }

  async #renderByName(name: string, path?: string): Promise<WireOperation> {
    const op = await this.#d.operations.get(name);
    if (!op) throw resourceNotFound(path ?? name);
    return this.render(op);
  }

  /** The compute wire shape of an operation; PENDING, RUNNING and DONE follow each other in time. */
  render(op: OperationRecord): WireOperation {
    const p = payloadOf(op.payload);
    const scope = scopeAt(p.location);
    const result = (op.result ?? {}) as OperationResult;
    const now = this.#d.clock.nowMs();
    const span = Math.max(0, op.dueAt - op.createdAt);
    const startMs = op.createdAt + Math.floor(span / 2);
    let status: 'PENDING' | 'RUNNING' | 'DONE';
    let progress: number;
    if (op.done) {
      status = 'DONE';
      progress = 100;
    } else if (now < startMs) {
      status = 'PENDING';
      progress = 0;
    } else {
      status = 'RUNNING';
      progress = Math.min(99, Math.max(1, Math.floor(((now - startMs) / Math.max(1, op.dueAt - startMs)) * 100)));
    }
    const out: WireOperation = {
      kind: 'compute#operation',
      id: p.opId,
      name: op.name,
      ...(p.requestId ? { clientOperationId: p.requestId } : {}),
      operationType: p.operationType,
      targetLink: p.targetLink,
      targetId: p.targetId,
      status,
      user: p.user,
      progress,
      insertTime: computeTimestamp(op.createdAt),
    };
    if (status !== 'PENDING') out.startTime = computeTimestamp(op.done ? Math.min(startMs, op.updatedAt) : startMs);
    if (op.done) {
      out.endTime = computeTimestamp(op.updatedAt);
      const failure = result.failure ?? (op.error ? errorFailure(op.error) : undefined);
      if (failure) {
        out.error = { errors: failure.errors };
        out.httpErrorStatusCode = failure.httpErrorStatusCode;
        out.httpErrorMessage = failure.httpErrorMessage;
      }
    }
    out.selfLink = LINK_BASE + operationPath(p.projectId, scope, op.name);
    const where = locationLink(p.projectId, scope);
    if (where) out[scope.type] = where;
    return out;
  }
}
