/**
 * Google's JSON transcoding accepts a field by its JSON name (lowerCamelCase) or its proto name
 * (snake_case). Normalises a parsed body or query to JSON names; map-valued fields (whose keys
 * are data, not field names) are left as they are.
 */
export function toJsonNames(value: unknown, mapFields: ReadonlySet<string> = new Set()): unknown {
  if (Array.isArray(value)) return value.map((v) => toJsonNames(v, mapFields));
  if (value === null || typeof value !== 'object') return value;
  if (isFlatWithJsonNames(value as Record<string, unknown>)) return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
    const name = k.includes('_') ? k.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase()) : k;
    out[name] = mapFields.has(name) ? v : toJsonNames(v, mapFields);
  }
  return out;
}

/** The common case (a query or body of scalars already in JSON names) needs no copy. */
function isFlatWithJsonNames(o: Record<string, unknown>): boolean {
  for (const k in o) {
    const v = o[k];
    if (k.includes('_') || (v !== null && typeof v === 'object')) return false;
  }
  return true;
}
