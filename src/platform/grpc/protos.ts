import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import type * as protobuf from 'protobufjs';

/** The .proto files as Google publishes them (the official client packages ship the same). */
export const PROTOS_DIR = fileURLToPath(new URL('../../../protos/', import.meta.url));

/** The files the gRPC front end serves (their imports are loaded with them). */
export const SERVED_PROTOS = ['google/api/apikeys/v2/apikeys.proto', 'google/longrunning/operations.proto', 'google/rpc/status.proto', 'google/rpc/error_details.proto', 'grpc/reflection/v1/reflection.proto', 'grpc/reflection/v1alpha/reflection.proto'];

/** Message types by fully qualified name, loaded once. */
export interface ProtoTypes {
  root: protobuf.Root;
  type(name: string): protobuf.Type;
  /**
   * A message given as a plain object (protobuf.js field names), in wire format. Plain objects are
   * encoded as they are (no Message instances made first) unless the type has enum fields, whose
   * names `fromObject` turns into numbers.
   */
  encode(name: string, value: Record<string, unknown>): Uint8Array;
  /** `google.protobuf.Any` of a message given as a plain object. */
  any(typeName: string, value: Record<string, unknown>): { type_url: string; value: Uint8Array };
}

export function loadProtoTypes(): ProtoTypes {
  const pb = createRequire(import.meta.url)('protobufjs') as typeof protobuf;
  const root = new pb.Root();
  root.resolvePath = (_origin, target) => join(PROTOS_DIR, target);
  root.loadSync(SERVED_PROTOS, { keepCase: false });
  root.resolveAll();
  const cache = new Map<string, protobuf.Type>();
  const type = (name: string) => {
    let t = cache.get(name);
    if (!t) cache.set(name, (t = root.lookupType(name)));
    return t;
  };
  const plain = new Map<protobuf.Type, boolean>();
  const encode = (name: string, value: Record<string, unknown>) => {
    const t = type(name);
    let direct = plain.get(t);
    if (direct === undefined) plain.set(t, (direct = !hasEnums(t, new Set())));
    return t.encode(direct ? value : t.fromObject(value)).finish();
  };
  return {
    root,
    type,
    encode,
    any: (typeName, value) => ({ type_url: `type.googleapis.com/${typeName}`, value: encode(typeName, value) }),
  };
}

/** Whether a message type, or one nested in it, has an enum field. */
function hasEnums(t: protobuf.Type, seen: Set<protobuf.Type>): boolean {
  if (seen.has(t)) return false;
  seen.add(t);
  return t.fieldsArray.some((f) => {
    const r = f.resolve().resolvedType;
    return r !== null && (!('fieldsArray' in r) || hasEnums(r as protobuf.Type, seen));
  });
}

/** RFC 3339 text (`2024-01-02T03:04:05.123456789Z`) as a `google.protobuf.Timestamp`, to the nanosecond. */
export function toTimestamp(text: string): { seconds: number; nanos: number } {
  // The times the services keep (`Date.toISOString`, to the millisecond): read as they are.
  if (text.length === 24 && text.charCodeAt(23) === 0x5a && text.charCodeAt(19) === 0x2e) {
    const ms = Date.parse(text);
    if (Number.isFinite(ms)) return { seconds: Math.floor(ms / 1000), nanos: (ms - Math.floor(ms / 1000) * 1000) * 1_000_000 };
  }
  const m = /^(.*?)(?:\.(\d{1,9}))?(Z|[+-]\d\d:\d\d)$/.exec(text);
  if (!m) throw new Error(`not an RFC 3339 time: ${text}`);
  const seconds = Math.floor(Date.parse(m[1] + m[3]) / 1000);
  const nanos = m[2] ? Number(m[2].padEnd(9, '0')) : 0;
  return { seconds, nanos };
}
