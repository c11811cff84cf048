import { PREDEFINED_ROLES } from './permissions.ts';

/**
 * The resource hierarchy and its policies, held in memory: organizations, folders, projects
 * (by id and by number), service accounts, IAM bindings, custom roles and org-policy settings.
 * Built from the store by `IamService`; pure lookups here.
 */
export interface ProjectRecord {
  projectNumber: string;
  projectId: string;
  parent: string | null;
}

export interface Binding {
  role: string;
  members: string[];
}

export interface DirectoryData {
  organizations: { id: string; domain: string | null }[];
  folders: { id: string; parent: string }[];
  projects: ProjectRecord[];
  serviceAccounts: { email: string; projectId: string; uniqueId: string; disabled: boolean }[];
  policies: { resource: string; bindings: Binding[] }[];
  customRoles: { name: string; permissions: string[] }[];
  orgPolicies: { resource: string; constraint: string; enforce: boolean }[];
}

/** The project a resource below a project lives in (`projects/N/...` -> `projects/N`). */
function projectOf(resource: string): string | undefined {
  const m = /^projects\/[^/]+(?=\/.)/.exec(resource);
  return m ? m[0] : undefined;
}

/** Constraints whose default (when nothing in the hierarchy sets them) is enforced. */
const ENFORCED_BY_DEFAULT = new Set(['constraints/iam.managed.disableServiceAccountApiKeyCreation']);

export class Directory {
  readonly #projectsById = new Map<string, ProjectRecord>();
  readonly #projectsByNumber = new Map<string, ProjectRecord>();
  readonly #parents = new Map<string, string>();
  readonly #bindings = new Map<string, Binding[]>();
  readonly #roles = new Map<string, ReadonlySet<string>>();
  readonly #orgPolicies = new Map<string, boolean>();
  readonly #serviceAccounts = new Map<string, { email: string; projectId: string; uniqueId: string; disabled: boolean }>();
  readonly #organizations = new Map<string, { id: string; domain: string | null }>();
  /**
   * Decisions made against this (immutable) directory (a changed world builds a new one), by
   * member, then resource, then permission: no key string is built per check.
   */
  readonly #decisions = new Map<string, Map<string, Map<string, boolean>>>();
  #decisionCount = 0;

  constructor(data: DirectoryData) {
    for (const o of data.organizations) this.#organizations.set(o.id, o);
    for (const f of data.folders) this.#parents.set(`folders/${f.id}`, f.parent);
    for (const p of data.projects) {
      this.#projectsById.set(p.projectId, p);
      this.#projectsByNumber.set(p.projectNumber, p);
      if (p.parent) this.#parents.set(`projects/${p.projectNumber}`, p.parent);
    }
    for (const sa of data.serviceAccounts) this.#serviceAccounts.set(sa.email.toLowerCase(), sa);
    for (const pol of data.policies) this.#bindings.set(pol.resource, pol.bindings);
    for (const [name, perms] of Object.entries(PREDEFINED_ROLES)) this.#roles.set(name, new Set(perms));
    for (const r of data.customRoles) this.#roles.set(r.name, new Set(r.permissions));
    for (const op of data.orgPolicies) this.#orgPolicies.set(`${op.resource}|${op.constraint}`, op.enforce);
  }

  /** A project by id or number. */
  project(idOrNumber: string): ProjectRecord | undefined {
    return this.#projectsByNumber.get(idOrNumber) ?? this.#projectsById.get(idOrNumber);
  }

  projects(): ProjectRecord[] {
    return [...this.#projectsByNumber.values()];
  }

  /** Every user and service account the world names (bindings and service accounts), sorted. */
  principals(): string[] {
    const out = new Set<string>();
    for (const bindings of this.#bindings.values()) for (const b of bindings) for (const m of b.members) if (/^(user|serviceAccount):/.test(m)) out.add(m);
    for (const sa of this.#serviceAccounts.values()) out.add(`serviceAccount:${sa.email}`);
    return [...out].sort();
  }

  serviceAccount(email: string) {
    return this.#serviceAccounts.get(email.toLowerCase());
  }

  /**
   * The resource and its ancestors, nearest first: a resource below a project
   * (`projects/N/global/instanceTemplates/t`, which may carry its own policy), projects/N,
   * folders/..., organizations/O.
   */
  ancestry(resource: string): string[] {
    const chain = [resource];
    let cur = this.#parents.get(resource) ?? projectOf(resource);
    while (cur && chain.length < 32) {
      chain.push(cur);
      cur = this.#parents.get(cur);
    }
    return chain;
  }

  /** The organization a project sits under, if any. */
  organizationOf(projectNumber: string): string | undefined {
    return this.ancestry(`projects/${projectNumber}`).find((r) => r.startsWith('organizations/'));
  }

  /** Whether `member` holds `permission` on `resource` through any binding on it or an ancestor. */
  hasPermission(member: string, resource: string, permission: string): boolean {
    let byResource = this.#decisions.get(member);
    let byPermission = byResource?.get(resource);
    let decision = byPermission?.get(permission);
    if (decision === undefined) {
      decision = this.#decide(member, resource, permission);
      // Bounded: a flood of distinct names cannot grow it without limit.
      if (this.#decisionCount >= 100_000) {
        this.#decisions.clear();
        this.#decisionCount = 0;
        byResource = byPermission = undefined;
      }
      if (!byResource) this.#decisions.set(member, (byResource = new Map()));
      if (!byPermission) byResource.set(resource, (byPermission = new Map()));
      byPermission.set(permission, decision);
      this.#decisionCount++;
    }
    return decision;
  }

  #decide(member: string, resource: string, permission: string): boolean {
    const domain = member.includes('@') ? member.slice(member.indexOf('@') + 1).toLowerCase() : undefined;
    for (const r of this.ancestry(resource)) {
      for (const b of this.#bindings.get(r) ?? []) {
        if (!this.#roles.get(b.role)?.has(permission)) continue;
        for (const m of b.members) {
          if (m === member || m === 'allUsers' || m === 'allAuthenticatedUsers' || (domain && m === `domain:${domain}`)) return true;
          if (m.toLowerCase() === member.toLowerCase()) return true;
        }
      }
    }
    return false;
  }

  knowsRole(role: string): boolean {
    return this.#roles.has(role);
  }

  /** An org-policy boolean constraint as it applies to a project: nearest explicit setting wins. */
  isConstraintEnforced(constraint: string, projectNumber: string): boolean {
    for (const r of this.ancestry(`projects/${projectNumber}`)) {
      const v = this.#orgPolicies.get(`${r}|${constraint}`);
      if (v !== undefined) return v;
    }
    return ENFORCED_BY_DEFAULT.has(constraint);
  }
}
