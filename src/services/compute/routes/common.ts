import { Type } from '@sinclair/typebox';
import type { ApiMethod } from '../../../platform/auth/authenticator.ts';
import { CLOUD_PLATFORM, CLOUD_PLATFORM_READ_ONLY, COMPUTE, COMPUTE_READ_ONLY } from '../../../platform/auth/scopes.ts';
import { BASE_PATH, SERVICE } from '../names.ts';

const WRITE = [COMPUTE, CLOUD_PLATFORM] as const;
const READ = [COMPUTE, CLOUD_PLATFORM, COMPUTE_READ_ONLY, CLOUD_PLATFORM_READ_ONLY] as const;

/** The route config of one Compute method: its name, its OAuth scopes and Compute's error envelope. */
export function computeMethod(method: string, access: 'read' | 'write') {
  const api: ApiMethod = { service: SERVICE, method: `compute.${method}`, scopes: access === 'read' ? READ : WRITE };
  return { api, envelope: 'compute' as const, bodyName: 'resource' };
}

export const REGION_PATH = `${BASE_PATH}/projects/:project/regions/:region`;
export const TEMPLATES_PATH = `${REGION_PATH}/instanceTemplates`;
export const OPERATIONS_PATH = `${REGION_PATH}/operations`;

/** Path parameters are checked by their patterns in the service (400 invalidParameter naming them). */
const Param = Type.String({ maxLength: 500 });
export const RegionParams = Type.Object({ project: Param, region: Param });
export const TemplateParams = Type.Object({ project: Param, region: Param, instanceTemplate: Param });
export const OperationParams = Type.Object({ project: Param, region: Param, operation: Param });
export type RegionParamsT = { project: string; region: string };

/** Unknown query parameters are refused by name, as Google's front end does (system parameters are taken out first). */
const closed = { additionalProperties: false } as const;
export const NoQuery = Type.Object({}, closed);
export const RequestIdQuery = Type.Object({ requestId: Type.Optional(Type.String({ maxLength: 200 })) }, closed);

/** The parameters every list method takes (`maxResults` is a uint32 in the proto: out-of-range values get that type's message). */
export const ListQuery = Type.Object({
  filter: Type.Optional(Type.String({ maxLength: 4096 })),
  maxResults: Type.Optional(Type.Integer({ protoType: 'TYPE_UINT32' })),
  orderBy: Type.Optional(Type.String({ maxLength: 200 })),
  pageToken: Type.Optional(Type.String({ maxLength: 4096 })),
  returnPartialSuccess: Type.Optional(Type.Boolean()),
}, closed);
export const AggregatedQuery = Type.Object({
  filter: Type.Optional(Type.String({ maxLength: 4096 })),
  maxResults: Type.Optional(Type.Integer({ protoType: 'TYPE_UINT32' })),
  orderBy: Type.Optional(Type.String({ maxLength: 200 })),
  pageToken: Type.Optional(Type.String({ maxLength: 4096 })),
  returnPartialSuccess: Type.Optional(Type.Boolean()),
  includeAllScopes: Type.Optional(Type.Boolean()),
  serviceProjectNumber: Type.Optional(Type.String({ maxLength: 30 })),
}, closed);
