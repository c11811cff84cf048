import type { Clock } from '../../../platform/clock/clock.ts';
import type { Store } from '../../../platform/store/store.ts';
import { alreadyExists, invalidField, operationFailure, resourceInUse } from '../errors.ts';
import type { ComputeCall } from '../methods.ts';
import { LINK_BASE } from '../names.ts';
import type { ComputeOperations, WireOperation } from '../operation/service.ts';
import { readResourceBody } from '../resourceBody.ts';
import { zoneOf } from '../instance/rules.ts';
import { GLOBAL } from '../scope.ts';
import type { ResourceReader } from '../store/reader.ts';
import type { ResourceStore } from '../store/resources.ts';
import type { ResourceWrites, WritableKind } from '../store/writes.ts';
import { DISKS, SNAPSHOTS, diskPath, diskToInsert, sizeGbOf, snapshotOf } from './resource.ts';

export interface DiskDeps {
  store: Store;
  clock: Clock;
  resources: ResourceStore;
  reader: ResourceReader;
  writes: ResourceWrites;
  operations: ComputeOperations;
}

/** What `createSnapshot`'s operation carries: the snapshot to store. */
interface SnapshotData {
  name: string;
  body: Record<string, unknown>;
}

/**
 * Zonal disks: insert, get, list, aggregatedList, resize, createSnapshot, delete (refused while an
 * instance uses the disk: its `users[]`); and snapshots: get, list, delete.
 */
export class Disks {
  readonly #d: DiskDeps;
  readonly kind: WritableKind = DISKS;
  readonly snapshots: WritableKind = SNAPSHOTS;

  constructor(deps: DiskDeps) {
    this.#d = deps;
    deps.writes.register(this.kind);
    deps.writes.register(this.snapshots);
    deps.operations.register<SnapshotData>('compute.disks.createSnapshot', async (trx, p) => {
      const snapshot = { kind: SNAPSHOTS.kind, projectNumber: p.projectNumber, scope: GLOBAL, name: p.data.name, id: this.#d.operations.newId(), creationMs: deps.clock.nowMs(), body: p.data.body };
      if (await deps.resources.insertIfAbsent(trx, snapshot)) return undefined;
      return operationFailure([{ code: 'RESOURCE_ALREADY_EXISTS', message: `The resource 'projects/${p.projectId}/global/snapshots/${p.data.name}' already exists` }]);
    }, ({ name }) => ({ name }));
  }

  async insert(call: ComputeCall): Promise<WireOperation> {
    const body = readResourceBody('Disk', 'disk_resource', call.body);
    const zone = zoneOf(call.scope);
    const disk = diskToInsert(body, { projectId: call.project.projectId, zone, sourceImage: typeof call.query.sourceImage === 'string' ? call.query.sourceImage : undefined });
    return this.#d.writes.insert(call, this.kind, String(disk.name), disk);
  }

  get = (call: ComputeCall) => this.#d.reader.get(call, this.kind, 'disk');
  list = (call: ComputeCall) => this.#d.reader.list(call, this.kind);
  aggregatedList = (call: ComputeCall) => this.#d.reader.aggregatedList(call, this.kind);

  async resize(call: ComputeCall): Promise<WireOperation> {
    const r = await this.#d.reader.find(call, this.kind, 'disk');
    const asked = (call.body ?? {}) as Record<string, unknown>;
    const sizeGb = sizeGbOf(asked.sizeGb, 'sizeGb');
    if (BigInt(sizeGb) <= BigInt(r.body.sizeGb ?? '10')) {
      throw invalidField('sizeGb', sizeGb, `Requested disk size cannot be smaller than or equal to the current size ${r.body.sizeGb ?? '10'} GB.`);
    }
    return this.#d.writes.update(call, this.kind, r, { ...r.body, sizeGb }, 'resize');
  }

  async createSnapshot(call: ComputeCall): Promise<WireOperation> {
    const body = readResourceBody('Snapshot', 'snapshot_resource', call.body);
    const r = await this.#d.reader.find(call, this.kind, 'disk');
    const snapshot = snapshotOf(body, r, call.project.projectId);
    const name = String(snapshot.name);
    if (await this.#d.resources.nameTaken(this.#d.store.db, SNAPSHOTS.kind, call.project.projectNumber, GLOBAL, name)) throw alreadyExists(`projects/${call.project.projectId}/global/snapshots/${name}`);
    const zone = zoneOf(r.scope);
    return this.#d.operations.start<SnapshotData>(call, {
      kind: 'compute.disks.createSnapshot',
      scope: r.scope,
      operationType: 'createSnapshot',
      targetLink: LINK_BASE + diskPath(call.project.projectId, zone, r.name),
      targetId: r.id,
      data: { name, body: snapshot },
    });
  }

  async delete(call: ComputeCall): Promise<WireOperation> {
    const r = await this.#d.reader.find(call, this.kind, 'disk');
    const users = (r.body.users ?? []) as string[];
    if (users.length) throw resourceInUse('disk', diskPath(call.project.projectId, zoneOf(r.scope), r.name), users[0].replace(LINK_BASE, ''));
    return this.#d.writes.delete(call, this.kind, r);
  }

  getSnapshot = (call: ComputeCall) => this.#d.reader.get(call, this.snapshots, 'snapshot');
  listSnapshots = (call: ComputeCall) => this.#d.reader.list(call, this.snapshots);

  async deleteSnapshot(call: ComputeCall): Promise<WireOperation> {
    return this.#d.writes.delete(call, this.snapshots, await this.#d.reader.find(call, this.snapshots, 'snapshot'));
  }
}
