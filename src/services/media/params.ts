/**
 * Single-parameter rules of the media methods: each turns the raw query value into its typed
 * form or throws the real service's error for it. Cross-parameter rules live in `rules.ts`.
 */
import type { ApiError } from '../../platform/http/errors.ts';
import type { MediaKind } from './catalog/types.ts';
import { LANGUAGE_CODES, REGION_CODES } from './codes.ts';
import { invalidParameter, mediaError, parameterError, requiredParameter, searchError } from './errors.ts';
import { MAX_REACHABLE } from './names.ts';
import { type PageToken, decodePageToken } from './pageToken.ts';

/** The raw query: a value is a string, or a list when the parameter was repeated. */
export type RawQuery = Record<string, unknown>;

/** Longest value any parameter may carry (q is cut shorter by its parser). */
export const MAX_PARAM_LENGTH = 2048;

/** The single value of a parameter (the last one when repeated), or undefined when absent. */
export function single(query: RawQuery, name: string): string | undefined {
  if (!Object.hasOwn(query, name)) return undefined;
  let v = query[name];
  if (Array.isArray(v)) v = v[v.length - 1];
  if (v === undefined || v === null) return undefined;
  const s = String(v);
  if (s.length > MAX_PARAM_LENGTH) throw tooLong(name);
  return s;
}

function tooLong(name: string): ApiError {
  return invalidParameter(name, `Invalid value for parameter ${name}: the value is longer than ${MAX_PARAM_LENGTH} characters.`);
}

/** Every comma-separated entry of a (possibly repeated) list parameter, trimmed, empty ones dropped. */
export function listValues(query: RawQuery, name: string): string[] | undefined {
  if (!Object.hasOwn(query, name)) return undefined;
  const raw = query[name];
  const values = (Array.isArray(raw) ? raw : [raw]).map(String);
  if (values.join(',').length > MAX_PARAM_LENGTH) throw tooLong(name);
  return values.flatMap((v) => v.split(',')).map((v) => v.trim()).filter((v) => v !== '');
}

/** `part`: required, comma list or repeated; each entry one of `allowed` (case-sensitive, as the real service). */
export function parseParts<P extends string>(query: RawQuery, allowed: readonly P[]): Set<P> {
  const values = listValues(query, 'part');
  if (!values || values.length === 0) throw requiredParameter('part');
  const out = new Set<P>();
  for (const v of values) {
    if (!(allowed as readonly string[]).includes(v)) throw mediaError({ message: v, domain: 'youtube.part', reason: 'unknownPart', location: 'part' });
    out.add(v as P);
  }
  return out;
}

/** `pageToken`: absent or empty is none; anything else must be a token the server wrote (offset within the reachable results). */
export function parsePageToken(query: RawQuery): PageToken | undefined {
  const text = single(query, 'pageToken');
  return text ? decodePageToken(text, MAX_REACHABLE) : undefined;
}

/** An enumerated string parameter, matched case-insensitively; `undefined` when absent. */
export function parseEnum<V extends string>(query: RawQuery, name: string, values: readonly V[]): V | undefined {
  const raw = single(query, name);
  if (raw === undefined) return undefined;
  const lower = raw.toLowerCase();
  const hit = values.find((v) => v.toLowerCase() === lower);
  if (hit === undefined) throw invalidParameter(name, `Invalid string value: '${raw}'. Allowed values: [${values.map((v) => v.toLowerCase()).join(', ')}]`);
  return hit;
}

/** `maxResults`: an unsigned integer within `[min, max]`; `fallback` when absent. */
export function parseMaxResults(query: RawQuery, min: number, max: number, fallback: number): number {
  const raw = single(query, 'maxResults');
  if (raw === undefined) return fallback;
  if (!/^\+?\d{1,10}$/.test(raw.trim())) throw invalidParameter('maxResults', `Invalid unsigned integer value: '${raw}'.`);
  const n = Number(raw.trim());
  if (n < min || n > max) throw invalidParameter('maxResults', `Invalid value '${raw}'. Values must be within the range: [${min}, ${max}]`);
  return n;
}

const KINDS: readonly MediaKind[] = ['video', 'channel', 'playlist'];

/** `type`: comma list of channel, playlist, video; default all three. */
export function parseTypes(query: RawQuery): MediaKind[] {
  const values = listValues(query, 'type');
  if (!values || values.length === 0) return [...KINDS];
  const out: MediaKind[] = [];
  for (const v of values) {
    const k = KINDS.find((kind) => kind === v.toLowerCase());
    if (!k) throw invalidParameter('type', `Invalid string value: '${v}'. Allowed values: [channel, playlist, video]`);
    if (!out.includes(k)) out.push(k);
  }
  return out;
}

/** Channel ids: the real ones are `UC` + 22 characters; any id the catalogue can hold (1-64 of letters, digits, `-`, `_`) is accepted. */
export const CHANNEL_ID = /^[A-Za-z0-9_-]{1,64}$/;

export function parseChannelId(query: RawQuery): string | undefined {
  const raw = single(query, 'channelId');
  if (raw === undefined) return undefined;
  if (!CHANNEL_ID.test(raw)) throw searchError('invalidChannelId', 'The channelId parameter specified in the request is not a valid channel ID.', 'channelId');
  return raw;
}

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?([Zz]|[+-]\d{2}:\d{2})$/;

/** An RFC 3339 date-time as epoch ms (fractions past milliseconds are cut). */
export function parseDateTime(query: RawQuery, name: string): number | undefined {
  const raw = single(query, name);
  if (raw === undefined) return undefined;
  const m = RFC3339.exec(raw);
  const bad = (): ApiError => invalidParameter(name, `Invalid value '${raw}'. Expected an RFC 3339 date-time, e.g. 1970-01-01T00:00:00Z.`);
  if (!m) throw bad();
  const [y, mo, d, h, mi, s] = m.slice(1, 7).map(Number);
  if (mo < 1 || mo > 12 || d < 1 || d > new Date(Date.UTC(y, mo, 0)).getUTCDate() || h > 23 || mi > 59 || s > 60) throw bad();
  const ms = Date.parse(raw.replace(/(\.\d{3})\d+/, '$1'));
  if (!Number.isFinite(ms)) throw bad();
  return ms;
}

export function parseRegionCode(query: RawQuery): string | undefined {
  const raw = single(query, 'regionCode');
  if (raw === undefined) return undefined;
  const code = raw.toUpperCase();
  if (!REGION_CODES.has(code)) throw parameterError('invalidRegionCode', 'The <code>regionCode</code> parameter specifies an invalid region code.', 'regionCode');
  return code;
}

/** A language tag: an ISO 639-1 code with optional script (`zh-Hans`) and region (`pt-BR`, `es-419`) subtags. */
export function parseRelevanceLanguage(query: RawQuery): string | undefined {
  const raw = single(query, 'relevanceLanguage');
  if (raw === undefined) return undefined;
  const m = /^([A-Za-z]{2})(?:[-_]([A-Za-z]{4}))?(?:[-_]([A-Za-z]{2}|\d{3}))?$/.exec(raw);
  if (!m || !LANGUAGE_CODES.has(m[1].toLowerCase())) {
    throw searchError('invalidRelevanceLanguage', 'The <code>relevanceLanguage</code> parameter value is invalid.', 'relevanceLanguage');
  }
  let tag = m[1].toLowerCase();
  if (m[2]) tag += '-' + m[2][0].toUpperCase() + m[2].slice(1).toLowerCase();
  if (m[3]) tag += '-' + m[3].toUpperCase();
  return tag;
}

const UNIT_METERS: Record<string, number> = { m: 1, km: 1000, ft: 0.3048, mi: 1609.344 };
export const MAX_RADIUS_METERS = 1_000_000;

/** `location` `(lat,lng)` (parentheses optional) and `locationRadius` `<float><m|km|ft|mi>`. */
export function parseLocation(query: RawQuery): { lat: number; lng: number; radiusMeters: number } | undefined {
  const loc = single(query, 'location');
  const radius = single(query, 'locationRadius');
  if (loc === undefined && radius === undefined) return undefined;
  if (loc === undefined) throw searchError('invalidLocation', 'The locationRadius parameter is set but the location parameter is not.', 'location');
  if (radius === undefined) throw searchError('invalidLocation', 'The location parameter is set but the locationRadius parameter is not: a location search needs both.', 'locationRadius');
  const m = /^\s*\(?\s*([+-]?(?:\d+\.?\d*|\.\d+))\s*,\s*([+-]?(?:\d+\.?\d*|\.\d+))\s*\)?\s*$/.exec(loc);
  const lat = m ? Number(m[1]) : NaN;
  const lng = m ? Number(m[2]) : NaN;
  if (!m || !(lat >= -90 && lat <= 90) || !(lng >= -180 && lng <= 180)) {
    throw searchError('invalidLocation', `Invalid value '${loc}' for location: expected (latitude,longitude) with latitude in [-90, 90] and longitude in [-180, 180].`, 'location');
  }
  const r = /^\s*(\d+\.?\d*|\.\d+)\s*(m|km|ft|mi)\s*$/.exec(radius);
  if (!r) throw searchError('invalidLocation', `Invalid value '${radius}' for locationRadius: expected a number followed by m, km, ft or mi.`, 'locationRadius');
  const radiusMeters = Number(r[1]) * UNIT_METERS[r[2]];
  if (!(radiusMeters <= MAX_RADIUS_METERS)) throw searchError('invalidLocation', 'Invalid value for locationRadius: values above 1000 kilometers are not supported.', 'locationRadius');
  return { lat, lng, radiusMeters };
}

/** A boolean the schema already typed (the platform parses `true`/`True`/`1`...), or false. */
export function flag(query: RawQuery, name: string): boolean {
  return Object.hasOwn(query, name) && query[name] === true;
}

/** `id`: a comma list (or repeated) of resource ids, at most `max`. */
export function parseIds(query: RawQuery, name: string, max: number): string[] | undefined {
  const values = listValues(query, name);
  if (values === undefined) return undefined;
  if (values.length > max) throw invalidParameter(name, `Invalid value for parameter ${name}: at most ${max} ids may be given.`);
  return [...new Set(values)];
}
