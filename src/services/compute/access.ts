import type { Principal } from '../../platform/auth/principal.ts';
import { ApiError } from '../../platform/http/errors.ts';
import type { AccessControl } from '../../platform/iam/accessControl.ts';
import type { ProjectRecord } from '../../platform/iam/directory.ts';
import type { IamService } from '../../platform/iam/iamService.ts';
import { REGIONS, ZONES } from './catalogue.ts';
import { forbidden, resourceNotFound } from './errors.ts';
import { SERVICE } from './names.ts';

/** Where a Compute request is addressed below its project: a region, a zone, or neither (global). */
export interface ComputeLocation {
  region?: string;
  zone?: string;
}

const locationPath = (project: string, at: ComputeLocation) =>
  at.zone !== undefined ? `projects/${project}/zones/${at.zone}` : at.region !== undefined ? `projects/${project}/regions/${at.region}` : `projects/${project}`;

/**
 * Checks `permission` on `path` (below `projects/{project}`): an unknown project answers like a
 * denied one (no probing which projects exist); then the region or zone must exist (404 naming it).
 */
export async function authorizeCompute(
  d: { iam: IamService; access: AccessControl },
  principal: Principal,
  permission: string,
  project: string,
  at: ComputeLocation,
  path: string,
  /** The resource whose own IAM policy also grants (a template's), beside the project's. */
  policyPath?: string,
): Promise<ProjectRecord> {
  const dir = await d.iam.directory();
  // permissive mode (its principal is the superuser): a project nothing declares comes into being on first use
  const known = dir.project(project) ?? (principal.superuser ? await d.iam.ensureProject(project) : undefined);
  if (!known && principal.superuser) throw resourceNotFound(locationPath(project, at));
  try {
    const p = await d.access.require(principal, permission, { project, service: SERVICE, name: path, policyPath });
    if ((at.region !== undefined && !REGIONS.has(at.region)) || (at.zone !== undefined && !ZONES.has(at.zone))) throw resourceNotFound(locationPath(project, at));
    return p;
  } catch (err) {
    if (err instanceof ApiError && err.status === 'PERMISSION_DENIED') throw forbidden(permission, path);
    throw err;
  }
}
