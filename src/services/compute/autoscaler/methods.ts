import { Type } from '@sinclair/typebox';
import type { ComputeMethod } from '../methods.ts';
import type { Autoscalers } from './service.ts';

/** patch and update name the autoscaler in the query (or in the body). */
const ChangeQuery = Type.Object(
  { requestId: Type.Optional(Type.String({ maxLength: 200 })), autoscaler: Type.Optional(Type.String({ maxLength: 63 })) },
  { additionalProperties: false },
);

/** `autoscalers` (zonal) and `regionAutoscalers`: insert, get, list, patch, update, delete, and the zonal aggregatedList covering both. */
export function autoscalerMethods(a: Autoscalers): ComputeMethod[] {
  const rows = (resource: string, scope: string): ComputeMethod[] => {
    const C = `projects/{project}/${scope}/autoscalers`;
    const id = (m: string) => `compute.${resource}.${m}`;
    return [
      { id: id('insert'), verb: 'POST', path: C, permission: 'compute.autoscalers.create', query: 'requestId', handler: (c) => a.insert(c) },
      { id: id('get'), verb: 'GET', path: `${C}/{autoscaler}`, permission: 'compute.autoscalers.get', handler: (c) => a.get(c) },
      { id: id('list'), verb: 'GET', path: C, permission: 'compute.autoscalers.list', query: 'list', handler: (c) => a.list(c) },
      { id: id('patch'), verb: 'PATCH', path: C, permission: 'compute.autoscalers.update', query: ChangeQuery, handler: (c) => a.change(c, false) },
      { id: id('update'), verb: 'PUT', path: C, permission: 'compute.autoscalers.update', query: ChangeQuery, handler: (c) => a.change(c, true) },
      { id: id('delete'), verb: 'DELETE', path: `${C}/{autoscaler}`, permission: 'compute.autoscalers.delete', query: 'requestId', handler: (c) => a.delete(c) },
    ];
  };
  return [
    ...rows('autoscalers', 'zones/{zone}'),
    { id: 'compute.autoscalers.aggregatedList', verb: 'GET', path: 'projects/{project}/aggregated/autoscalers', permission: 'compute.autoscalers.list', query: 'aggregated', handler: (c) => a.aggregatedList(c) },
    ...rows('regionAutoscalers', 'regions/{region}'),
  ];
}
