// Key-level field rules of the API Keys v2 API. Pure functions: each returns
// null when the value is valid, otherwise the list of FieldViolations.
//
// Field paths are relative to the Key message (`display_name`,
// `annotations`), except `key_id` which is the CreateKeyRequest query
// parameter; callers may prefix them (e.g. "key.") as needed.
//
// Annotation bounds (the real API documents none; chosen to be sane and
// Kubernetes-like):
// - at most 64 entries;
// - key: 1..63 characters, `[A-Za-z0-9]` at both ends, `[A-Za-z0-9._/-]` in
//   between (so `team`, `app.kubernetes.io/name`, `cost-center` are fine);
// - value: a string of at most 1024 characters (Unicode code points); may be
//   empty.

import type { FieldViolation } from './restrictions/types.ts';

export const MAX_DISPLAY_NAME_LENGTH = 63;
export const MAX_ANNOTATIONS = 64;
export const MAX_ANNOTATION_KEY_LENGTH = 63;
export const MAX_ANNOTATION_VALUE_LENGTH = 1024;

const KEY_ID = /^[a-z](?:[a-z0-9-]{0,61}[a-z0-9])?$/;
const UUID_LIKE = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;
const ANNOTATION_KEY = /^[A-Za-z0-9](?:[A-Za-z0-9._/-]*[A-Za-z0-9])?$/;

/** True for the 8-4-4-4-12 hexadecimal UUID form (any version, any case). */
export function isUuidLike(s: string): boolean {
  return typeof s === 'string' && UUID_LIKE.test(s);
}

function codePoints(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    // A high surrogate followed by a low surrogate is one code point.
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) i++;
    }
    n++;
  }
  return n;
}

/** Quotes a text for an error message (`'text'`), cutting it after 100 characters. */
export function quote(s: string): string {
  return s.length > 100 ? `'${s.slice(0, 100)}...'` : `'${s}'`;
}

/** The caller decides whether an absent/empty keyId means "use the uid"; here '' is invalid. */
export function validateKeyId(id: unknown): FieldViolation[] | null {
  if (typeof id !== 'string') {
    return [{ field: 'key_id', description: 'The key id must be a string.' }];
  }
  if (!KEY_ID.test(id)) {
    return [{
      field: 'key_id',
      description: `Invalid key id ${quote(id)}: it must be 1 to 63 characters of lowercase letters, digits and hyphens, start with a letter and not end with a hyphen.`,
    }];
  }
  if (isUuidLike(id)) {
    return [{ field: 'key_id', description: `Invalid key id ${quote(id)}: a key id must not look like a UUID.` }];
  }
  return null;
}

/** Absent (undefined/null, proto3 JSON default) is valid. */
export function validateDisplayName(s: unknown): FieldViolation[] | null {
  if (s === undefined || s === null) return null;
  if (typeof s !== 'string') {
    return [{ field: 'display_name', description: 'The display name must be a string.' }];
  }
  const n = codePoints(s);
  if (n > MAX_DISPLAY_NAME_LENGTH) {
    return [{
      field: 'display_name',
      description: `The display name must be at most ${MAX_DISPLAY_NAME_LENGTH} characters long; got ${n}.`,
    }];
  }
  return null;
}

/** Absent (undefined/null, proto3 JSON default) is valid. */
export function validateAnnotations(map: unknown): FieldViolation[] | null {
  if (map === undefined || map === null) return null;
  if (typeof map !== 'object' || map === null || Array.isArray(map)) {
    return [{ field: 'annotations', description: 'Annotations must be a map of string keys to string values.' }];
  }
  const out: FieldViolation[] = [];
  const entries = Object.entries(map as Record<string, unknown>);
  if (entries.length > MAX_ANNOTATIONS) {
    out.push({
      field: 'annotations',
      description: `At most ${MAX_ANNOTATIONS} annotations are allowed; got ${entries.length}.`,
    });
  }
  for (const [k, v] of entries) {
    const field = `annotations[${JSON.stringify(k)}]`;
    if (out.length >= 100) break;
    if (k.length === 0 || codePoints(k) > MAX_ANNOTATION_KEY_LENGTH || !ANNOTATION_KEY.test(k)) {
      out.push({
        field,
        description: `Invalid annotation key ${quote(k)}: it must be 1 to ${MAX_ANNOTATION_KEY_LENGTH} characters of letters, digits, '.', '_', '/' and '-', starting and ending with a letter or digit.`,
      });
    }
    if (typeof v !== 'string') {
      out.push({ field, description: `The value of annotation ${quote(k)} must be a string.` });
    } else if (codePoints(v) > MAX_ANNOTATION_VALUE_LENGTH) {
      out.push({
        field,
        description: `The value of annotation ${quote(k)} must be at most ${MAX_ANNOTATION_VALUE_LENGTH} characters long.`,
      });
    }
  }
  return out.length > 0 ? out : null;
}
