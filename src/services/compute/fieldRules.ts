/** Field rules the networking kinds share (the body already read by resourceBody.ts): each throws the 400 of the first bad field. */
import { invalidField, requiredField } from './errors.ts';
import { NAME, NAME_REGEX_TEXT } from './instanceTemplate/rules/common.ts';

/** The resource's `name`: required, an RFC 1035 name of 1-63 characters. */
export function checkResourceName(body: Record<string, unknown>): string {
  const name = body.name;
  if (name === undefined || name === '') throw requiredField('resource.name');
  if (typeof name !== 'string' || !NAME.test(name)) throw invalidField('resource.name', name, `Must be a match of regex '${NAME_REGEX_TEXT}'`);
  return name;
}

/** An optional `description` of at most 2048 characters. */
export function checkDescription(body: Record<string, unknown>): void {
  if (typeof body.description === 'string' && body.description.length > 2048) throw invalidField('resource.description', body.description.slice(0, 60), 'Must be at most 2048 characters long.');
}

/** An integer field within [min, max] (inclusive), when given. */
export function checkRange(body: Record<string, unknown>, field: string, min: number, max: number): void {
  const v = body[field];
  if (v !== undefined && (typeof v !== 'number' || v < min || v > max)) throw invalidField(`resource.${field}`, v, `Must be between ${min} and ${max}.`);
}

/** The body without the fields the service sets (a client may send back what it read). */
export function withoutOutputFields(body: Record<string, unknown>, outputFields: readonly string[]): Record<string, unknown> {
  const out = { ...body };
  for (const f of ['kind', 'id', 'creationTimestamp', 'selfLink', 'selfLinkWithId', ...outputFields]) delete out[f];
  return out;
}

/**
 * A patch: the fields of `patch` set over `current`; a field outside `mutable` may only repeat its
 * current value (400 naming it otherwise). Output-only fields are ignored.
 */
export function applyPatch(current: Record<string, unknown>, patch: Record<string, unknown>, mutable: ReadonlySet<string>, outputFields: readonly string[]): Record<string, unknown> {
  const asked = withoutOutputFields(patch, outputFields);
  for (const [k, v] of Object.entries(asked)) {
    if (!mutable.has(k) && JSON.stringify(v) !== JSON.stringify(current[k])) throw invalidField(`resource.${k}`, v, 'This field cannot be changed.');
  }
  return { ...current, ...asked };
}
