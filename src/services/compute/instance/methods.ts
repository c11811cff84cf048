import { Type } from '@sinclair/typebox';
import type { ComputeMethod } from '../methods.ts';
import type { Instances } from './service.ts';

const closed = { additionalProperties: false } as const;
const RequestId = Type.Optional(Type.String({ maxLength: 200 }));
const InsertQuery = Type.Object({ requestId: RequestId, sourceInstanceTemplate: Type.Optional(Type.String({ maxLength: 2048 })), sourceMachineImage: Type.Optional(Type.String({ maxLength: 2048 })) }, closed);
const DeleteQuery = Type.Object({ requestId: RequestId, noGracefulShutdown: Type.Optional(Type.Boolean()) }, closed);
const StopQuery = Type.Object({ requestId: RequestId, noGracefulShutdown: Type.Optional(Type.Boolean()), discardLocalSsd: Type.Optional(Type.Boolean()) }, closed);

/** `instances` (zonal): insert, get, list, aggregatedList, start, stop, reset, setLabels, setMetadata, setTags, delete. */
export function instanceMethods(i: Instances): ComputeMethod[] {
  const C = 'projects/{project}/zones/{zone}/instances';
  const I = `${C}/{instance}`;
  return [
    { id: 'compute.instances.insert', verb: 'POST', path: C, permission: 'compute.instances.create', query: InsertQuery, handler: (c) => i.insert(c) },
    { id: 'compute.instances.get', verb: 'GET', path: I, permission: 'compute.instances.get', handler: i.get },
    { id: 'compute.instances.list', verb: 'GET', path: C, permission: 'compute.instances.list', query: 'list', handler: i.list },
    { id: 'compute.instances.aggregatedList', verb: 'GET', path: 'projects/{project}/aggregated/instances', permission: 'compute.instances.list', query: 'aggregated', handler: i.aggregatedList },
    { id: 'compute.instances.start', verb: 'POST', path: `${I}/start`, permission: 'compute.instances.start', query: 'requestId', handler: (c) => i.start(c) },
    { id: 'compute.instances.stop', verb: 'POST', path: `${I}/stop`, permission: 'compute.instances.stop', query: StopQuery, handler: (c) => i.stop(c) },
    { id: 'compute.instances.reset', verb: 'POST', path: `${I}/reset`, permission: 'compute.instances.reset', query: 'requestId', handler: (c) => i.reset(c) },
    { id: 'compute.instances.setLabels', verb: 'POST', path: `${I}/setLabels`, permission: 'compute.instances.setLabels', query: 'requestId', handler: (c) => i.setLabels(c) },
    { id: 'compute.instances.setMetadata', verb: 'POST', path: `${I}/setMetadata`, permission: 'compute.instances.setMetadata', query: 'requestId', handler: (c) => i.setMetadata(c) },
    { id: 'compute.instances.setTags', verb: 'POST', path: `${I}/setTags`, permission: 'compute.instances.setTags', query: 'requestId', handler: (c) => i.setTags(c) },
    { id: 'compute.instances.delete', verb: 'DELETE', path: I, permission: 'compute.instances.delete', query: DeleteQuery, handler: (c) => i.delete(c) },
  ];
}
