import { ApiError } from '../http/errors.ts';
import type { Principal } from '../auth/principal.ts';
import type { Directory, ProjectRecord } from './directory.ts';
import type { IamService } from './iamService.ts';

export interface ProtectedResource {
  /** The project as the caller named it (id or number). */
  project: string;
  /** The service whose resource this is, e.g. `apikeys.googleapis.com`. */
  service: string;
  /** Path below the project, e.g. `/locations/global` or `/locations/global/keys/k1`. */
  suffix?: string;
  /** The resource as the caller named it, when that is not `projects/{project}{suffix}` (e.g. `operations/akmf.p7-...`). */
  name?: string;
  /**
   * A resource below the project that may carry its own IAM policy (`/global/instanceTemplates/t`):
   * the permission is then checked on it, so a binding on it or on any ancestor grants it.
   */
  policyPath?: string;
}

/** Something found by a value that does not name its project (a key string): where it lives. */
export interface FoundResource {
  projectNumber: string;
}

/**
 * IAM decisions: resolves the project and checks that the principal holds the permission on it
 * (or an ancestor). This is the one place where existence is kept from outsiders; every service
 * asks here before it looks anything up, and answers "not found" only after it:
 * - a resource the caller names (`require`): the permission is checked on the project the name
 *   gives before the resource is read; an unknown project answers exactly like a denied one, and
 *   the error names only what the caller sent, so a denied caller gets the same answer whether or
 *   not the project or the resource exists;
 * - a thing found by a value that does not name its project, such as a key string
 *   (`requireFound`): a thing that does not exist is denied exactly like one the caller may not
 *   see, and the error names no resource at all.
 */
export class AccessControl {
  readonly #iam: IamService;

  constructor(iam: IamService) {
    this.#iam = iam;
  }

  async require(principal: Principal, permission: string, res: ProtectedResource): Promise<ProjectRecord> {
    const dir = this.#iam.freshDirectory() ?? (await this.#iam.directory());
    // permissive mode (its principal is the superuser): a project nothing declares comes into being on first use
    const project = dir.project(res.project) ?? (principal.superuser ? await this.#iam.ensureProject(res.project) : undefined);
    if (project && (principal.superuser || dir.hasPermission(principal.member, `projects/${project.projectNumber}${res.policyPath ?? ''}`, permission))) return project;
    throw permissionDenied(permission, res);
  }

  /**
   * For a thing looked up by a value that does not name its project: passes only when it exists
   * and the principal holds the permission on its project; otherwise the same `deniedUnnamed`
   * error whether it is missing, in an unknown project, or merely forbidden.
   */
  async requireFound<T extends FoundResource>(principal: Principal, permission: string, found: T | undefined, service: string): Promise<T> {
    if (!found) throw deniedUnnamed(permission, service);
    return decideFound(this.#iam.freshDirectory() ?? (await this.#iam.directory()), principal, permission, found, service);
  }

  /**
   * `requireFound` without waiting, for a hot path: the answer when the directory is fresh, or
   * undefined when it must be reloaded first (then call `requireFound`).
   */
  requireFoundNow<T extends FoundResource>(principal: Principal, permission: string, found: T | undefined, service: string): T | undefined {
    if (!found) throw deniedUnnamed(permission, service);
    const dir = this.#iam.freshDirectory();
    return dir ? decideFound(dir, principal, permission, found, service) : undefined;
  }

  /** Whether the principal holds the permission on the project (or on `policyPath` below it); no error. */
  async holds(principal: Principal, permission: string, projectNumber: string, policyPath = ''): Promise<boolean> {
    if (principal.superuser) return true;
    return (this.#iam.freshDirectory() ?? (await this.#iam.directory())).hasPermission(principal.member, `projects/${projectNumber}${policyPath}`, permission);
  }
}

function decideFound<T extends FoundResource>(dir: Directory, principal: Principal, permission: string, found: T, service: string): T {
  const project = dir.project(found.projectNumber);
  if (project && (principal.superuser || dir.hasPermission(principal.member, `projects/${project.projectNumber}`, permission))) return found;
  throw deniedUnnamed(permission, service);
}

export function permissionDenied(permission: string, res: ProtectedResource): ApiError {
  const resource = res.name ?? `projects/${res.project}${res.suffix ?? ''}`;
  return new ApiError({
    status: 'PERMISSION_DENIED',
    message: `Permission '${permission}' denied on resource '//${res.service}/${resource}' (or it may not exist).`,
    reason: 'IAM_PERMISSION_DENIED',
    domain: res.service,
    metadata: { permission, resource },
  });
}

/** The denial that names no resource: for things the caller found by a secret value (see `requireFound`). */
export function deniedUnnamed(permission: string, service: string): ApiError {
  return new ApiError({
    status: 'PERMISSION_DENIED',
    message: 'The caller does not have permission',
    reason: 'IAM_PERMISSION_DENIED',
    domain: service,
    metadata: { permission },
  });
}
