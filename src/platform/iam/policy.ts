/**
 * Reading IAM policies as callers write them (setIamPolicy bodies): the checks every resource
 * policy gets, whichever service's resource it is. Answers the problem as text; the service says
 * it in its own error envelope.
 */
import type { Binding, Directory } from './directory.ts';
import type { ResourcePolicy } from './iamService.ts';

export type PolicyReading = { ok: true; bindings: Binding[]; etag?: string } | { ok: false; message: string };

const MEMBER = /^(?:(?:user|serviceAccount|group|domain|deleted:user|deleted:serviceAccount|deleted:group):[^\s]+|allUsers|allAuthenticatedUsers)$/;
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
/** A base64 etag (standard or URL-safe alphabet). */
const ETAG = /^[A-Za-z0-9+/_-]+={0,2}$/;
const MAX_BINDINGS = 1500;

/**
 * A policy's bindings, merged by role (members once each, in the order given; bindings left
 * without members dropped). Refused: unknown roles, members without a type prefix, conditions
 * (resources that do not support them), audit configs, versions other than 1 and 3, a bad etag.
 */
export function readPolicy(policy: unknown, dir: Directory, opts: { conditions: boolean }): PolicyReading {
  if (policy === undefined || policy === null) return { ok: true, bindings: [] };
  if (!isObject(policy)) return { ok: false, message: "Invalid value for field 'policy': expected an object." };
  const { version, etag, bindings, auditConfigs } = policy;
  if (version !== undefined && version !== null && ![0, 1, 3].includes(Number(version))) {
    return { ok: false, message: `Invalid value for field 'policy.version': '${String(version)}'. Policy versions must be 1 or 3.` };
  }
  if (Array.isArray(auditConfigs) && auditConfigs.length) return { ok: false, message: 'Audit configs are not supported for this resource.' };
  if (etag !== undefined && etag !== null && (typeof etag !== 'string' || !ETAG.test(etag))) {
    return { ok: false, message: `Invalid value for field 'policy.etag': '${String(etag)}'. The etag must be base64.` };
  }
  if (bindings !== undefined && bindings !== null && !Array.isArray(bindings)) return { ok: false, message: "Invalid value for field 'policy.bindings': expected a list." };
  const list = (bindings ?? []) as unknown[];
  if (list.length > MAX_BINDINGS) return { ok: false, message: `A policy holds at most ${MAX_BINDINGS} bindings.` };
  const byRole = new Map<string, string[]>();
  for (const [i, b] of list.entries()) {
    if (!isObject(b) || typeof b.role !== 'string' || !b.role) return { ok: false, message: `Invalid value for field 'policy.bindings[${i}].role': a role is required.` };
    if (b.condition !== undefined && b.condition !== null && !opts.conditions) {
      return { ok: false, message: `Invalid value for field 'policy.bindings[${i}].condition': IAM conditions are not supported for this resource.` };
    }
    if (!dir.knowsRole(b.role)) return { ok: false, message: `Role (${b.role}) does not exist in the resource's hierarchy.` };
    if (b.members !== undefined && !Array.isArray(b.members)) return { ok: false, message: `Invalid value for field 'policy.bindings[${i}].members': expected a list.` };
    const members = byRole.get(b.role) ?? [];
    for (const m of (b.members ?? []) as unknown[]) {
      if (typeof m !== 'string' || !MEMBER.test(m)) return { ok: false, message: `The member ${String(m)} is of an unknown type. Please set a valid type prefix for the member.` };
      if (!members.includes(m)) members.push(m);
    }
    byRole.set(b.role, members);
  }
  return {
    ok: true,
    bindings: [...byRole].filter(([, members]) => members.length).map(([role, members]) => ({ role, members })),
    ...(typeof etag === 'string' && etag ? { etag } : {}),
  };
}

/** A policy as getIamPolicy answers it: `version` 1 (no conditions), `etag`, and its bindings when it has any. */
export function policyAnswer(policy: ResourcePolicy): Record<string, unknown> {
  return { version: 1, etag: policy.etag, ...(policy.bindings.length ? { bindings: policy.bindings.map((b) => ({ role: b.role, members: [...b.members] })) } : {}) };
}
