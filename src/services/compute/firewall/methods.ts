import type { ComputeMethod } from '../methods.ts';
import type { Firewalls } from './service.ts';

/** `firewalls`: insert, get, list, patch, update, delete. */
export function firewallMethods(f: Firewalls): ComputeMethod[] {
  const C = 'projects/{project}/global/firewalls';
  return [
    { id: 'compute.firewalls.insert', verb: 'POST', path: C, permission: 'compute.firewalls.create', query: 'requestId', handler: (c) => f.insert(c) },
    { id: 'compute.firewalls.get', verb: 'GET', path: `${C}/{firewall}`, permission: 'compute.firewalls.get', handler: (c) => f.get(c) },
    { id: 'compute.firewalls.list', verb: 'GET', path: C, permission: 'compute.firewalls.list', query: 'list', handler: (c) => f.list(c) },
    { id: 'compute.firewalls.patch', verb: 'PATCH', path: `${C}/{firewall}`, permission: 'compute.firewalls.update', query: 'requestId', handler: (c) => f.change(c, false) },
    { id: 'compute.firewalls.update', verb: 'PUT', path: `${C}/{firewall}`, permission: 'compute.firewalls.update', query: 'requestId', handler: (c) => f.change(c, true) },
    { id: 'compute.firewalls.delete', verb: 'DELETE', path: `${C}/{firewall}`, permission: 'compute.firewalls.delete', query: 'requestId', handler: (c) => f.delete(c) },
  ];
}
