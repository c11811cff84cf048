/**
 * The JSON transcoding step Compute's front end applies before any field rule: the body is read
 * as the proto message `InstanceTemplate` (schema in `messages.ts`, generated from the client's
 * protos). Like Google's transcoder it
 *   - rejects a name the message does not have (`Unknown name "foo" at '...': Cannot find field.`),
 *   - rejects a JSON value of the wrong type (`Invalid value at '...' (TYPE_INT64), "abc"`) and an
 *     enum value the enum does not have (`(type.googleapis.com/compute.Scheduling.OnHostMaintenance), "FOO"`),
 *   - accepts a field by its JSON name (`diskSizeGb`) or its proto name (`disk_size_gb`),
 *   - reads `null` as "not set", 64-bit integers from numbers or decimal strings, 32-bit
 *     integers also from decimal strings,
 * and stops at the first problem (one error). What it returns is the canonical body: JSON names,
 * 64-bit integers as decimal strings, 32-bit integers as numbers, no nulls.
 */
import { MESSAGES } from './messages.ts';
import type { FieldSpec } from './types.ts';

/** Name of the request field holding the resource, as the transcoder names it. */
export const BODY_FIELD = 'instance_template_resource';

/** Package of Compute's own protos, as its transcoder names message and enum types. */
const PROTO_PACKAGE = 'compute';

/** Enum values the spec adds to the protos': gcloud's `source-image` spellings, `SUSPEND_RESUME_COMPATIBLE`. */
const EXTRA_ENUM_VALUES: Record<string, Record<string, readonly string[]>> = {
  GuestOsFeature: { type: ['SUSPEND_RESUME_COMPATIBLE'] },
  DiskInstantiationConfig: {
    instantiateFrom: ['attach-read-only', 'blank', 'custom-image', 'default', 'do-not-include', 'source-image', 'source-image-family'],
  },
};

/** Fields that are `bytes` in Compute's protos (strings in the client's): base64 on the wire. */
const BYTES_FIELDS = new Set(['Tags.fingerprint', 'Metadata.fingerprint', 'NetworkInterface.fingerprint', 'FileContentBuffer.content']);

/** RFC 4648 base64, standard or URL-safe alphabet, padded or not (what the transcoder accepts). */
export function isBase64(s: string): boolean {
  const m = /^([A-Za-z0-9+/]*|[A-Za-z0-9_-]*)(={0,2})$/.exec(s);
  if (!m || m[1].length % 4 === 1) return false;
  return m[2] === '' || (m[1].length + m[2].length) % 4 === 0;
}

interface EnumInfo {
  /** `compute.Scheduling.OnHostMaintenance` */
  type: string;
  values: ReadonlySet<string>;
}

/** Per enum field spec: its type name and accepted values. */
const ENUMS = new Map<FieldSpec, EnumInfo>();
for (const [message, spec] of Object.entries(MESSAGES)) {
  for (const [field, f] of Object.entries(spec)) {
    if (f.t !== 'enum') continue;
    const values = new Set([...(f.values ?? []), ...(EXTRA_ENUM_VALUES[message]?.[field] ?? [])]);
    ENUMS.set(f, { type: `${PROTO_PACKAGE}.${message}.${field[0].toUpperCase()}${field.slice(1)}`, values });
  }
}

export type TranscodeResult = { ok: true; value: Record<string, unknown> } | { ok: false; message: string; field: string };

/**
 * The first problem of a body. Its path (`instance_template_resource.properties.disks[0]`) is
 * put together only when there is one, segment by segment as the error leaves each level: a
 * valid body, the common case, builds no path strings.
 */
class TranscodeError extends Error {
  readonly #describe: (path: string) => string;
  /** Path segments, innermost first. */
  readonly #segments: string[] = [];

  constructor(describe: (path: string) => string) {
    super('invalid body');
    this.#describe = describe;
  }

  /** Adds the segment of the level the error leaves (`.disk_size_gb`, `[0]`). */
  within(segment: string): this {
    this.#segments.push(segment);
    return this;
  }

  /** The message and the field path, the path starting at `root`. */
  finish(root: string): { message: string; field: string } {
    const field = root + this.#segments.reverse().join('');
    return { message: this.#describe(field), field };
  }
}

/** Rethrows `err` with the segment of the level it leaves added (when it is a transcoding error). */
function leaving(err: unknown, segment: string): never {
  throw err instanceof TranscodeError ? err.within(segment) : err;
}

/** `diskSizeGb` -> `disk_size_gb`, `networkIP` -> `network_i_p` (the proto field names). */
function protoName(jsonName: string): string {
  return jsonName.replace(/[A-Z]/g, (c) => '_' + c.toLowerCase());
}

/** A message's fields by accepted spelling (JSON or proto name). */
type FieldTable = Map<string, FieldInfo>;

interface FieldInfo {
  /** The JSON name (what the canonical body uses). */
  field: string;
  spec: FieldSpec;
  /** The path segment: `.` and the proto name. */
  segment: string;
  /** A `bytes` field (base64 on the wire). */
  bytes: boolean;
  /** For a message field: its message's fields. */
  fields?: FieldTable;
}

/** Per message: accepted spelling (JSON or proto name) -> the field. */
const FIELDS = new Map<string, FieldTable>();
for (const [message, spec] of Object.entries(MESSAGES)) {
  const fields: FieldTable = new Map();
  for (const [field, fspec] of Object.entries(spec)) {
    const info: FieldInfo = { field, spec: fspec, segment: `.${protoName(field)}`, bytes: BYTES_FIELDS.has(`${message}.${field}`) };
    fields.set(field, info);
    fields.set(protoName(field), info);
  }
  FIELDS.set(message, fields);
}
for (const fields of FIELDS.values()) for (const f of fields.values()) if (f.spec.t === 'message') f.fields = FIELDS.get(f.spec.message!)!;
const TEMPLATE_FIELDS = FIELDS.get('InstanceTemplate')!;

/** Defines an own enumerable property (safe for `__proto__` and other Object.prototype names). */
export function setOwn(obj: Record<string, unknown>, key: string, value: unknown): void {
  // Plain assignment is safe for every key but `__proto__` (it would set the prototype).
  if (key === '__proto__') Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true });
  else obj[key] = value;
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function shown(v: unknown): string {
  if (typeof v === 'string') return JSON.stringify(v);
  if (typeof v === 'object' && v !== null) return Array.isArray(v) ? '[...]' : '{...}';
  return String(v);
}

const TYPE_NAME: Record<string, string> = {
  string: 'TYPE_STRING',
  bool: 'TYPE_BOOL',
  int32: 'TYPE_INT32',
  uint32: 'TYPE_UINT32',
  int64: 'TYPE_INT64',
  uint64: 'TYPE_UINT64',
  double: 'TYPE_DOUBLE',
  float: 'TYPE_FLOAT',
};

const RANGES: Record<string, [bigint, bigint]> = {
  int32: [-(2n ** 31n), 2n ** 31n - 1n],
  uint32: [0n, 2n ** 32n - 1n],
  int64: [-(2n ** 63n), 2n ** 63n - 1n],
  uint64: [0n, 2n ** 64n - 1n],
};

function typeLabel(spec: FieldSpec): string {
  if (spec.t === 'message') return `type.googleapis.com/${PROTO_PACKAGE}.${spec.message}`;
  if (spec.t === 'enum') return `type.googleapis.com/${ENUMS.get(spec)!.type}`;
  return TYPE_NAME[spec.t];
}

function invalid(spec: FieldSpec, value: unknown): TranscodeError {
  return new TranscodeError((path) => `Invalid value at '${path}' (${typeLabel(spec)}), ${shown(value)}`);
}

function integer(value: unknown, spec: FieldSpec): bigint {
  let n: bigint | undefined;
  if (typeof value === 'number' && Number.isInteger(value)) n = BigInt(value);
  else if (typeof value === 'string' && value.length <= 21 && /^-?\d+$/.test(value)) n = BigInt(value);
  const [lo, hi] = RANGES[spec.t];
  if (n === undefined || n < lo || n > hi) throw invalid(spec, value);
  return n;
}

function scalar(value: unknown, spec: FieldSpec): unknown {
  switch (spec.t) {
    case 'string':
      if (typeof value !== 'string') throw invalid(spec, value);
      return value;
    case 'enum':
      if (typeof value !== 'string' || !ENUMS.get(spec)!.values.has(value)) throw invalid(spec, value);
      return value;
    case 'bool':
      if (typeof value !== 'boolean') throw invalid(spec, value);
      return value;
    case 'int32':
    case 'uint32':
      return Number(integer(value, spec));
    case 'int64':
    case 'uint64':
      return integer(value, spec).toString();
    case 'double':
    case 'float':
      if (typeof value === 'number') return value;
      if (typeof value === 'string' && value.length <= 64 && value.trim() !== '' && Number.isFinite(Number(value))) return Number(value);
      throw invalid(spec, value);
    default:
      throw invalid(spec, value);
  }
}

/*
 * The canonical form shares what is already canonical with the input: an object or array whose
 * every value reads as itself (JSON names, no nulls, int64 as decimal strings, ...) is kept, not
 * copied, so a valid JSON body is checked without a copy. Only plain data objects and arrays are
 * kept (prototype Object.prototype or Array.prototype, as JSON.parse makes them); a copy starts at
 * the first value that differs, with the entries before it. The first copy of each insert body
 * was over half the transcoding's cost.
 */

/** `obj`'s first `n` entries (of `keys`), in a new object. */
function prefix(obj: Record<string, unknown>, keys: readonly string[], n: number): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (let i = 0; i < n; i++) setOwn(out, keys[i], obj[keys[i]]);
  return out;
}

/** A new object unless `obj` may be kept (a plain data object): the copy then starts at the first difference. */
const startCopy = (obj: object): Record<string, unknown> | undefined => (Object.getPrototypeOf(obj) === Object.prototype ? undefined : {});

function single(value: unknown, f: FieldInfo, bytes = false): unknown {
  if (bytes) {
    if (typeof value !== 'string' || !isBase64(value)) throw new TranscodeError((path) => `Invalid value at '${path}' (TYPE_BYTES), ${shown(value)}`);
    return value;
  }
  if (f.fields === undefined) return scalar(value, f.spec);
  if (!isPlainObject(value)) throw invalid(f.spec, value);
  return message(value, f.fields);
}

/** The value of one field: a map, a list or a single value. */
function fieldValue(value: unknown, f: FieldInfo): unknown {
  const spec = f.spec;
  if (spec.map) {
    if (!isPlainObject(value)) throw invalid(spec, value);
    let m = startCopy(value);
    const keys = Object.keys(value);
    for (let n = 0; n < keys.length; n++) {
      const k = keys[n];
      const v = value[k];
      let read: unknown;
      try {
        if (v === null) throw invalid(spec, v);
        read = single(v, f);
      } catch (err) {
        leaving(err, `[${JSON.stringify(k)}]`);
      }
      if (m === undefined) {
        if (Object.is(read, v)) continue;
        m = prefix(value, keys, n);
      }
      setOwn(m, k, read);
    }
    return m ?? value;
  }
  if (spec.repeated) {
    if (!Array.isArray(value)) throw invalid(spec, value);
    let list: unknown[] | undefined = Object.getPrototypeOf(value) === Array.prototype ? undefined : [];
    for (let i = 0; i < value.length; i++) {
      const v = value[i];
      let read: unknown;
      try {
        read = single(v, f);
      } catch (err) {
        leaving(err, `[${i}]`);
      }
      if (list === undefined) {
        if (Object.is(read, v)) continue;
        list = value.slice(0, i);
      }
      list.push(read);
    }
    return list ?? value;
  }
  return single(value, f, f.bytes);
}

function message(obj: Record<string, unknown>, fields: FieldTable): Record<string, unknown> {
  let out = startCopy(obj);
  const keys = Object.keys(obj);
  for (let n = 0; n < keys.length; n++) {
    const key = keys[n];
    const f = fields.get(key);
    if (f === undefined) {
      throw new TranscodeError((path) => `Invalid JSON payload received. Unknown name ${JSON.stringify(key)} at '${path}': Cannot find field.`);
    }
    const value = obj[key];
    if (value === null || value === undefined) {
      out ??= prefix(obj, keys, n);
      continue;
    }
    let read: unknown;
    try {
      read = fieldValue(value, f);
    } catch (err) {
      leaving(err, f.segment);
    }
    if (out === undefined) {
      if (key === f.field && Object.is(read, value)) continue;
      out = prefix(obj, keys, n);
    }
    setOwn(out, f.field, read);
  }
  return out ?? obj;
}

/** Bodies this module produced: already canonical, not read twice. */
const CANONICAL = new WeakSet<object>();

/** Reads a request body as an InstanceTemplate; never throws. */
export function transcodeInsertBody(body: unknown): TranscodeResult {
  try {
    if (!isPlainObject(body)) {
      throw new TranscodeError((path) => `Invalid value at '${path}' (type.googleapis.com/${PROTO_PACKAGE}.InstanceTemplate), ${shown(body)}`);
    }
    if (CANONICAL.has(body)) return { ok: true, value: body };
    const value = message(body, TEMPLATE_FIELDS);
    CANONICAL.add(value);
    return { ok: true, value };
  } catch (e) {
    if (e instanceof TranscodeError) return { ok: false, ...e.finish(BODY_FIELD) };
    // A pathological value (e.g. a getter or a stack overflow) is still an invalid body, never a crash.
    return { ok: false, message: `Invalid JSON payload received.`, field: BODY_FIELD };
  }
}

/** The canonical form of an already valid body (as stored); the input itself when it does not transcode. */
export function canonicalBody(body: Record<string, unknown>): Record<string, unknown> {
  const r = transcodeInsertBody(body);
  return r.ok ? r.value : body;
}
