import type { Kysely } from 'kysely';
import type { Clock } from '../../../platform/clock/clock.ts';
import type { Database } from '../../../platform/store/schema.ts';
import type { Store } from '../../../platform/store/store.ts';
import { alreadyExists, operationFailure } from '../errors.ts';
import type { ComputeCall } from '../methods.ts';
import { LINK_BASE, computeTimestamp } from '../names.ts';
import type { Completion, ComputeOperations, OperationPayload, WireOperation } from '../operation/service.ts';
import { type Scope, scopeAt, scopePath } from '../scope.ts';
import type { StoredKind } from './reader.ts';
import type { ResourceStore, StoredResource } from './resources.ts';

/** A kind the API writes: its operations' engine kinds are `compute.<collection>.insert|delete|update`. */
export interface WritableKind extends StoredKind {
  /** Inside the inserting transaction, before the row is stored: a failure ends the operation (a rule that may have changed since the request). */
  beforeInsert?(trx: Kysely<Database>, r: StoredResource, p: OperationPayload<WriteData>): Promise<Completion>;
  /** Inside the inserting transaction, once the row is stored (an auto-mode network's subnetworks). */
  afterInsert?(trx: Kysely<Database>, r: StoredResource, p: OperationPayload<WriteData>): Promise<void>;
  /** Inside the deleting transaction, once the row is gone. */
  afterDelete?(trx: Kysely<Database>, r: StoredResource, p: OperationPayload<WriteData>): Promise<void>;
}

/** What a write's operation carries: the resource's name and, for inserts and updates, its new body (gone once it has run). */
export interface WriteData {
  name: string;
  body?: Record<string, unknown>;
  /** The body as it was when an update was asked (the update fails if it changed meanwhile). */
  before?: string;
}

export const resourcePath = (project: string, scope: Scope, collection: string, name: string) => `${scopePath(project, scope)}/${collection}/${name}`;

/**
 * The writes every writable kind makes the same way: insert (a taken name is 409 at once; the row
 * is stored when the operation runs), delete and update of a stored resource, each an operation of
 * the resource's scope with Compute's bare-verb `operationType` unless told otherwise.
 */
export class ResourceWrites {
  readonly #store: Store;
  readonly #clock: Clock;
  readonly #resources: ResourceStore;
  readonly #operations: ComputeOperations;

  constructor(d: { store: Store; clock: Clock; resources: ResourceStore; operations: ComputeOperations }) {
    this.#store = d.store;
    this.#clock = d.clock;
    this.#resources = d.resources;
    this.#operations = d.operations;
  }

  /** Registers the kind's completions (once per kind). */
  register(k: WritableKind): void {
    const row = (p: OperationPayload<WriteData>, creationMs: number): StoredResource => ({
      kind: k.kind,
      projectNumber: p.projectNumber,
      scope: scopeAt(p.location),
      name: p.data.name,
      id: p.targetId,
      creationMs,
      body: p.data.body ?? {},
    });
    const gone = (p: OperationPayload<WriteData>) => operationFailure([{ code: 'RESOURCE_NOT_FOUND', message: `The resource '${resourcePath(p.projectId, scopeAt(p.location), k.collection, p.data.name)}' was not found` }]);
    const finished = ({ name }: WriteData) => ({ name });
    this.#operations.register<WriteData>(`compute.${k.collection}.insert`, async (trx, p) => {
      const now = this.#clock.nowMs();
      const r = row(p, now);
      r.body = { ...r.body, creationTimestamp: computeTimestamp(now) };
      const refused = await k.beforeInsert?.(trx, r, p);
      if (refused) return refused;
      if (!(await this.#resources.insertIfAbsent(trx, r))) {
        return operationFailure([{ code: 'RESOURCE_ALREADY_EXISTS', message: `The resource '${resourcePath(p.projectId, r.scope, k.collection, r.name)}' already exists` }]);
      }
      await k.afterInsert?.(trx, r, p);
      return undefined;
    }, finished);
    this.#operations.register<WriteData>(`compute.${k.collection}.delete`, async (trx, p) => {
      const r = await this.#resources.get(trx, k.kind, p.projectNumber, scopeAt(p.location), p.targetId);
      if (!r || !(await this.#resources.delete(trx, k.kind, p.projectNumber, r.scope, r.id))) return gone(p);
      await k.afterDelete?.(trx, r, p);
      return undefined;
    });
    this.#operations.register<WriteData>(`compute.${k.collection}.update`, async (trx, p) => {
      const r = await this.#resources.get(trx, k.kind, p.projectNumber, scopeAt(p.location), p.targetId);
      if (!r) return gone(p);
      if (p.data.before !== undefined && JSON.stringify(r.body) !== p.data.before) {
        return operationFailure([{ code: 'CONDITION_NOT_MET', message: `The resource '${resourcePath(p.projectId, r.scope, k.collection, r.name)}' changed while it was being updated.` }]);
      }
      await this.#resources.update(trx, { ...r, body: p.data.body ?? r.body });
      return undefined;
    }, finished);
  }

  /** Starts an insert of `body` (named `name`) in the call's scope: 409 at once when the name is taken. */
  async insert(call: ComputeCall, k: WritableKind, name: string, body: Record<string, unknown>, operationType = 'insert'): Promise<WireOperation> {
    const { project: p, scope } = call;
    if (await this.#resources.nameTaken(this.#store.db, k.kind, p.projectNumber, scope, name)) {
      // A concurrent repeat of this requestId may have committed since: its operation is the answer.
      const repeated = await this.#operations.repeated(call);
      if (repeated) return repeated;
      throw alreadyExists(resourcePath(p.projectId, scope, k.collection, name));
    }
    const id = String(body.id ?? this.#operations.newId());
    return this.#operations.start<WriteData>(call, {
      kind: `compute.${k.collection}.insert`,
      scope,
      operationType,
      targetLink: LINK_BASE + resourcePath(p.projectId, scope, k.collection, name),
      targetId: id,
      data: { name, body: { ...body, id } },
    });
  }

  async delete(call: ComputeCall, k: WritableKind, r: StoredResource, operationType = 'delete'): Promise<WireOperation> {
    return this.#operations.start<WriteData>(call, {
      kind: `compute.${k.collection}.delete`,
      scope: r.scope,
      operationType,
      targetLink: LINK_BASE + resourcePath(call.project.projectId, r.scope, k.collection, r.name),
      targetId: r.id,
      data: { name: r.name },
    });
  }

  /** Replaces the resource's body with `body` when the operation runs (unless it changed since it was read). */
  async update(call: ComputeCall, k: WritableKind, r: StoredResource, body: Record<string, unknown>, operationType: string): Promise<WireOperation> {
    return this.#operations.start<WriteData>(call, {
      kind: `compute.${k.collection}.update`,
      scope: r.scope,
      operationType,
      targetLink: LINK_BASE + resourcePath(call.project.projectId, r.scope, k.collection, r.name),
      targetId: r.id,
      data: { name: r.name, body, before: JSON.stringify(r.body) },
    });
  }
}
