import { Type } from '@sinclair/typebox';
import type { ComputeMethod } from '../methods.ts';
import type { Disks } from './service.ts';

const closed = { additionalProperties: false } as const;
const InsertQuery = Type.Object({ requestId: Type.Optional(Type.String({ maxLength: 200 })), sourceImage: Type.Optional(Type.String({ maxLength: 2048 })) }, closed);
const SnapshotQuery = Type.Object({ requestId: Type.Optional(Type.String({ maxLength: 200 })), guestFlush: Type.Optional(Type.Boolean()) }, closed);

/** `disks` (zonal): insert, get, list, aggregatedList, resize, createSnapshot, delete; `snapshots`: get, list, delete. */
export function diskMethods(d: Disks): ComputeMethod[] {
  const C = 'projects/{project}/zones/{zone}/disks';
  const S = 'projects/{project}/global/snapshots';
  return [
    { id: 'compute.disks.insert', verb: 'POST', path: C, permission: 'compute.disks.create', query: InsertQuery, handler: (c) => d.insert(c) },
    { id: 'compute.disks.get', verb: 'GET', path: `${C}/{disk}`, permission: 'compute.disks.get', handler: d.get },
    { id: 'compute.disks.list', verb: 'GET', path: C, permission: 'compute.disks.list', query: 'list', handler: d.list },
    { id: 'compute.disks.aggregatedList', verb: 'GET', path: 'projects/{project}/aggregated/disks', permission: 'compute.disks.list', query: 'aggregated', handler: d.aggregatedList },
    { id: 'compute.disks.resize', verb: 'POST', path: `${C}/{disk}/resize`, permission: 'compute.disks.resize', query: 'requestId', handler: (c) => d.resize(c) },
    { id: 'compute.disks.createSnapshot', verb: 'POST', path: `${C}/{disk}/createSnapshot`, permission: 'compute.disks.createSnapshot', query: SnapshotQuery, handler: (c) => d.createSnapshot(c) },
    { id: 'compute.disks.delete', verb: 'DELETE', path: `${C}/{disk}`, permission: 'compute.disks.delete', query: 'requestId', handler: (c) => d.delete(c) },
    { id: 'compute.snapshots.get', verb: 'GET', path: `${S}/{snapshot}`, permission: 'compute.snapshots.get', handler: d.getSnapshot },
    { id: 'compute.snapshots.list', verb: 'GET', path: S, permission: 'compute.snapshots.list', query: 'list', handler: d.listSnapshots },
    { id: 'compute.snapshots.delete', verb: 'DELETE', path: `${S}/{snapshot}`, permission: 'compute.snapshots.delete', query: 'requestId', handler: (c) => d.deleteSnapshot(c) },
  ];
}
