import { Type } from '@sinclair/typebox';
import type { ComputeMethod } from '../methods.ts';
import type { Subnetworks } from './service.ts';

const PatchQuery = Type.Object(
  { requestId: Type.Optional(Type.String({ maxLength: 200 })), drainTimeoutSeconds: Type.Optional(Type.Integer({ protoType: 'TYPE_INT32' })) },
  { additionalProperties: false },
);

/** `subnetworks`: insert, get, list, aggregatedList, patch, expandIpCidrRange, setPrivateIpGoogleAccess, delete. */
export function subnetworkMethods(s: Subnetworks): ComputeMethod[] {
  const C = 'projects/{project}/regions/{region}/subnetworks';
  return [
    { id: 'compute.subnetworks.insert', verb: 'POST', path: C, permission: 'compute.subnetworks.create', query: 'requestId', handler: (c) => s.insert(c) },
    { id: 'compute.subnetworks.get', verb: 'GET', path: `${C}/{subnetwork}`, permission: 'compute.subnetworks.get', handler: (c) => s.get(c) },
    { id: 'compute.subnetworks.list', verb: 'GET', path: C, permission: 'compute.subnetworks.list', query: 'list', handler: (c) => s.list(c) },
    { id: 'compute.subnetworks.aggregatedList', verb: 'GET', path: 'projects/{project}/aggregated/subnetworks', permission: 'compute.subnetworks.list', query: 'aggregated', handler: (c) => s.aggregatedList(c) },
    { id: 'compute.subnetworks.patch', verb: 'PATCH', path: `${C}/{subnetwork}`, permission: 'compute.subnetworks.update', query: PatchQuery, handler: (c) => s.patch(c) },
    {
      id: 'compute.subnetworks.expandIpCidrRange', verb: 'POST', path: `${C}/{subnetwork}/expandIpCidrRange`, permission: 'compute.subnetworks.expandIpCidrRange', query: 'requestId',
      handler: (c) => s.expandIpCidrRange(c),
    },
    {
      id: 'compute.subnetworks.setPrivateIpGoogleAccess', verb: 'POST', path: `${C}/{subnetwork}/setPrivateIpGoogleAccess`, permission: 'compute.subnetworks.setPrivateIpGoogleAccess', query: 'requestId',
      handler: (c) => s.setPrivateIpGoogleAccess(c),
    },
    { id: 'compute.subnetworks.delete', verb: 'DELETE', path: `${C}/{subnetwork}`, permission: 'compute.subnetworks.delete', query: 'requestId', handler: (c) => s.delete(c) },
  ];
}
