import { ApiError, invalidArgument } from '../../platform/http/errors.ts';
import { checkMessage } from '../../platform/http/validationErrors.ts';
import type { CallContext, GrpcFront, GrpcMethod } from '../../platform/grpc/front.ts';
import { toTimestamp } from '../../platform/grpc/protos.ts';
import type { Principal } from '../../platform/auth/principal.ts';
import type { WireKey } from './model.ts';
import { RPC } from './names.ts';
import { apiKeysMethod } from './routes/common.ts';
import { CreateKeyQuery, DeleteKeyQuery, KeySchema, ListKeysQuery, LookupKeyQuery, OperationParams, UpdateKeyQuery } from './schemas.ts';
import type { ApiKeysService, KeyInput, WireOperation } from './service.ts';

/**
 * The API Keys v2 gRPC surface (`google.api.apikeys.v2.ApiKeys` and `google.longrunning.Operations`):
 * each method checks its request message with REST's schemas and calls the same service method as its REST route
 * (src/services/apikeys/routes/), with the same API method name (error metadata, scopes).
 * Answers are the REST answers in protobuf shape: RFC 3339 times as Timestamps, the operation's
 * Key as an `Any` of type `type.googleapis.com/google.api.apikeys.v2.Key`.
 */
const V2 = 'google.api.apikeys.v2';
const LRO = 'google.longrunning';
const KEY_TYPE = `${V2}.Key`;

const PARENT = /^projects\/([^/]+)\/locations\/([^/]+)$/;
const KEY = /^projects\/([^/]+)\/locations\/([^/]+)\/keys\/([^/]+)$/;

function parseName(value: unknown, pattern: RegExp, field: string, shape: string): string[] {
  const m = typeof value === 'string' ? pattern.exec(value) : null;
  if (!m) {
    const description = `Invalid resource name '${String(value ?? '').slice(0, 200)}' in ${field}: expected ${shape}.`;
    throw invalidArgument(description, [{ field, description }]);
  }
  return m.slice(1);
}
const parentOf = (v: unknown, field = 'parent') => parseName(v, PARENT, field, 'projects/{project}/locations/{location}') as [string, string];
const keyOf = (v: unknown, field = 'name') => parseName(v, KEY, field, 'projects/{project}/locations/{location}/keys/{key}') as [string, string, string];

/** A Key as the protobuf message (times as Timestamps); the rest keeps its JSON names, which are protobuf.js's. */
export function protoKey(key: WireKey): Record<string, unknown> {
  const { createTime, updateTime, deleteTime, ...rest } = key;
  return {
    ...rest,
    createTime: toTimestamp(createTime),
    updateTime: toTimestamp(updateTime),
    ...(deleteTime ? { deleteTime: toTimestamp(deleteTime) } : {}),
  };
}

function protoOperation(op: WireOperation, ctx: CallContext): Record<string, unknown> {
  const out: Record<string, unknown> = { name: op.name, done: op.done === true };
  if (op.error) out.error = { code: op.error.code, message: op.error.message };
  if (op.response) {
    const { '@type': _type, ...key } = op.response as unknown as WireKey & { '@type': string };
    out.response = ctx.types.any(KEY_TYPE, protoKey(key));
  }
  return out;
}

/**
 * The mutable fields of a Key message (output-only ones are ignored, as REST ignores them),
 * within the bounds REST's body schema sets (KeySchema: lengths, list sizes), with REST's error.
 */
function keyInput(key: Record<string, any> | undefined): KeyInput {
  const k = key ?? {};
  const input: KeyInput = {};
  if (k.displayName !== undefined) input.displayName = k.displayName;
  if (k.restrictions !== undefined) input.restrictions = k.restrictions;
  if (k.annotations !== undefined) input.annotations = k.annotations;
  if (k.serviceAccountEmail !== undefined) input.serviceAccountEmail = k.serviceAccountEmail;
  checkMessage(KeySchema, input, 'key');
  return input;
}

/** Request fields REST takes as query parameters, within the bounds of the same schema (CreateKeyQuery, ...). */
function queryFields<T extends Record<string, unknown>>(schema: object, fields: T): T {
  checkMessage(schema, fields, '');
  return fields;
}

type KeyRef = { project: string; location: string; key: string };
const parentParams = (r: Record<string, any>) => {
  const [project, location] = parentOf(r.parent);
  return { project, location };
};
const keyParams = (name: unknown, field?: string): KeyRef => {
  const [project, location, key] = keyOf(name, field);
  return { project, location, key };
};

/**
 * One method: `parse` checks the request message as REST checks the same call's path, query and
 * body (before any fault rule looks at it) and names its project; `handle` calls the service.
 */
function method<P extends object>(
  rpc: string,
  access: 'read' | 'write',
  request: string,
  response: string,
  parse: (r: Record<string, any>) => P,
  handle: (svc: ApiKeysService, p: Principal, params: P, ctx: CallContext) => unknown,
  svc: ApiKeysService,
): GrpcMethod<P> {
  return {
    api: apiKeysMethod(rpc, access).api,
    requestType: request,
    responseType: response,
    parse: (r) => {
      const params = parse(r);
      return { params, project: (params as { project?: string }).project };
    },
    handle: (p, params, ctx) => handle(svc, p, params, ctx),
  };
}

function unimplemented(request: string): GrpcMethod {
  return {
    api: apiKeysMethod('google.longrunning.Operations.GetOperation', 'read').api,
    requestType: request,
    responseType: 'google.protobuf.Empty',
    public: true,
    parse: () => ({ params: undefined }),
    handle: () => {
      throw new ApiError({ status: 'UNIMPLEMENTED', message: 'Method not implemented: this API offers only GetOperation on its operations.' });
    },
  };
}

export function registerApiKeysGrpc(grpc: GrpcFront, svc: ApiKeysService): void {
  const op = `${LRO}.Operation`;
  grpc.addService(RPC, {
    CreateKey: method(
      'CreateKey',
      'write',
      `${V2}.CreateKeyRequest`,
      op,
      (r) => ({ ...parentParams(r), ...queryFields(CreateKeyQuery, { keyId: r.keyId as string | undefined }), input: keyInput(r.key) }),
      async (s, p, a, ctx) => protoOperation(await s.createKey(p, a.project, a.location, a.keyId, a.input), ctx),
      svc,
    ),
    ListKeys: method(
      'ListKeys',
      'read',
      `${V2}.ListKeysRequest`,
      `${V2}.ListKeysResponse`,
      (r) => ({ ...parentParams(r), ...queryFields(ListKeysQuery, { pageSize: r.pageSize as number | undefined, pageToken: r.pageToken as string | undefined, showDeleted: r.showDeleted as boolean | undefined }) }),
      async (s, p, a) => {
        const page = await s.listKeys(p, a.project, a.location, { pageSize: a.pageSize, pageToken: a.pageToken, showDeleted: a.showDeleted });
        return { keys: (page.keys ?? []).map(protoKey), nextPageToken: page.nextPageToken ?? '' };
      },
      svc,
    ),
    GetKey: method('GetKey', 'read', `${V2}.GetKeyRequest`, KEY_TYPE, (r) => keyParams(r.name), async (s, p, a) => protoKey(await s.getKey(p, a.project, a.location, a.key)), svc),
    GetKeyString: method('GetKeyString', 'read', `${V2}.GetKeyStringRequest`, `${V2}.GetKeyStringResponse`, (r) => keyParams(r.name), (s, p, a) => s.getKeyString(p, a.project, a.location, a.key), svc),
    UpdateKey: method(
      'UpdateKey',
      'write',
      `${V2}.UpdateKeyRequest`,
      op,
      (r) => {
        // FieldMask paths are proto field names (`display_name`, `restrictions.api_targets`): the service reads them as such.
        const paths: string[] | undefined = r.updateMask?.paths;
        const mask = queryFields(UpdateKeyQuery, { updateMask: paths?.length ? paths.join(',') : undefined });
        return { ...keyParams(r.key?.name, 'key.name'), ...mask, input: keyInput(r.key) };
      },
      async (s, p, a, ctx) => protoOperation(await s.updateKey(p, a.project, a.location, a.key, a.updateMask, a.input), ctx),
      svc,
    ),
    DeleteKey: method(
      'DeleteKey',
      'write',
      `${V2}.DeleteKeyRequest`,
      op,
      (r) => ({ ...keyParams(r.name), ...queryFields(DeleteKeyQuery, { etag: r.etag as string | undefined }) }),
      async (s, p, a, ctx) => protoOperation(await s.deleteKey(p, a.project, a.location, a.key, a.etag), ctx),
      svc,
    ),
    UndeleteKey: method('UndeleteKey', 'write', `${V2}.UndeleteKeyRequest`, op, (r) => keyParams(r.name), async (s, p, a, ctx) => protoOperation(await s.undeleteKey(p, a.project, a.location, a.key), ctx), svc),
    LookupKey: method('LookupKey', 'read', `${V2}.LookupKeyRequest`, `${V2}.LookupKeyResponse`, (r) => queryFields(LookupKeyQuery, { keyString: (r.keyString as string | undefined) ?? '' }), (s, p, a) => s.lookupKey(p, a.keyString), svc),
  });
  grpc.addService(`${LRO}.Operations`, {
    GetOperation: method(
      'google.longrunning.Operations.GetOperation',
      'read',
      `${LRO}.GetOperationRequest`,
      op,
      (r) => {
        const name = (r.name as string | undefined) ?? '';
        queryFields(OperationParams, { operation: name.startsWith('operations/') ? name.slice('operations/'.length) : name });
        return { name };
      },
      async (s, p, a, ctx) => protoOperation(await s.getOperation(p, a.name), ctx),
      svc,
    ),
    ListOperations: unimplemented(`${LRO}.ListOperationsRequest`),
    DeleteOperation: unimplemented(`${LRO}.DeleteOperationRequest`),
    CancelOperation: unimplemented(`${LRO}.CancelOperationRequest`),
    WaitOperation: unimplemented(`${LRO}.WaitOperationRequest`),
  });
}
