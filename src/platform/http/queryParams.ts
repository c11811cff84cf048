import { ApiError } from './errors.ts';

/**
 * Query parameters as Google's frontends read them, for every method of every service: a query
 * schema's booleans accept `true/t/yes/y/1` and `false/f/no/n/0` in any case (gcloud and every
 * apitools client write `True`/`False`), its integers must fit their proto type (TYPE_INT32
 * unless the schema says `protoType`), and a singular parameter given twice is refused by name,
 * quoting no value (it may be a key string).
 */

const TRUE: ReadonlySet<string> = new Set(['true', 't', 'yes', 'y', '1']);
const FALSE: ReadonlySet<string> = new Set(['false', 'f', 'no', 'n', '0']);

/** `True` -> true, `n` -> false; undefined when the text is not a boolean. */
export function parseQueryBool(text: string): boolean | undefined {
  const t = text.toLowerCase();
  return TRUE.has(t) ? true : FALSE.has(t) ? false : undefined;
}

export type IntegerProtoType = 'TYPE_INT32' | 'TYPE_UINT32' | 'TYPE_INT64' | 'TYPE_UINT64';

const RANGES: ReadonlyMap<IntegerProtoType, [bigint, bigint]> = new Map([
  ['TYPE_INT32', [-(2n ** 31n), 2n ** 31n - 1n]],
  ['TYPE_UINT32', [0n, 2n ** 32n - 1n]],
  ['TYPE_INT64', [-(2n ** 63n), 2n ** 63n - 1n]],
  ['TYPE_UINT64', [0n, 2n ** 64n - 1n]],
] as [IntegerProtoType, [bigint, bigint]][]);

/** True when `text` (a decimal integer as sent) lies in the proto type's range. */
export function inProtoRange(text: string, type: IntegerProtoType): boolean {
  if (!/^[+-]?\d+$/.test(text)) return true; // not an integer: the type check words that error
  if (text.length > 41) return false;
  const n = BigInt(text);
  const [min, max] = RANGES.get(type) ?? RANGES.get('TYPE_INT32')!;
  return n >= min && n <= max;
}

/** A schema-validation error of the shape Ajv reports (what `validationError` words). */
export interface QueryError {
  keyword: 'protoRange' | 'repeated';
  instancePath: string;
  params: Record<string, unknown>;
  data?: unknown;
}

interface PropertySchema {
  type?: unknown;
  protoType?: IntegerProtoType;
}

type Validate = ((data: unknown) => boolean) & { errors?: unknown[] | null };

/**
 * Wraps a compiled (coercing) query validator with the rules above. Costs nothing for a query
 * without booleans, integers or repeated names beyond one own-property test per such parameter.
 */
export function queryValidator(schema: unknown, compiled: Validate): Validate {
  const props = ((schema as { properties?: Record<string, PropertySchema> })?.properties ?? {}) as Record<string, PropertySchema>;
  const bools: string[] = [];
  const ints: [string, IntegerProtoType][] = [];
  const singular = new Set<string>();
  for (const name of Object.keys(props)) {
    const type = props[name].type;
    if (type === 'boolean') bools.push(name);
    if (type === 'integer') ints.push([name, props[name].protoType ?? 'TYPE_INT32']);
    if (type !== 'array') singular.add(name);
  }
  if (!bools.length && !ints.length && !singular.size) return compiled;
  const fail = (errors: QueryError[]): boolean => {
    wrapped.errors = errors;
    return false;
  };
  const wrapped: Validate = (data: unknown) => {
    if (data === null || typeof data !== 'object') return run(data);
    const q = data as Record<string, unknown>;
    for (const name in q) {
      if (Array.isArray(q[name]) && singular.has(name) && Object.hasOwn(q, name)) return fail([{ keyword: 'repeated', instancePath: `/${name}`, params: { count: (q[name] as unknown[]).length } }]);
    }
    for (const name of bools) {
      if (!Object.hasOwn(q, name) || typeof q[name] !== 'string') continue;
      const b = parseQueryBool(q[name] as string);
      if (b !== undefined) q[name] = b;
    }
    let raw: [string, IntegerProtoType, string][] | undefined;
    for (const [name, type] of ints) {
      if (Object.hasOwn(q, name) && typeof q[name] === 'string') (raw ??= []).push([name, type, q[name] as string]);
    }
    if (!run(q)) return false;
    for (const [name, type, text] of raw ?? []) {
      if (!inProtoRange(text, type)) return fail([{ keyword: 'protoRange', instancePath: `/${name}`, params: { protoType: type }, data: text }]);
    }
    return true;
  };
  const run = (data: unknown): boolean => {
    const ok = compiled(data);
    wrapped.errors = compiled.errors;
    return ok;
  };
  return wrapped;
}

/** The error of a query parameter given more than once (`name` is the proto name). */
export function repeatedParameter(name: string): ApiError {
  return new ApiError({
    status: 'INVALID_ARGUMENT',
    message: `Invalid JSON payload received. Query parameter '${name}' was given more than once, but it takes a single value.`,
  });
}
