import { ApiError } from './errors.ts';
import { MAX_JSON_DEPTH, TOO_DEEP } from './bodyParsing.ts';

/**
 * Google's JSON transcoding accepts a field by its JSON name (lowerCamelCase) or its proto name
 * (snake_case). Normalises a parsed body or query to JSON names; map-valued fields (whose keys
 * are data, not field names) are left as they are. Only a name spelled like a proto field name
 * (`display_name`, `api_targets`) is converted; any other name (`__proto__`, `_Proto__`, `a__b`)
 * is kept exactly as sent, so an error names it as the caller wrote it. Names become own
 * properties (never a prototype), and the walk stops at the parser's depth limit.
 */
export function toJsonNames(value: unknown, mapFields: ReadonlySet<string> = new Set(), depth = 0): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (depth > MAX_JSON_DEPTH) throw new ApiError({ status: 'INVALID_ARGUMENT', message: TOO_DEEP });
  if (Array.isArray(value)) return value.map((v) => toJsonNames(v, mapFields, depth + 1));
  if (isFlatWithJsonNames(value as Record<string, unknown>)) return value;
  const entries: [string, unknown][] = [];
  const o = value as Record<string, unknown>;
  for (const [k, v] of Object.entries(o)) {
    const name = jsonName(k);
    // `key_string` and `keyString` together name one field twice: refused by name, no value quoted.
    if (name !== k && Object.hasOwn(o, name)) throw givenTwice(name, k);
    entries.push([name, mapFields.has(name) ? v : toJsonNames(v, mapFields, depth + 1)]);
  }
  // fromEntries defines own data properties: `__proto__` stays a name, never a prototype.
  return Object.fromEntries(entries);
}

function givenTwice(name: string, protoName: string): ApiError {
  return new ApiError({
    status: 'INVALID_ARGUMENT',
    message: `Invalid JSON payload received. Field '${protoName}' was given more than once (as '${protoName}' and '${name}'), but it takes a single value.`,
  });
}

const PROTO_NAME = /^[a-z][a-z0-9]*(?:_[a-z0-9]+)+$/;

/** `display_name` -> `displayName`; a name that is not a proto field name is returned as it is. */
export function jsonName(name: string): string {
  if (!name.includes('_') || !PROTO_NAME.test(name)) return name;
  return name.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());
}

/** The common case (a query or body of scalars already in JSON names) needs no copy. */
function isFlatWithJsonNames(o: Record<string, unknown>): boolean {
  for (const k in o) {
    if (!Object.hasOwn(o, k)) continue;
    const v = o[k];
    if (k.includes('_') || (v !== null && typeof v === 'object')) return false;
  }
  return true;
}
