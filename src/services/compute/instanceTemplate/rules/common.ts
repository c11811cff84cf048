/**
 * What every rule file shares: the collector of errors, Compute's message shapes, value access on
 * the canonical body (see `../schema/transcode.ts`), and the name / label / URL syntaxes.
 */
import type { OperationErrorEntry, TemplateFieldError } from '../types.ts';

export type Obj = Record<string, unknown>;

/** Context of one validation: errors found so far, deferred (operation-time) errors, the region. */
export class Findings {
  readonly errors: TemplateFieldError[] = [];
  readonly deferred: OperationErrorEntry[] = [];
  /** The request's region (path parameter), when the caller knows it. */
  readonly region?: string;

  constructor(region?: string) {
    this.region = region;
  }

  /** `Invalid value for field 'P': 'V'. DETAIL` (reason `invalid`). */
  invalid(location: string, value: unknown, detail: string): void {
    this.errors.push({ reason: 'invalid', message: invalidMessage(location, value, detail), location });
  }

  /** `Required field 'P' not specified` (reason `required`). */
  required(location: string): void {
    this.errors.push({ reason: 'required', message: `Required field '${location}' not specified`, location });
  }

  /** An error the real service gives only when the operation runs. */
  defer(entry: OperationErrorEntry): void {
    this.deferred.push(entry);
  }
}

const MAX_SHOWN = 1024;

/** A value as Compute quotes it in messages: strings raw, numbers and booleans as text, objects empty. */
export function shownValue(v: unknown): string {
  let s: string;
  if (typeof v === 'string') s = v;
  else if (typeof v === 'number' || typeof v === 'boolean' || typeof v === 'bigint') s = String(v);
  else s = '';
  return s.length > MAX_SHOWN ? s.slice(0, MAX_SHOWN) + '...' : s;
}

export function invalidMessage(location: string, value: unknown, detail: string): string {
  return `Invalid value for field '${location}': '${shownValue(value)}'.${detail ? ' ' + detail : ''}`;
}

export function isObj(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Own field of a canonical message (never a prototype's). */
export function field(o: Obj | undefined, name: string): unknown {
  return o !== undefined && Object.hasOwn(o, name) ? o[name] : undefined;
}

export function objField(o: Obj | undefined, name: string): Obj | undefined {
  const v = field(o, name);
  return isObj(v) ? v : undefined;
}

export function listField(o: Obj | undefined, name: string): unknown[] {
  const v = field(o, name);
  return Array.isArray(v) ? v : [];
}

export function strField(o: Obj | undefined, name: string): string | undefined {
  const v = field(o, name);
  return typeof v === 'string' ? v : undefined;
}

export function numField(o: Obj | undefined, name: string): number | undefined {
  const v = field(o, name);
  return typeof v === 'number' ? v : undefined;
}

/** int64 fields are canonical decimal strings. */
export function int64Field(o: Obj | undefined, name: string): bigint | undefined {
  const v = field(o, name);
  return typeof v === 'string' && /^-?\d+$/.test(v) ? BigInt(v) : undefined;
}

export function boolField(o: Obj | undefined, name: string): boolean | undefined {
  const v = field(o, name);
  return typeof v === 'boolean' ? v : undefined;
}

/** Own entries of a map field. */
export function mapEntries(o: Obj | undefined, name: string): [string, unknown][] {
  const v = field(o, name);
  return isObj(v) ? Object.keys(v).map((k) => [k, v[k]]) : [];
}

// ---- syntaxes --------------------------------------------------------------------------------

/** RFC1035 resource name, 1-63 characters. */
export const NAME = /^[a-z](?:[-a-z0-9]{0,61}[a-z0-9])?$/;
/** As Compute prints it in `Must be a match of regex` messages. */
export const NAME_REGEX_TEXT = '(?:[a-z](?:[-a-z0-9]{0,61}[a-z0-9])?)';

export function checkName(f: Findings, location: string, value: string): void {
  if (!NAME.test(value)) f.invalid(location, value, `Must be a match of regex '${NAME_REGEX_TEXT}'`);
}

/** Project ids (6-30) and legacy domain-scoped ids (`example.com:proj`), or project numbers. */
export const PROJECT = String.raw`(?:(?:[-a-z0-9.]{1,63}\.)*(?:[a-z][-a-z0-9.]{0,61})?[a-z](?:[-a-z0-9]{0,61}[a-z0-9])?:)?(?:[a-z](?:[-a-z0-9]{0,61}[a-z0-9])?|[0-9]{1,19})`;
const RNAME = String.raw`[a-z](?:[-a-z0-9]{0,61}[a-z0-9])?`;
/** Region and zone names: `us-central1`, `us-central1-a`. */
export const REGION_NAME = /^[a-z]+-[a-z]+[0-9]+$/;
export const ZONE_NAME = /^[a-z]+-[a-z]+[0-9]+-[a-z]$/;

export interface ParsedRef {
  project?: string;
  region?: string;
  zone?: string;
  /** Collection as written: `networks`, `subnetworks`, `images`, ... */
  collection: string;
  name: string;
  /** Image families: `family/x`. */
  family?: boolean;
  /** True when written as a full `https://...` URL. */
  full: boolean;
}

/** One path segment of each part of a reference (no part may hold a `/`, so segments are checked alone). */
const PROJECT_SEGMENT = new RegExp(`^${PROJECT}$`);
/** `PROJECT` without its domain-scoped form (which needs a `:`): the same answer for segments without one, and cheaper. */
const PLAIN_PROJECT_SEGMENT = /^(?:[a-z](?:[-a-z0-9]{0,61}[a-z0-9])?|[0-9]{1,19})$/;
const SCOPE_SEGMENT = /^[a-z][-a-z0-9]{0,62}$/;
const NAME_OR_ID_SEGMENT = new RegExp(`^(?:${RNAME}|[0-9]{1,20})$`);
const HOST = /^[^/?#\s]+$/;
const API_VERSIONS: ReadonlySet<string> = new Set(['v1', 'beta', 'alpha']);

/**
 * Parses a full or partial URL of a global, regional or zonal resource of `collection`:
 * `https://.../compute/v1/projects/P/global/C/N`, `projects/P/global/C/N`, `global/C/N`
 * (and regions/R or zones/Z for the scoped ones). Bare names are the caller's business.
 *
 * The accepted language is the regular expression
 * `^(?:https?://HOST/compute/(?:v1|beta|alpha)/)?(?:projects/(PROJECT)/)?SCOPE/C/(NAME|[0-9]{1,20})$`
 * (HOST `[^/?#\s]+`; SCOPE `global`, `regions/R` or `zones/Z`, R and Z `[a-z][-a-z0-9]{0,62}`),
 * and a full URL must name its project. No part can hold a `/`, so the value is read segment by
 * segment: on the insert path this runs for every network, subnetwork and image, and the one
 * expression's backtracking over PROJECT's domain-scoped form cost more than the rest of the rule.
 */
export function parseRef(value: string, scope: 'global' | 'regions' | 'zones', collection: string): ParsedRef | undefined {
  // Segments are read in place (no split: this runs several times per insert).
  let at = 0;
  /** The segment at `at` (to the next `/` or the end); moves `at` past it and its `/` (-1 at the end). */
  const next = (): string | undefined => {
    if (at < 0) return undefined;
    const end = value.indexOf('/', at);
    const segment = end < 0 ? value.slice(at) : value.slice(at, end);
    at = end < 0 ? -1 : end + 1;
    return segment;
  };
  const full = value.startsWith('https://') || value.startsWith('http://');
  if (full) {
    at = value.indexOf('//') + 2;
    if (!HOST.test(next()!) || next() !== 'compute' || !API_VERSIONS.has(next()!)) return undefined;
  }
  let project: string | undefined;
  let segment = next();
  if (segment === 'projects') {
    project = next();
    if (project === undefined || !(project.includes(':') ? PROJECT_SEGMENT : PLAIN_PROJECT_SEGMENT).test(project)) return undefined;
    segment = next();
  } else if (full) {
    return undefined;
  }
  let where: string | undefined;
  if (scope === 'global') {
    if (segment !== 'global') return undefined;
  } else {
    where = next();
    if (segment !== scope || where === undefined || !SCOPE_SEGMENT.test(where)) return undefined;
  }
  if (next() !== collection) return undefined;
  const name = next();
  if (name === undefined || at >= 0 || !NAME_OR_ID_SEGMENT.test(name)) return undefined;
  const out: ParsedRef = { collection, name, full };
  if (project !== undefined) out.project = project;
  if (scope === 'regions') out.region = where;
  if (scope === 'zones') out.zone = where;
  return out;
}

/** The region of a zone name (`us-central1-a` -> `us-central1`). */
export function zoneRegion(zone: string): string {
  return zone.replace(/-[a-z]$/, '');
}

/** RFC 4648 base64 (standard alphabet, padded) and its decoded length; undefined when malformed. */
export function base64Bytes(s: string): number | undefined {
  if (s.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(s)) return undefined;
  return Buffer.from(s, 'base64').length;
}

export function utf8Length(s: string): number {
  return Buffer.byteLength(s, 'utf8');
}

// ---- labels (the rules of every Google Cloud label) -------------------------------------------

const LABEL_KEY = /^[\p{Ll}\p{Lo}][\p{Ll}\p{Lo}\p{N}_-]{0,62}$/u;
const LABEL_VALUE = /^[\p{Ll}\p{Lo}\p{N}_-]{0,63}$/u;
export const MAX_LABELS = 64;

/** Checks a `labels` map; `location` names the map (`resource.properties.labels`). */
export function checkLabels(f: Findings, location: string, labels: [string, unknown][]): void {
  if (labels.length > MAX_LABELS) {
    f.invalid(location, '', `A resource can have at most ${MAX_LABELS} labels; ${labels.length} were given.`);
  }
  for (const [key, value] of labels) {
    if (!LABEL_KEY.test(key)) {
      f.invalid(location, '', `Label key '${shownValue(key)}' violates format constraints. The key must start with a lowercase character, can only contain lowercase letters, numeric characters, underscores and dashes. The key can be at most 63 characters long. International characters are allowed.`);
    }
    if (typeof value === 'string' && !LABEL_VALUE.test(value)) {
      f.invalid(location, '', `Label value '${shownValue(value)}' violates format constraints. The value can only contain lowercase letters, numeric characters, underscores and dashes. The value can be at most 63 characters long. International characters are allowed.`);
    }
  }
}

/** A field that takes a resource name only in a template (`pd-ssd`, not a URL). */
export function checkBareName(f: Findings, location: string, value: string, what: string): boolean {
  if (value.includes('/')) {
    f.invalid(location, value, `${what} '${shownValue(value)}' must be a valid resource name (not an url).`);
    return false;
  }
  if (!NAME.test(value)) {
    f.invalid(location, value, `Must be a match of regex '${NAME_REGEX_TEXT}'`);
    return false;
  }
  return true;
}

export const MALFORMED_URL = 'The URL is malformed.';
