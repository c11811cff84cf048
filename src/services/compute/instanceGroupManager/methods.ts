import { Type } from '@sinclair/typebox';
import type { ComputeMethod } from '../methods.ts';
import type { InstanceGroupManagers } from './service.ts';

const closed = { additionalProperties: false } as const;
const ResizeQuery = Type.Object({ requestId: Type.Optional(Type.String({ maxLength: 200 })), size: Type.Optional(Type.Integer({ protoType: 'TYPE_INT32' })) }, closed);
const DeleteQuery = Type.Object({ requestId: Type.Optional(Type.String({ maxLength: 200 })), noGracefulShutdown: Type.Optional(Type.Boolean()) }, closed);
const ListInstancesQuery = Type.Object(
  {
    filter: Type.Optional(Type.String({ maxLength: 4096 })),
    maxResults: Type.Optional(Type.Integer({ protoType: 'TYPE_UINT32' })),
    orderBy: Type.Optional(Type.String({ maxLength: 200 })),
    pageToken: Type.Optional(Type.String({ maxLength: 4096 })),
    returnPartialSuccess: Type.Optional(Type.Boolean()),
  },
  closed,
);

/**
 * `instanceGroupManagers` (zonal) and `regionInstanceGroupManagers`: insert, get, list, delete,
 * resize, listManagedInstances, setInstanceTemplate, patch, deleteInstances, abandonInstances,
 * recreateInstances, createInstances, applyUpdatesToInstances, and the zonal aggregatedList
 * covering both.
 */
export function instanceGroupManagerMethods(g: InstanceGroupManagers): ComputeMethod[] {
  const rows = (resource: string, scope: string): ComputeMethod[] => {
    const C = `projects/{project}/${scope}/instanceGroupManagers`;
    const R = `${C}/{instanceGroupManager}`;
    const id = (m: string) => `compute.${resource}.${m}`;
    return [
      { id: id('insert'), verb: 'POST', path: C, permission: 'compute.instanceGroupManagers.create', query: 'requestId', handler: (c) => g.insert(c) },
      { id: id('get'), verb: 'GET', path: R, permission: 'compute.instanceGroupManagers.get', handler: (c) => g.get(c) },
      { id: id('list'), verb: 'GET', path: C, permission: 'compute.instanceGroupManagers.list', query: 'list', handler: (c) => g.list(c) },
      { id: id('delete'), verb: 'DELETE', path: R, permission: 'compute.instanceGroupManagers.delete', query: DeleteQuery, handler: (c) => g.delete(c) },
      { id: id('resize'), verb: 'POST', path: `${R}/resize`, permission: 'compute.instanceGroupManagers.update', query: ResizeQuery, handler: (c) => g.resize(c) },
      { id: id('listManagedInstances'), verb: 'POST', path: `${R}/listManagedInstances`, permission: 'compute.instanceGroupManagers.get', query: ListInstancesQuery, read: true, handler: (c) => g.listManagedInstances(c) },
      { id: id('setInstanceTemplate'), verb: 'POST', path: `${R}/setInstanceTemplate`, permission: 'compute.instanceGroupManagers.update', query: 'requestId', handler: (c) => g.setInstanceTemplate(c) },
      { id: id('patch'), verb: 'PATCH', path: R, permission: 'compute.instanceGroupManagers.update', query: 'requestId', handler: (c) => g.patch(c) },
      { id: id('deleteInstances'), verb: 'POST', path: `${R}/deleteInstances`, permission: 'compute.instanceGroupManagers.update', query: 'requestId', handler: (c) => g.actOnInstances(c, 'DELETING') },
      { id: id('abandonInstances'), verb: 'POST', path: `${R}/abandonInstances`, permission: 'compute.instanceGroupManagers.update', query: 'requestId', handler: (c) => g.actOnInstances(c, 'ABANDONING') },
      { id: id('recreateInstances'), verb: 'POST', path: `${R}/recreateInstances`, permission: 'compute.instanceGroupManagers.update', query: 'requestId', handler: (c) => g.actOnInstances(c, 'RECREATING') },
      { id: id('createInstances'), verb: 'POST', path: `${R}/createInstances`, permission: 'compute.instanceGroupManagers.update', query: 'requestId', handler: (c) => g.createInstances(c) },
      { id: id('applyUpdatesToInstances'), verb: 'POST', path: `${R}/applyUpdatesToInstances`, permission: 'compute.instanceGroupManagers.update', query: 'none', handler: (c) => g.applyUpdatesToInstances(c) },
    ];
  };
  return [
    ...rows('instanceGroupManagers', 'zones/{zone}'),
    {
      id: 'compute.instanceGroupManagers.aggregatedList', verb: 'GET', path: 'projects/{project}/aggregated/instanceGroupManagers', permission: 'compute.instanceGroupManagers.list', query: 'aggregated',
      handler: (c) => g.aggregatedList(c),
    },
    ...rows('regionInstanceGroupManagers', 'regions/{region}'),
    // The instance groups they make, read only (gcloud's `managed list` reads their sizes).
    ...(['instanceGroups', 'regionInstanceGroups'] as const).flatMap((resource): ComputeMethod[] => {
      const C = `projects/{project}/${resource === 'instanceGroups' ? 'zones/{zone}' : 'regions/{region}'}/instanceGroups`;
      return [
        { id: `compute.${resource}.get`, verb: 'GET', path: `${C}/{instanceGroup}`, permission: 'compute.instanceGroups.get', handler: (c) => g.instanceGroups(c, 'get') },
        { id: `compute.${resource}.list`, verb: 'GET', path: C, permission: 'compute.instanceGroups.list', query: 'list', handler: (c) => g.instanceGroups(c, 'list') },
      ];
    }),
    {
      id: 'compute.instanceGroups.aggregatedList', verb: 'GET', path: 'projects/{project}/aggregated/instanceGroups', permission: 'compute.instanceGroups.list', query: 'aggregated',
      handler: (c) => g.instanceGroups(c, 'aggregatedList'),
    },
  ];
}
