/**
 * Compute's method tables: how every Compute v1 method is declared, and the one place that turns
 * the declarations into routes.
 *
 * THE SHAPE (follow it for every new kind)
 * - Each resource kind has a folder of its own (`network/`, `instanceTemplate/`, `operation/`, ...)
 *   holding its rules (validation, defaults), its service (the methods' logic: no HTTP) and its
 *   method table `methods.ts`: one `ComputeMethod` per discovery method, naming its discovery id
 *   (`compute.networks.insert`, as `../shared/discovery/compute.v1.json` writes it), HTTP verb, path
 *   (the discovery document's, below `compute/v1/`), the IAM permission Compute documents for it,
 *   its query parameters and its handler. A kind with a zonal and a regional collection (disks,
 *   instanceGroupManagers) lists both methods' rows and shares one handler: the scope is a value.
 * - `registerComputeMethods` makes each row a route: the path's parameters checked against their
 *   patterns (400 invalidParameter), the scope read from the path (`{region}`, `{zone}` or
 *   `global`: a `Scope`, never a string), the project and the permission checked (an unknown
 *   project answers like a denied one; an unknown region or zone is 404 only once allowed), a
 *   repeated `requestId` answered with its first operation, then the handler. The discovery id
 *   is the route's `config.api.id`: what the journal records, fault rules match and metrics label.
 *   Tables are plain arrays: registering them parses no discovery document (a unit test checks
 *   every row against it instead).
 * - Resources live in ONE store, `compute_resources` (store/resources.ts: kind, project number,
 *   location, name, id, creation time, the resource's JSON). The world document's `compute`
 *   section writes its entries there as ordinary resources (world.ts), so the API may patch or
 *   delete them; snapshot/restore and reset cover the table like every other. A kind that the
 *   world declares renders stored entries with its defaults on read (`present`); what the API
 *   writes is stored whole, as answered.
 * - Writes run as operations (operation/service.ts `ComputeOperations.start`): the operation's
 *   index row, the operation and, in instant mode, its completion commit together; in delayed mode
 *   the completion runs when the twin's clock reaches it. A kind registers its completions with
 *   `ComputeOperations.register` (the engine's kind names: `compute.networks.insert`, ...); a
 *   completion reads and writes through the transaction it is given, and answers a failure
 *   (operation `error`) or nothing.
 * - Lists (`list`, `aggregatedList`) page through the store in SQL with the filter, orderBy,
 *   maxResults and pageToken rules of listPage.ts (store/kind.ts `storedKindMethods` gives a kind
 *   its get / list / aggregatedList rows).
 * - A resource still used by another (a network by a subnetwork, firewall, instance or template;
 *   a template by a managed instance group) is found with `ResourceStore.mentioning` and refused
 *   with `resourceInUse` (errors.ts): 400 resourceInUseByAnotherResource.
 *
 * To add a kind: a folder with `rules.ts`, `service.ts` and `methods.ts`; its `ResourceKind`
 * (store/kind.ts) if it is read generically; its table added to `createCompute` (index.ts).
 */
import { Type, type TSchema } from '@sinclair/typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ApiMethod } from '../../platform/auth/authenticator.ts';
import type { Principal } from '../../platform/auth/principal.ts';
import { CLOUD_PLATFORM, CLOUD_PLATFORM_READ_ONLY, COMPUTE, COMPUTE_READ_ONLY } from '../../platform/auth/scopes.ts';
import { sendError } from '../../platform/http/envelope.ts';
import { ApiError } from '../../platform/http/errors.ts';
import type { ProjectRecord } from '../../platform/iam/directory.ts';
import { type ComputeAccess, authorizeCompute } from './access.ts';
import { invalidParameter, resourceNotFound, transcodingErrorStyle } from './errors.ts';
import { BASE_PATH, IMAGE_PATTERN, OPERATION_PATTERN, PROJECT_PATTERN, REGION_PATTERN, RESOURCE_PATTERN, SERVICE } from './names.ts';
import { GLOBAL, type Scope, inRegion, inZone, parentPath, scopePath } from './scope.ts';

export type HttpVerb = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** What a handler is given: the authorized call, with HTTP left behind. */
export interface ComputeCall {
  principal: Principal;
  /** The path's project as the caller wrote it (id or number): messages name what was sent. */
  projectParam: string;
  /** The project, once authorized (a method without a permission, or an open one: its id as written and no number). */
  project: ProjectRecord;
  /** The scope the path names; GLOBAL when it names none (aggregated lists, `projects/P/regions`). */
  scope: Scope;
  /** Every path parameter, checked against its pattern. */
  params: Readonly<Record<string, string>>;
  query: Readonly<Record<string, any>>;
  body: unknown;
  /** The `requestId` (lower case), if one was given: no earlier operation has it. */
  requestId: string | null;
  /** The resource the call was authorized on, as the caller wrote it (`projects/P/global/networks/n`): what not-found messages name. */
  path: string;
  /** `wait` methods: aborted when the client hangs up. */
  signal?: AbortSignal;
}

/** One row of a method table. */
export interface ComputeMethod {
  /** The discovery method id: `compute.networks.insert`. */
  id: string;
  verb: HttpVerb;
  /** The discovery path below `compute/v1/`: `projects/{project}/global/networks/{network}`. */
  path: string;
  /** The IAM permission Compute documents for the method; null when the handler decides (testIamPermissions). */
  permission: string | null;
  /** Its query parameters: none, `requestId`, the list or aggregated-list ones, or a schema of its own. */
  query?: 'none' | 'requestId' | 'list' | 'aggregated' | TSchema;
  /** A POST that reads (wait, testIamPermissions): the read-only OAuth scopes suffice. */
  read?: true;
  /** `wait`: the body must be empty; the call gets a signal aborted when the client hangs up. */
  waits?: true;
  /** Answers 204 with no body (operations.delete). */
  noContent?: true;
  /** The resource whose own IAM policy also grants, below `projects/{number}` (a global template's). */
  policyPath?(params: Readonly<Record<string, string>>): string | undefined;
  /**
   * The path parameter naming the resource when it is also a scope's name (`regions.get`:
   * `{region}` is the region asked for, not a scope): checked as a name or id, and no scope.
   */
  resourceParam?: string;
  /** Readable by every authenticated principal in this project (the public image projects): no permission check. */
  open?(project: string): boolean;
  handler(call: ComputeCall): Promise<unknown>;
}

/** What registration needs beside the tables. */
export interface MethodContext extends ComputeAccess {
  /** The operation an earlier request with this requestId started, if any (validates the requestId). */
  earlierOperation(project: ProjectRecord, requestId: string): Promise<Record<string, unknown> | undefined>;
}

const WRITE_SCOPES = [COMPUTE, CLOUD_PLATFORM] as const;
const READ_SCOPES = [COMPUTE, CLOUD_PLATFORM, COMPUTE_READ_ONLY, CLOUD_PLATFORM_READ_ONLY] as const;

/** The route config of one Compute method: its discovery id, its OAuth scopes and Compute's error envelope. */
export function computeRouteConfig(id: string, access: 'read' | 'write') {
  const api: ApiMethod = { service: SERVICE, method: id, id, scopes: access === 'read' ? READ_SCOPES : WRITE_SCOPES };
  return { api, envelope: 'compute' as const, bodyName: 'resource' };
}

// ---- query parameters ------------------------------------------------------------------------

/** Unknown query parameters are refused by name, as Google's front end does (system parameters are taken out first). */
const closed = { additionalProperties: false } as const;
export const NoQuery = Type.Object({}, closed);
export const RequestIdQuery = Type.Object({ requestId: Type.Optional(Type.String({ maxLength: 200 })) }, closed);
const listFields = {
  filter: Type.Optional(Type.String({ maxLength: 4096 })),
  // a uint32 in the proto: out-of-range values get that type's message
  maxResults: Type.Optional(Type.Integer({ protoType: 'TYPE_UINT32' })),
  orderBy: Type.Optional(Type.String({ maxLength: 200 })),
  pageToken: Type.Optional(Type.String({ maxLength: 4096 })),
  returnPartialSuccess: Type.Optional(Type.Boolean()),
};
export const ListQuery = Type.Object(listFields, closed);
export const AggregatedQuery = Type.Object(
  { ...listFields, includeAllScopes: Type.Optional(Type.Boolean()), serviceProjectNumber: Type.Optional(Type.String({ maxLength: 30 })) },
  closed,
);
const QUERIES = { none: NoQuery, requestId: RequestIdQuery, list: ListQuery, aggregated: AggregatedQuery };

// ---- paths -----------------------------------------------------------------------------------

/** Path parameters are checked by their patterns (400 invalidParameter naming them), not by the schema. */
const Param = Type.String({ maxLength: 500 });
const PARAMS = new Map<string, TSchema>();
/** The params schema of a set of path parameters (one object per set: the validator is compiled once per set). */
function paramsSchema(names: readonly string[]): TSchema {
  const key = names.join(',');
  let s = PARAMS.get(key);
  if (!s) PARAMS.set(key, (s = Type.Object(Object.fromEntries(names.map((n) => [n, Param])))));
  return s;
}

const SCOPE_PARAMS = new Set(['project', 'region', 'zone']);
const PATTERN_OF: Record<string, RegExp> = { project: PROJECT_PATTERN, region: REGION_PATTERN, zone: REGION_PATTERN, operation: OPERATION_PATTERN, family: IMAGE_PATTERN };

/** What registration derives once from a method's path. */
interface PathShape {
  url: string;
  params: string[];
  /** The path's segments up to its resource parameter (the first beyond project / region / zone); undefined for collection methods. */
  resource?: string[];
  /** The collection's segments (collection methods). */
  collection: string[];
  /** Whether the path names a scope (`global`, `{region}`, `{zone}`); aggregated lists and `projects/P/regions` name none. */
  scoped: boolean;
  /** The parameter named by `resourceParam`, if any. */
  resourceParam?: string;
}

function shapeOf(path: string, resourceParam: string | undefined): PathShape {
  const segments = path.split('/');
  const params = segments.filter((s) => s.startsWith('{')).map((s) => s.slice(1, -1));
  const isScopeParam = (p: string) => SCOPE_PARAMS.has(p) && p !== resourceParam;
  const at = segments.findIndex((s) => s.startsWith('{') && !isScopeParam(s.slice(1, -1)));
  return {
    url: `${BASE_PATH}/${segments.map((s) => (s.startsWith('{') ? `:${s.slice(1, -1)}` : s)).join('/')}`,
    params,
    resource: at < 0 ? undefined : segments.slice(0, at + 1),
    collection: segments,
    scoped: segments[2] === 'global' || segments.slice(3).some((s) => s.startsWith('{') && isScopeParam(s.slice(1, -1))),
    resourceParam,
  };
}

const fill = (segments: readonly string[], params: Readonly<Record<string, string>>) => segments.map((s) => (s.startsWith('{') ? params[s.slice(1, -1)] : s)).join('/');

/** The scope a path names. A region called `global` is none (no region is: answered as an unknown region before anything is read). */
function scopeOf(shape: PathShape, params: Readonly<Record<string, string>>): Scope {
  if (!shape.scoped) return GLOBAL;
  if (params.zone !== undefined && shape.resourceParam !== 'zone') return inZone(params.zone);
  if (params.region !== undefined && shape.resourceParam !== 'region') {
    if (params.region === 'global') throw resourceNotFound(`projects/${params.project}/regions/global`);
    return inRegion(params.region);
  }
  return GLOBAL;
}

/** The resource a call is authorized on: the named resource, the one an insert names, or the collection's parent. */
function authorizedPath(m: ComputeMethod, shape: PathShape, params: Readonly<Record<string, string>>, scope: Scope, body: unknown): string {
  if (shape.resource) return fill(shape.resource, params);
  if (!shape.scoped) return `projects/${params.project}`;
  const name = m.verb === 'POST' && body && typeof body === 'object' ? (body as { name?: unknown }).name : undefined;
  if (typeof name === 'string' && name !== '') return `${fill(shape.collection, params)}/${name}`;
  return parentPath(params.project, scope);
}

/**
 * The `wait` methods: the body is empty or the JSON string `""`; the wait stops when the client
 * hangs up (the response's `close` before it is sent means exactly that).
 */
function waitSignal(req: FastifyRequest, reply: FastifyReply): AbortSignal {
  const b = req.body;
  const empty = b === undefined || b === null || b === '' || (typeof b === 'object' && !Array.isArray(b) && Object.keys(b).length === 0);
  if (!empty) throw new ApiError({ status: 'INVALID_ARGUMENT', message: 'Invalid JSON payload received. The wait method takes no request body.' });
  const aborted = new AbortController();
  reply.raw.once('close', () => aborted.abort());
  return aborted.signal;
}

/** Mounts method tables: one route per row (see the top of this file). */
export function registerComputeMethods(app: FastifyInstance, methods: Iterable<ComputeMethod>, ctx: MethodContext): void {
  for (const m of methods) {
    const shape = shapeOf(m.path, m.resourceParam);
    const query = m.query === undefined ? NoQuery : typeof m.query === 'string' ? QUERIES[m.query] : m.query;
    const takesRequestId = m.query === 'requestId' || (typeof m.query === 'object' && 'requestId' in (m.query.properties ?? {}));
    app.route<{ Params: Record<string, string>; Querystring: Record<string, any> }>({
      method: m.verb,
      url: shape.url,
      schema: { params: paramsSchema(shape.params), querystring: query },
      config: computeRouteConfig(m.id, m.verb === 'GET' || m.read ? 'read' : 'write'),
      handler: async (req, reply) => {
        try {
          const params = req.params;
          for (const p of shape.params) {
            const pattern = (p !== shape.resourceParam && PATTERN_OF[p]) || RESOURCE_PATTERN;
            if (!pattern.test(params[p])) throw invalidParameter(p, params[p], pattern);
          }
          const scope = scopeOf(shape, params);
          const path = authorizedPath(m, shape, params, scope, req.body);
          let project: ProjectRecord;
          if (m.permission === null || m.open?.(params.project)) project = { projectId: params.project, projectNumber: '' } as ProjectRecord;
          else project = await authorizeCompute(ctx, req.principal, m.permission, params.project, shape.scoped ? scope : undefined, path, m.policyPath?.(params));
          const requestId = takesRequestId && typeof req.query.requestId === 'string' && req.query.requestId !== '' ? req.query.requestId : undefined;
          if (requestId !== undefined) {
            const earlier = await ctx.earlierOperation(project, requestId);
            if (earlier) return earlier;
          }
          const call: ComputeCall = {
            principal: req.principal,
            projectParam: params.project,
            project,
            scope,
            params,
            query: req.query,
            body: req.body,
            requestId: requestId?.toLowerCase() ?? null,
            path,
            ...(m.waits ? { signal: waitSignal(req, reply) } : {}),
          };
          const answer = await m.handler(call);
          return m.noContent ? reply.code(204).send() : answer;
        } catch (err) {
          // JSON-transcoding errors are the front end's: answered with status and a BadRequest detail beside errors[].
          const style = transcodingErrorStyle(err);
          if (!style) throw err;
          sendError(reply, err as ApiError, style);
          return reply;
        }
      },
    });
  }
}

/** `projects/P/global/networks`: a kind's collection path in a scope. */
export const collectionPath = (project: string, scope: Scope, collection: string) => `${scopePath(project, scope)}/${collection}`;
