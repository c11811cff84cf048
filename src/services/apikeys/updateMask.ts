import { ApiError, invalidArgument } from '../../platform/http/errors.ts';
import type { Restrictions } from './restrictions/types.ts';
import { SERVICE } from './names.ts';
import { quote } from './rules.ts';

/** A field of `google.api.apikeys.v2.Restrictions` an update mask may name on its own. */
export type RestrictionPart = keyof Restrictions;

/** The application restrictions: members of the proto oneof `client_restrictions`. */
export const CLIENT_RESTRICTIONS: readonly RestrictionPart[] = ['browserKeyRestrictions', 'serverKeyRestrictions', 'androidKeyRestrictions', 'iosKeyRestrictions'];

/**
 * What an update does, as stored in its operation's payload (plain JSON) and applied to the key
 * as it stands when the operation completes. Whole fields are replaced; `restrictionParts` are
 * sub-fields of `restrictions` replaced one by one (`null`: cleared), the rest of it kept.
 */
export interface KeyChanges {
  displayName?: string;
  restrictions?: Restrictions;
  annotations?: Record<string, string>;
  restrictionParts?: [RestrictionPart, unknown][];
}

/** The mutable part of a key. */
export interface MutableKey {
  displayName: string;
  restrictions: Restrictions;
  annotations: Record<string, string>;
}

type Whole = 'displayName' | 'restrictions' | 'annotations';

/** What a mask path names. `deep`: a field inside one restriction kind (which that kind then holds). */
type Target = { whole: Whole } | { part: RestrictionPart; deep: boolean } | { immutable: true };

const WHOLE: readonly Whole[] = ['displayName', 'restrictions', 'annotations'];
const IMMUTABLE = ['name', 'uid', 'keyString', 'createTime', 'updateTime', 'deleteTime', 'etag', 'serviceAccountEmail'];
/** The single field of each application restriction kind (a path into it replaces the kind). */
const KIND_FIELD: ReadonlyMap<RestrictionPart, string> = new Map([
  ['browserKeyRestrictions', 'allowedReferrers'],
  ['serverKeyRestrictions', 'allowedIps'],
  ['androidKeyRestrictions', 'allowedApplications'],
  ['iosKeyRestrictions', 'allowedBundleIds'],
]);

/** Every path a mask may name, in lowerCamelCase (a Map: no name on Object.prototype can match). */
const PATHS: ReadonlyMap<string, Target> = (() => {
  const m = new Map<string, Target>();
  for (const f of WHOLE) m.set(f, { whole: f });
  for (const f of IMMUTABLE) m.set(f, { immutable: true });
  for (const part of [...CLIENT_RESTRICTIONS, 'apiTargets'] as RestrictionPart[]) m.set(`restrictions.${part}`, { part, deep: false });
  for (const [part, field] of KIND_FIELD) m.set(`restrictions.${part}.${field}`, { part, deep: true });
  return m;
})();

/** `browser_key_restrictions` -> `browserKeyRestrictions`; a lowerCamelCase segment is kept as it is. */
function segmentToCamel(seg: string): string {
  return /^[a-z][a-z0-9_]*$/.test(seg) ? seg.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase()) : seg;
}

function invalidPath(path: string): ApiError {
  const description =
    `Invalid update mask path ${quote(path)}: it names no mutable field of a key. The mutable fields are display_name, restrictions ` +
    '(or its fields browser_key_restrictions, server_key_restrictions, android_key_restrictions, ios_key_restrictions, api_targets) and annotations.';
  return invalidArgument(description, [{ field: 'update_mask', description }]);
}

function present(v: unknown): boolean {
  return v !== undefined && v !== null;
}

/**
 * updateMask semantics (google.protobuf.FieldMask): paths in snake_case or lowerCamelCase, comma
 * separated; `*` means every mutable field; no mask means every mutable field present in the
 * body. A masked field absent from the body is cleared. A path into `restrictions`
 * (`restrictions.browser_key_restrictions`, `restrictions.api_targets`, ...) replaces only that
 * field and keeps the rest of the key's restrictions; naming one application restriction kind
 * that the body sets clears the key's other kind (they are one proto `oneof`). A path that names
 * no field is 400 naming it; an output-only field is 400 APIKEYS_UPDATE_MASK_CONTAINS_IMMUTABLE_FIELDS.
 */
export function parseUpdateMask(mask: string | undefined, body: Record<string, unknown>): KeyChanges {
  const wholes = new Set<Whole>();
  const parts = new Map<RestrictionPart, boolean>(); // part -> deep only
  const paths = (mask ?? '').split(',').map((s) => s.trim()).filter(Boolean);
  if (paths.length === 0) {
    for (const f of WHOLE) if (Object.hasOwn(body, f) && body[f] !== undefined) wholes.add(f);
  }
  const immutable: string[] = [];
  for (const path of paths) {
    if (path === '*') {
      WHOLE.forEach((f) => wholes.add(f));
      continue;
    }
    const target = PATHS.get(path.split('.').map(segmentToCamel).join('.'));
    if (!target) throw invalidPath(path);
    if ('immutable' in target) immutable.push(path);
    else if ('whole' in target) wholes.add(target.whole);
    else parts.set(target.part, (parts.get(target.part) ?? true) && target.deep);
  }
  if (immutable.length) {
    throw new ApiError({
      status: 'INVALID_ARGUMENT',
      message: `The update mask contains immutable fields: ${immutable.join(', ')}.`,
      reason: 'APIKEYS_UPDATE_MASK_CONTAINS_IMMUTABLE_FIELDS',
      domain: SERVICE,
      metadata: { fields: immutable.join(',') },
    });
  }
  const changes: KeyChanges = {};
  if (wholes.has('displayName')) changes.displayName = (body.displayName as string | undefined) ?? '';
  if (wholes.has('annotations')) changes.annotations = (body.annotations as Record<string, string> | undefined) ?? {};
  if (wholes.has('restrictions')) changes.restrictions = (body.restrictions as Restrictions | undefined) ?? {};
  else if (parts.size > 0) {
    const given = (body.restrictions ?? {}) as Record<string, unknown>;
    const kinds = CLIENT_RESTRICTIONS.filter((k) => present(given[k]));
    if (kinds.length > 1) {
      const description = `Only one application restriction may be set on a key (they are one oneof); the body sets ${kinds.join(' and ')}.`;
      throw invalidArgument(description, [{ field: 'key.restrictions', description }]);
    }
    changes.restrictionParts = [...parts].map(([part, deep]) => {
      const v = present(given[part]) ? given[part] : undefined;
      return [part, v ?? (deep ? {} : null)];
    });
  }
  return changes;
}

/** The key's mutable fields once `changes` are applied (restrictions as merged, not yet validated). */
export function applyChanges(key: MutableKey, changes: KeyChanges): MutableKey {
  const out: MutableKey = { displayName: key.displayName, restrictions: key.restrictions, annotations: key.annotations };
  if (changes.displayName !== undefined) out.displayName = changes.displayName;
  if (changes.annotations !== undefined) out.annotations = changes.annotations;
  if (changes.restrictions !== undefined) out.restrictions = changes.restrictions;
  else if (changes.restrictionParts?.length) {
    const r: Record<string, unknown> = { ...key.restrictions };
    for (const [part, value] of changes.restrictionParts) {
      if (value === null) {
        delete r[part];
        continue;
      }
      if (KIND_FIELD.has(part)) for (const k of CLIENT_RESTRICTIONS) delete r[k];
      r[part] = value;
    }
    out.restrictions = r as Restrictions;
  }
  return out;
}
