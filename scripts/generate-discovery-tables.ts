/**
 * Generates the compact tables the twin reads Google's discovery documents through
 * (src/platform/discovery/schemas.ts): src/services/compute/discovery/table.json from Compute v1's
 * and src/services/media/catalog/youtube.table.json from the Data API v3's (the media catalogue's
 * entries are its resources):
 * every schema's fields with their JSON types (int64/uint64 as strings, enum values, timestamps),
 * and every method's HTTP verb, path and response schema. The output is committed, so a fresh
 * clone needs neither the document nor this script to run the tests.
 *
 *   node scripts/generate-discovery-tables.ts [directory of compute.v1.json and youtube.v3.json]
 *
 * Field types: `s` string, `t` RFC 3339 timestamp (a string field Google documents as one),
 * `i32`, `u32` (JSON numbers), `i64`, `u64` (decimal strings), `n` (double/float), `b` boolean,
 * `x` any JSON, `@Name` another schema, `e<N>` one of `enums[N]`, `{a: T}` array, `{m: T}` map,
 * `{o: {...}}` an inline object.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

type Field = string | { a: Field } | { m: Field } | { o: Record<string, Field> };
interface DiscoveryProp {
  type?: string;
  format?: string;
  $ref?: string;
  enum?: string[];
  items?: DiscoveryProp;
  additionalProperties?: DiscoveryProp;
  properties?: Record<string, DiscoveryProp>;
  description?: string;
}

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const sourceDir = process.argv[2] ?? join(root, '..', '..', 'shared', 'discovery');
let enums: string[][] = [];
let enumIndex = new Map<string, number>();

function field(p: DiscoveryProp): Field {
  if (p.$ref) return `@${p.$ref}`;
  if (p.enum) {
    const key = JSON.stringify(p.enum);
    if (!enumIndex.has(key)) enumIndex.set(key, enums.push(p.enum) - 1);
    return `e${enumIndex.get(key)}`;
  }
  switch (p.type) {
    case 'string':
      if (p.format === 'int64') return 'i64';
      if (p.format === 'uint64') return 'u64';
      if (p.format === 'google-datetime' || p.format === 'date-time' || /RFC ?3339/i.test(p.description ?? '')) return 't';
      return 's';
    case 'integer':
      return p.format === 'uint32' ? 'u32' : 'i32';
    case 'number':
      return 'n';
    case 'boolean':
      return 'b';
    case 'array':
      return { a: field(p.items ?? {}) };
    case 'object':
      if (p.properties) return { o: fields(p.properties) };
      if (p.additionalProperties) return { m: field(p.additionalProperties) };
      return 'x';
    default:
      return 'x';
  }
}

function fields(props: Record<string, DiscoveryProp>): Record<string, Field> {
  return Object.fromEntries(Object.entries(props).map(([k, v]) => [k, field(v)]));
}

function generate(docFile: string, out: string): void {
  const doc = JSON.parse(readFileSync(join(sourceDir, docFile), 'utf8'));
  enums = [];
  enumIndex = new Map();
  const schemas: Record<string, Record<string, Field>> = {};
  for (const [name, s] of Object.entries<any>(doc.schemas)) schemas[name] = fields(s.properties ?? {});
  const methods: [id: string, verb: string, path: string, response: string][] = [];
  const walk = (resources: Record<string, any>) => {
    for (const r of Object.values(resources)) {
      for (const m of Object.values<any>(r.methods ?? {})) methods.push([m.id, m.httpMethod, m.flatPath ?? m.path, m.response?.$ref ?? '']);
      if (r.resources) walk(r.resources);
    }
  };
  walk(doc.resources ?? {});
  methods.sort((a, b) => a[0].localeCompare(b[0]));
  writeFileSync(join(root, out), JSON.stringify({ source: `${doc.id} revision ${doc.revision}`, enums, schemas, methods }) + '\n');
  console.log(`${out}: ${Object.keys(schemas).length} schemas, ${methods.length} methods, ${enums.length} enums`);
}

generate('compute.v1.json', 'src/services/compute/discovery/table.json');
generate('youtube.v3.json', 'src/services/media/catalog/youtube.table.json');
