/**
 * A Google API's resource schemas, from the compact table `scripts/generate-discovery-tables.ts`
 * makes out of its discovery document (committed beside the service that reads it: Compute's
 * `src/services/compute/discovery/table.json`, the Data API's for the media catalogue). Two
 * readers of one table:
 * - `normalizeResource`: a value as proto JSON parses it (int64/uint64 and int32/uint32 given as
 *   a number or a decimal string, doubles as numbers or numeric strings) written back in the
 *   canonical form (64-bit integers as strings, 32-bit ones as numbers); an unknown field, a
 *   value of the wrong JSON type, an enum value outside the schema or a timestamp that is not
 *   RFC 3339 is a problem naming the field. World entries pass through it when applied.
 * - `conformanceProblems`: whether an answer is already in that canonical form (tests check every
 *   Compute answer with it).
 * And `pruneToSchema`: a resource with only the schema's fields (what answers carry).
 */
import { readFileSync } from 'node:fs';

type Field = string | { a: Field } | { m: Field } | { o: Record<string, Field> };

interface Table {
  source: string;
  enums: string[][];
  schemas: Record<string, Record<string, Field>>;
  methods: [id: string, verb: string, path: string, response: string][];
}

export interface DiscoveryMethod {
  /** `compute.networks.get` */
  id: string;
  verb: string;
  /** Below the service path (`projects/{project}/global/networks/{network}`). */
  path: string;
  /** The response schema's name ('' when none). */
  response: string;
}

/** RFC 3339 date-time (Compute writes `2024-05-01T09:12:03.456-07:00`). */
const RFC3339 = /^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])[Tt]([01]\d|2[0-3]):[0-5]\d:([0-5]\d|60)(\.\d{1,9})?([Zz]|[+-]([01]\d|2[0-3]):[0-5]\d)$/;

const INT32 = [-2147483648, 2147483647] as const;
const UINT32 = [0, 4294967295] as const;
const INT64 = [-(2n ** 63n), 2n ** 63n - 1n] as const;
const UINT64 = [0n, 2n ** 64n - 1n] as const;

const kindOf = (v: unknown) => (v === null ? 'null' : Array.isArray(v) ? 'an array' : typeof v === 'object' ? 'an object' : `a ${typeof v}`);
const show = (v: unknown) => (typeof v === 'string' ? `'${v.length > 60 ? v.slice(0, 60) + '...' : v}'` : JSON.stringify(v)?.slice(0, 60));

/** An integer given as a JSON number or a decimal string (proto JSON accepts both), as a bigint; undefined when it is neither. */
function integerOf(v: unknown): bigint | undefined {
  if (typeof v === 'number') return Number.isInteger(v) ? BigInt(v) : undefined;
  if (typeof v === 'string' && /^-?(0|[1-9][0-9]{0,19})$/.test(v)) return BigInt(v);
  return undefined;
}

interface Walk {
  /** true: coerce to the canonical form (normalize); false: report anything not canonical (conformance). */
  coerce: boolean;
  problems: string[];
  /** Fields allowed at the top level beyond the schema's (the world's `project`, ...). */
  extra?: ReadonlySet<string>;
}

/**
 * Where a value is: its parent's path and its key there (a field name, an array index; undefined
 * when `at` is the value's own path). The path text is made only when a problem names it or a nested
 * value needs it, not for every field walked.
 */
function pathOf(at: string, key: string | number | undefined): string {
  if (typeof key === 'number') return `${at}[${key}]`;
  if (key === undefined) return at;
  return at ? `${at}.${key}` : key;
}

function problem(w: Walk, at: string, key: string | number | undefined, why: string, v: unknown): unknown {
  w.problems.push(`${pathOf(at, key)}: ${why} (got ${show(v)})`);
  return v;
}

/** A canonical decimal (no sign, no leading zero) of at most 15 digits: below 2^53, so exactly what integerOf and toString make of it. */
const SHORT_DECIMAL = /^(?:0|[1-9][0-9]{0,14})$/;
const SHORT_NEGATIVE = /^-[1-9][0-9]{0,14}$/;

function scalar(t: string, v: unknown, at: string, key: string | number | undefined, w: Walk): unknown {
  switch (t) {
    case 's':
      return typeof v === 'string' ? v : problem(w, at, key, `must be a string, not ${kindOf(v)}`, v);
    case 't':
      if (typeof v !== 'string') return problem(w, at, key, `must be an RFC 3339 timestamp string, not ${kindOf(v)}`, v);
      return RFC3339.test(v) ? v : problem(w, at, key, 'must be an RFC 3339 timestamp such as 2024-05-01T09:12:03.456-07:00', v);
    case 'b':
      return typeof v === 'boolean' ? v : problem(w, at, key, `must be true or false, not ${kindOf(v)}`, v);
    case 'n':
      if (typeof v === 'number') return v;
      if (w.coerce && typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v))) return Number(v);
      return problem(w, at, key, 'must be a number', v);
    case 'i32':
    case 'u32': {
      const [lo, hi] = t === 'i32' ? INT32 : UINT32;
      // the common case: already a JSON number in range (-0 becomes 0, as through a bigint)
      if (typeof v === 'number' && Number.isInteger(v) && v >= lo && v <= hi) return v === 0 ? 0 : v;
      if (!w.coerce && typeof v !== 'number') return problem(w, at, key, `must be a JSON number (a ${t === 'i32' ? 'int32' : 'uint32'}), not ${kindOf(v)}`, v);
      const n = integerOf(v);
      if (n === undefined || n < BigInt(lo) || n > BigInt(hi)) return problem(w, at, key, `must be an integer in [${lo}, ${hi}]`, v);
      return Number(n);
    }
    case 'i64':
    case 'u64': {
      // the common case: already a short canonical decimal string
      if (typeof v === 'string' && (SHORT_DECIMAL.test(v) || (t === 'i64' && SHORT_NEGATIVE.test(v)))) return v;
      const [lo, hi] = t === 'i64' ? INT64 : UINT64;
      if (!w.coerce && typeof v !== 'string') return problem(w, at, key, `must be a decimal string (an ${t === 'i64' ? 'int64' : 'uint64'}), not ${kindOf(v)}`, v);
      if (typeof v === 'number' && !Number.isSafeInteger(v)) return problem(w, at, key, 'must be an integer given exactly: as a decimal string beyond 2^53', v);
      const n = integerOf(v);
      if (n === undefined || n < lo || n > hi) return problem(w, at, key, `must be an integer in [${lo}, ${hi}]`, v);
      return n.toString();
    }
    default:
      return v;
  }
}

function value(T: Table, f: Field, v: unknown, at: string, key: string | number | undefined, w: Walk): unknown {
  if (typeof f === 'string') {
    if (f === 'x') return v;
    if (f.startsWith('@')) return object(T, T.schemas[f.slice(1)] ?? {}, v, at, key, w);
    if (f.startsWith('e')) {
      const allowed = T.enums[Number(f.slice(1))];
      if (typeof v !== 'string' || !allowed.includes(v)) w.problems.push(`${pathOf(at, key)}: must be one of ${allowed.slice(0, 12).join(', ')}${allowed.length > 12 ? ', ...' : ''} (got ${show(v)})`);
      return v;
    }
    return scalar(f, v, at, key, w);
  }
  if ('a' in f) {
    if (!Array.isArray(v)) {
      w.problems.push(`${pathOf(at, key)}: must be an array, not ${kindOf(v)}`);
      return v;
    }
    const here = pathOf(at, key);
    return v.map((item, i) => value(T, f.a, item, here, i, w));
  }
  if ('m' in f) {
    if (v === null || typeof v !== 'object' || Array.isArray(v)) {
      w.problems.push(`${pathOf(at, key)}: must be an object (a map), not ${kindOf(v)}`);
      return v;
    }
    const here = pathOf(at, key);
    const out: Record<string, unknown> = {};
    // a map's keys are named after a dot even at the top (`.key`), as before
    for (const [k, item] of Object.entries(v)) out[k] = value(T, f.m, item, `${here}.${k}`, undefined, w);
    return out;
  }
  return object(T, f.o, v, at, key, w);
}

function object(T: Table, fields: Record<string, Field>, v: unknown, parent: string, key: string | number | undefined, w: Walk, top = false): unknown {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) {
    w.problems.push(`${pathOf(parent, key)}: must be an object, not ${kindOf(v)}`);
    return v;
  }
  const at = pathOf(parent, key);
  const out: Record<string, unknown> = {};
  for (const [k, item] of Object.entries(v)) {
    if (item === undefined) continue; // absent in JSON
    if (Object.hasOwn(fields, k)) out[k] = value(T, fields[k], item, at, k, w);
    else if (top && w.extra?.has(k)) out[k] = item;
    else w.problems.push(`${pathOf(at, k)}: is not a field of ${at === '(answer)' ? 'the answer' : 'this resource'}`);
  }
  return out;
}

/** The schemas (and methods) of one discovery document, read from its table on first use. */
export class DiscoverySchemas {
  readonly #file: URL;
  #table: Table | undefined;
  #methods: readonly DiscoveryMethod[] | undefined;

  constructor(table: URL) {
    this.#file = table;
  }

  /** The table, read and parsed when first needed: a module that holds a DiscoverySchemas costs nothing at start-up. */
  get #t(): Table {
    return (this.#table ??= JSON.parse(readFileSync(this.#file, 'utf8')));
  }

  /** Every method of the document: its id, HTTP verb, path and response schema. */
  get methods(): readonly DiscoveryMethod[] {
    return (this.#methods ??= this.#t.methods.map(([id, verb, path, response]) => ({ id, verb, path, response })));
  }

  has(schema: string): boolean {
    return Object.hasOwn(this.#t.schemas, schema);
  }

  /**
   * `v` as a `schema` resource in proto JSON's canonical form, or the problems naming each bad
   * field below `at` (e.g. `compute.networks[0].mtu: must be an integer ...`). `extra`: top-level
   * fields allowed beyond the schema's, passed through as they are.
   */
  normalize(schema: string, v: unknown, at: string, extra?: ReadonlySet<string>): { value: Record<string, unknown>; problems: string[] } {
    const w: Walk = { coerce: true, problems: [], extra };
    const out = object(this.#t, this.#t.schemas[schema] ?? {}, v, at, undefined, w, true) as Record<string, unknown>;
    return { value: out, problems: w.problems };
  }

  /** Where an answer is not what the schema says (canonical JSON types, known fields, enum values, timestamps); [] when it conforms. */
  conformanceProblems(schema: string, v: unknown): string[] {
    if (!this.has(schema)) return [`(answer): no schema '${schema}' in the discovery document`];
    const w: Walk = { coerce: false, problems: [] };
    object(this.#t, this.#t.schemas[schema], v, '(answer)', undefined, w);
    return w.problems;
  }

  /** The resource with only the fields its schema has (nested objects too); values are kept as they are. */
  prune(schema: string, v: Record<string, unknown>): Record<string, unknown> {
    return prune(this.#t, { o: this.#t.schemas[schema] ?? {} }, v) as Record<string, unknown>;
  }
}

function prune(T: Table, f: Field, v: unknown): unknown {
  if (v === null || typeof v !== 'object') return v;
  if (typeof f === 'string') return f.startsWith('@') ? prune(T, { o: T.schemas[f.slice(1)] ?? {} }, v) : v;
  if ('a' in f) return Array.isArray(v) ? v.map((i) => prune(T, f.a, i)) : v;
  if (Array.isArray(v)) return v;
  if ('m' in f) return Object.fromEntries(Object.entries(v).map(([k, i]) => [k, prune(T, f.m, i)]));
  const out: Record<string, unknown> = {};
  for (const [k, i] of Object.entries(v)) if (Object.hasOwn(f.o, k)) out[k] = prune(T, f.o[k], i);
  return out;
}
