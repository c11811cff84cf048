import type { ComputeMethod } from '../methods.ts';
import type { Networks } from './service.ts';

/** `networks`: insert, get, list, patch, switchToCustomMode, delete. */
export function networkMethods(n: Networks): ComputeMethod[] {
  const C = 'projects/{project}/global/networks';
  return [
    { id: 'compute.networks.insert', verb: 'POST', path: C, permission: 'compute.networks.create', query: 'requestId', handler: (c) => n.insert(c) },
    { id: 'compute.networks.get', verb: 'GET', path: `${C}/{network}`, permission: 'compute.networks.get', handler: (c) => n.get(c) },
    { id: 'compute.networks.list', verb: 'GET', path: C, permission: 'compute.networks.list', query: 'list', handler: (c) => n.list(c) },
    { id: 'compute.networks.patch', verb: 'PATCH', path: `${C}/{network}`, permission: 'compute.networks.update', query: 'requestId', handler: (c) => n.patch(c) },
    { id: 'compute.networks.switchToCustomMode', verb: 'POST', path: `${C}/{network}/switchToCustomMode`, permission: 'compute.networks.switchToCustomMode', query: 'requestId', handler: (c) => n.switchToCustomMode(c) },
    { id: 'compute.networks.delete', verb: 'DELETE', path: `${C}/{network}`, permission: 'compute.networks.delete', query: 'requestId', handler: (c) => n.delete(c) },
  ];
}
