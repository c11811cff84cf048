import { Type } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ApiMethod } from '../../../platform/auth/authenticator.ts';
import { sendError } from '../../../platform/http/envelope.ts';
import { ApiError } from '../../../platform/http/errors.ts';
import { transcodingErrorStyle } from '../errors.ts';
import { CLOUD_PLATFORM, CLOUD_PLATFORM_READ_ONLY, COMPUTE, COMPUTE_READ_ONLY } from '../../../platform/auth/scopes.ts';
import { BASE_PATH, SERVICE } from '../names.ts';

const WRITE = [COMPUTE, CLOUD_PLATFORM] as const;
const READ = [COMPUTE, CLOUD_PLATFORM, COMPUTE_READ_ONLY, CLOUD_PLATFORM_READ_ONLY] as const;

/** The route config of one Compute method: its name (also its discovery id), its OAuth scopes and Compute's error envelope. */
export function computeMethod(method: string, access: 'read' | 'write') {
  const api: ApiMethod = { service: SERVICE, method: `compute.${method}`, id: `compute.${method}`, scopes: access === 'read' ? READ : WRITE };
  return { api, envelope: 'compute' as const, bodyName: 'resource' };
}

export const REGION_PATH = `${BASE_PATH}/projects/:project/regions/:region`;
export const TEMPLATES_PATH = `${REGION_PATH}/instanceTemplates`;
export const OPERATIONS_PATH = `${REGION_PATH}/operations`;
export const GLOBAL_PATH = `${BASE_PATH}/projects/:project/global`;
export const GLOBAL_TEMPLATES_PATH = `${GLOBAL_PATH}/instanceTemplates`;
export const GLOBAL_OPERATIONS_PATH = `${GLOBAL_PATH}/operations`;

/** Path parameters are checked by their patterns in the service (400 invalidParameter naming them). */
const Param = Type.String({ maxLength: 500 });
export const RegionParams = Type.Object({ project: Param, region: Param });
export const TemplateParams = Type.Object({ project: Param, region: Param, instanceTemplate: Param });
export const OperationParams = Type.Object({ project: Param, region: Param, operation: Param });
export type RegionParamsT = { project: string; region: string };
export const ProjectParams = Type.Object({ project: Param });
export const GlobalTemplateParams = Type.Object({ project: Param, instanceTemplate: Param });
export const GlobalOperationParams = Type.Object({ project: Param, operation: Param });
/** The IAM methods name their resource `resource`. */
export const PolicyResourceParams = Type.Object({ project: Param, resource: Param });

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

/**
 * Runs an insert: JSON-transcoding errors are the front end's, answered with status and a
 * BadRequest detail beside errors[] (the `legacy` envelope); every other error as usual.
 */
export async function answeringTranscodingErrors<T>(reply: FastifyReply, run: () => Promise<T>): Promise<T | FastifyReply> {
  try {
    return await run();
  } catch (err) {
    const style = transcodingErrorStyle(err);
    if (!style) throw err;
    sendError(reply, err as ApiError, style);
    return reply;
  }
}

/**
 * The `wait` methods: the body is empty or the JSON string `""`; the wait stops when the client
 * hangs up (the response's `close` before it is sent means exactly that).
 */
export function waitSignal(req: FastifyRequest, reply: FastifyReply): AbortSignal {
  const b = req.body;
  const empty = b === undefined || b === null || b === '' || (typeof b === 'object' && !Array.isArray(b) && Object.keys(b).length === 0);
  if (!empty) throw new ApiError({ status: 'INVALID_ARGUMENT', message: 'Invalid JSON payload received. The wait method takes no request body.' });
  const aborted = new AbortController();
  reply.raw.once('close', () => aborted.abort());
  return aborted.signal;
}
