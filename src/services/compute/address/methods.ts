import type { ComputeMethod } from '../methods.ts';
import type { Addresses } from './service.ts';

/** `addresses` (regional) and `globalAddresses`: insert, get, list, delete, and the regional aggregatedList; one set of handlers. */
export function addressMethods(a: Addresses): ComputeMethod[] {
  const collections = [
    ['addresses', 'projects/{project}/regions/{region}/addresses'],
    ['globalAddresses', 'projects/{project}/global/addresses'],
  ] as const;
  return [
    ...collections.flatMap(([resource, C]): ComputeMethod[] => [
      { id: `compute.${resource}.insert`, verb: 'POST', path: C, permission: `compute.${resource}.create`, query: 'requestId', handler: (c) => a.insert(c) },
      { id: `compute.${resource}.get`, verb: 'GET', path: `${C}/{address}`, permission: `compute.${resource}.get`, handler: a.get },
      { id: `compute.${resource}.list`, verb: 'GET', path: C, permission: `compute.${resource}.list`, query: 'list', handler: a.list },
      { id: `compute.${resource}.delete`, verb: 'DELETE', path: `${C}/{address}`, permission: `compute.${resource}.delete`, query: 'requestId', handler: (c) => a.delete(c) },
    ]),
    { id: 'compute.addresses.aggregatedList', verb: 'GET', path: 'projects/{project}/aggregated/addresses', permission: 'compute.addresses.list', query: 'aggregated', handler: a.aggregatedList },
  ];
}
