import { ApiError } from '../http/errors.ts';
import type { Principal } from '../auth/principal.ts';
import type { ProjectRecord } from './directory.ts';
import type { IamService } from './iamService.ts';

export interface ProtectedResource {
  /** The project as the caller named it (id or number). */
  project: string;
  /** The service whose resource this is, e.g. `apikeys.googleapis.com`. */
  service: string;
  /** Path below the project, e.g. `/locations/global` or `/locations/global/keys/k1`. */
  suffix?: string;
}

/**
 * IAM decisions: resolves the project and checks that the principal holds the permission on it
 * (or an ancestor). An unknown project answers exactly like a denied one, as Google does, so
 * callers cannot probe which projects exist.
 */
export class AccessControl {
  readonly #iam: IamService;

  constructor(iam: IamService) {
    this.#iam = iam;
  }

  async require(principal: Principal, permission: string, res: ProtectedResource): Promise<ProjectRecord> {
    const dir = await this.#iam.directory();
    const project = dir.project(res.project);
    if (project && (principal.superuser || dir.hasPermission(principal.member, `projects/${project.projectNumber}`, permission))) return project;
    throw permissionDenied(permission, res);
  }

  /** Whether the principal holds the permission; no error. */
  async holds(principal: Principal, permission: string, projectNumber: string): Promise<boolean> {
    if (principal.superuser) return true;
    return (await this.#iam.directory()).hasPermission(principal.member, `projects/${projectNumber}`, permission);
  }
}

export function permissionDenied(permission: string, res: ProtectedResource): ApiError {
  const resource = `projects/${res.project}${res.suffix ?? ''}`;
  return new ApiError({
    status: 'PERMISSION_DENIED',
    message: `Permission '${permission}' denied on resource '//${res.service}/${resource}' (or it may not exist).`,
    reason: 'IAM_PERMISSION_DENIED',
    domain: res.service,
    metadata: { permission, resource },
  });
}
