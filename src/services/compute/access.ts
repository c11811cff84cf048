import type { Principal } from '../../platform/auth/principal.ts';
import { ApiError } from '../../platform/http/errors.ts';
import type { AccessControl } from '../../platform/iam/accessControl.ts';
import type { ProjectRecord } from '../../platform/iam/directory.ts';
import type { IamService } from '../../platform/iam/iamService.ts';
import { forbidden, resourceNotFound } from './errors.ts';
import { SERVICE } from './names.ts';
import { type Scope, isGlobal, scopeExists, scopePath } from './scope.ts';

/** What authorizing a Compute call needs. */
export interface ComputeAccess {
  iam: IamService;
  access: AccessControl;
}

/**
 * Checks `permission` on `path` (below `projects/{project}`): an unknown project answers like a
 * denied one (no probing which projects exist); then the scope's region or zone must exist (404
 * naming it). `scope` undefined: the call names none (an aggregated list).
 */
export async function authorizeCompute(
  d: ComputeAccess,
  principal: Principal,
  permission: string,
  project: string,
  scope: Scope | undefined,
  path: string,
  /** The resource whose own IAM policy also grants (a template's), beside the project's. */
  policyPath?: string,
): Promise<ProjectRecord> {
  const located = scope !== undefined && !isGlobal(scope);
  const dir = await d.iam.directory();
  // permissive mode (its principal is the superuser): a project nothing declares comes into being on first use
  const known = dir.project(project) ?? (principal.superuser ? await d.iam.ensureProject(project) : undefined);
  if (!known && principal.superuser) throw resourceNotFound(located ? scopePath(project, scope) : `projects/${project}`);
  try {
    const p = await d.access.require(principal, permission, { project, service: SERVICE, name: path, policyPath });
    if (located && !scopeExists(scope)) throw resourceNotFound(scopePath(project, scope));
    return p;
  } catch (err) {
    if (err instanceof ApiError && err.status === 'PERMISSION_DENIED') throw forbidden(permission, path);
    throw err;
  }
}
