import { ApiError, invalidArgument } from '../../platform/http/errors.ts';
import type { Restrictions } from './restrictions/types.ts';
import { SERVICE } from './names.ts';

/** The mutable fields of a Key an update may set. */
export interface KeyChanges {
  displayName?: string;
  restrictions?: Restrictions;
  annotations?: Record<string, string>;
}

const MUTABLE: Record<string, keyof KeyChanges> = {
  display_name: 'displayName',
  displayName: 'displayName',
  restrictions: 'restrictions',
  annotations: 'annotations',
};

const IMMUTABLE = new Set([
  'name',
  'uid',
  'key_string',
  'keyString',
  'create_time',
  'createTime',
  'update_time',
  'updateTime',
  'delete_time',
  'deleteTime',
  'etag',
  'service_account_email',
  'serviceAccountEmail',
]);

const EMPTY: Required<KeyChanges> = { displayName: '', restrictions: {}, annotations: {} };

/**
 * updateMask semantics: paths in snake or camel case; `*` means every mutable field; no mask
 * means every mutable field present in the body. A masked field absent from the body is cleared.
 * Restriction lists are replaced whole, never merged.
 */
export function parseUpdateMask(mask: string | undefined, body: Record<string, unknown>): KeyChanges {
  const fields = new Set<keyof KeyChanges>();
  const paths = (mask ?? '').split(',').map((s) => s.trim()).filter(Boolean);
  if (paths.length === 0) {
    for (const f of Object.values(MUTABLE)) if (body[f] !== undefined) fields.add(f);
  }
  const immutable: string[] = [];
  for (const path of paths) {
    if (path === '*') Object.values(MUTABLE).forEach((f) => fields.add(f));
    else if (MUTABLE[path]) fields.add(MUTABLE[path]);
    else if (IMMUTABLE.has(path)) immutable.push(path);
    else throw invalidArgument(`Invalid update mask path '${path}'. The mutable fields of a key are display_name, restrictions and annotations.`);
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
  for (const f of fields) (changes as Record<string, unknown>)[f] = body[f] ?? EMPTY[f];
  return changes;
}
