import { Type } from '@sinclair/typebox';
import type { ComputeMethod } from '../methods.ts';
import { GLOBAL } from '../scope.ts';
import { type InstanceTemplates, templatePolicyPath } from './service.ts';

const PolicyQuery = Type.Object({ optionsRequestedPolicyVersion: Type.Optional(Type.Integer({ protoType: 'TYPE_INT32' })) }, { additionalProperties: false });

/** A global template's own policy grants too (get, delete and its IAM methods). */
const policyOf = (param: string) => (params: Readonly<Record<string, string>>) => templatePolicyPath(GLOBAL, params[param]);

/** `instanceTemplates` (global) and `regionInstanceTemplates`: one set of handlers, the scope a value. */
export function instanceTemplateMethods(t: InstanceTemplates): ComputeMethod[] {
  const G = 'projects/{project}/global/instanceTemplates';
  const R = 'projects/{project}/regions/{region}/instanceTemplates';
  return [
    { id: 'compute.instanceTemplates.insert', verb: 'POST', path: G, permission: 'compute.instanceTemplates.create', query: 'requestId', handler: (c) => t.insert(c) },
    { id: 'compute.instanceTemplates.get', verb: 'GET', path: `${G}/{instanceTemplate}`, permission: 'compute.instanceTemplates.get', policyPath: policyOf('instanceTemplate'), handler: (c) => t.get(c) },
    { id: 'compute.instanceTemplates.list', verb: 'GET', path: G, permission: 'compute.instanceTemplates.list', query: 'list', handler: (c) => t.list(c) },
    {
      id: 'compute.instanceTemplates.delete', verb: 'DELETE', path: `${G}/{instanceTemplate}`, permission: 'compute.instanceTemplates.delete', query: 'requestId', policyPath: policyOf('instanceTemplate'),
      handler: (c) => t.delete(c),
    },
    {
      id: 'compute.instanceTemplates.getIamPolicy', verb: 'GET', path: `${G}/{resource}/getIamPolicy`, permission: 'compute.instanceTemplates.getIamPolicy', query: PolicyQuery, policyPath: policyOf('resource'),
      handler: (c) => t.getIamPolicy(c),
    },
    { id: 'compute.instanceTemplates.setIamPolicy', verb: 'POST', path: `${G}/{resource}/setIamPolicy`, permission: 'compute.instanceTemplates.setIamPolicy', policyPath: policyOf('resource'), handler: (c) => t.setIamPolicy(c) },
    // Needs no permission: it answers which of the asked ones the caller holds.
    { id: 'compute.instanceTemplates.testIamPermissions', verb: 'POST', path: `${G}/{resource}/testIamPermissions`, permission: null, read: true, handler: (c) => t.testIamPermissions(c) },
    { id: 'compute.instanceTemplates.aggregatedList', verb: 'GET', path: 'projects/{project}/aggregated/instanceTemplates', permission: 'compute.instanceTemplates.list', query: 'aggregated', handler: (c) => t.aggregatedList(c) },
    { id: 'compute.regionInstanceTemplates.insert', verb: 'POST', path: R, permission: 'compute.instanceTemplates.create', query: 'requestId', handler: (c) => t.insert(c) },
    { id: 'compute.regionInstanceTemplates.get', verb: 'GET', path: `${R}/{instanceTemplate}`, permission: 'compute.instanceTemplates.get', handler: (c) => t.get(c) },
    { id: 'compute.regionInstanceTemplates.list', verb: 'GET', path: R, permission: 'compute.instanceTemplates.list', query: 'list', handler: (c) => t.list(c) },
    { id: 'compute.regionInstanceTemplates.delete', verb: 'DELETE', path: `${R}/{instanceTemplate}`, permission: 'compute.instanceTemplates.delete', query: 'requestId', handler: (c) => t.delete(c) },
  ];
}
