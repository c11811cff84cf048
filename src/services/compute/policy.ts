/** The bodies of Compute's IAM methods (GlobalSetPolicyRequest, TestPermissionsRequest), in Compute's envelope. */
import type { Binding, Directory } from '../../platform/iam/directory.ts';
import type { ResourcePolicy } from '../../platform/iam/iamService.ts';
import { policyAnswer, readPolicy } from '../../platform/iam/policy.ts';
import { computeError } from './errors.ts';

const invalid = (message: string) => computeError('INVALID_ARGUMENT', 'invalid', message);
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const PERMISSION = /^[a-z][a-zA-Z0-9]*\.[a-zA-Z0-9]+\.[a-zA-Z0-9]+$/;

/**
 * A GlobalSetPolicyRequest: `policy` (the new policy; its `etag` the one read), or the deprecated
 * flattened `bindings` and `etag` beside it. Compute resources take no IAM conditions.
 */
export function readSetPolicyRequest(body: unknown, dir: Directory): { bindings: Binding[]; etag?: string } {
  if (!isObject(body)) throw invalid("Required field 'policy' not specified");
  const flattened = body.policy === undefined && (body.bindings !== undefined || body.etag !== undefined);
  const read = readPolicy(flattened ? { bindings: body.bindings, etag: body.etag } : body.policy, dir, { conditions: false });
  if (!read.ok) throw invalid(read.message);
  return read;
}

/** A TestPermissionsRequest: the permissions to test, each `service.resource.verb`. */
export function readTestPermissionsRequest(body: unknown): string[] {
  const permissions = isObject(body) ? body.permissions : undefined;
  if (permissions !== undefined && !Array.isArray(permissions)) throw invalid("Invalid value for field 'permissions': expected a list.");
  const list = (permissions ?? []) as unknown[];
  if (list.length > 100) throw invalid('At most 100 permissions may be tested at once.');
  for (const p of list) if (typeof p !== 'string' || !PERMISSION.test(p)) throw invalid(`Permission '${String(p)}' is not valid.`);
  return [...new Set(list as string[])];
}

/** `optionsRequestedPolicyVersion`: 0 (unset), 1 or 3. */
export function checkRequestedPolicyVersion(v: number | undefined): void {
  if (v !== undefined && ![0, 1, 3].includes(v)) {
    throw computeError('INVALID_ARGUMENT', 'invalidParameter', `Invalid value for field 'optionsRequestedPolicyVersion': '${v}'. Policy versions must be 1 or 3.`, { location: 'optionsRequestedPolicyVersion' });
  }
}

export const policyResource = (policy: ResourcePolicy): Record<string, unknown> => policyAnswer(policy);
