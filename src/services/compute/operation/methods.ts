import type { ComputeMethod } from '../methods.ts';
import type { ComputeOperations } from './service.ts';

/** The operations of each scope: `globalOperations`, `regionOperations`, `zoneOperations` (one set of handlers), and the aggregated list. */
export function operationMethods(ops: ComputeOperations): ComputeMethod[] {
  const scopes = [
    ['globalOperations', 'projects/{project}/global/operations'],
    ['regionOperations', 'projects/{project}/regions/{region}/operations'],
    ['zoneOperations', 'projects/{project}/zones/{zone}/operations'],
  ] as const;
  return [
    ...scopes.flatMap(([resource, collection]): ComputeMethod[] => [
      { id: `compute.${resource}.get`, verb: 'GET', path: `${collection}/{operation}`, permission: `compute.${resource}.get`, handler: (c) => ops.get(c) },
      { id: `compute.${resource}.list`, verb: 'GET', path: collection, permission: `compute.${resource}.list`, query: 'list', handler: (c) => ops.list(c) },
      { id: `compute.${resource}.delete`, verb: 'DELETE', path: `${collection}/{operation}`, permission: `compute.${resource}.delete`, noContent: true, handler: (c) => ops.delete(c) },
      { id: `compute.${resource}.wait`, verb: 'POST', path: `${collection}/{operation}/wait`, permission: `compute.${resource}.get`, read: true, waits: true, handler: (c) => ops.wait(c) },
    ]),
    { id: 'compute.globalOperations.aggregatedList', verb: 'GET', path: 'projects/{project}/aggregated/operations', permission: 'compute.globalOperations.list', query: 'aggregated', handler: (c) => ops.aggregatedList(c) },
  ];
}
