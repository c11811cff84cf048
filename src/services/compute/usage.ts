import type { Kysely } from 'kysely';
import type { Database } from '../../platform/store/schema.ts';
import { LINK_BASE } from './names.ts';
import { parseReference, refPath } from './references.ts';
import { ZONES } from './catalogue.ts';
import { type Scope, scopeKey, scopePath } from './scope.ts';
import type { ResourceStore, StoredResource } from './store/resources.ts';

/** How a kind's resources refer to others: the paths (`projects/P/global/networks/n`) a resource of the kind uses. */
export interface KindUsage {
  kind: string;
  /** Its collection (`firewalls`): the user's path in messages. */
  collection: string;
  refs(body: Record<string, any>, at: { projectId: string; scope: Scope }): string[];
}

/** A reference field's target as a path (`projects/P/global/networks/n`), read with the user's project as the default; undefined when unreadable. */
export function refTarget(value: unknown, collection: string, at: { projectId: string; scope: string }): string | undefined {
  if (typeof value !== 'string' || value === '') return undefined;
  const r = parseReference(value, collection, { project: at.projectId, scope: at.scope });
  return r ? refPath(r) : undefined;
}

/**
 * Who still uses a resource: every kind that refers to others says how (`KindUsage`); a delete
 * asks `userOf` before it starts and refuses with `resourceInUse` (errors.ts). Resources of the
 * same project are searched (a shared VPC's users in other projects are not).
 */
export class ResourceUsage {
  readonly #resources: ResourceStore;
  readonly #kinds = new Map<string, KindUsage>();

  constructor(resources: ResourceStore) {
    this.#resources = resources;
  }

  register(k: KindUsage): void {
    this.#kinds.set(k.kind, k);
  }

  /** The first resource (by kind, then name) that uses `target` (a path), skipping those `except` accepts; its path as a user names it. */
  async userOf(db: Kysely<Database>, p: { projectId: string; projectNumber: string }, target: string, except?: (r: StoredResource) => boolean): Promise<string | undefined> {
    const name = target.slice(target.lastIndexOf('/') + 1);
    const candidates = await this.#resources.mentioning(db, [...this.#kinds.keys()], p.projectNumber, name);
    for (const r of candidates) {
      if (except?.(r)) continue;
      const k = this.#kinds.get(r.kind)!;
      const refs = k.refs(r.body, { projectId: p.projectId, scope: r.scope });
      if (refs.some((ref) => ref === target || ref === LINK_BASE + target)) return `${scopePath(p.projectId, r.scope)}/${k.collection}/${r.name}`;
    }
    return undefined;
  }
}

/** The networks and subnetworks a list of network interfaces (an instance's, a template's properties') uses. */
export function networkInterfaceRefs(nics: unknown, at: { projectId: string; scope: Scope }): string[] {
  if (!Array.isArray(nics)) return [];
  const key = at.scope.type === 'zone' ? `regions/${ZONES.get(at.scope.name)}` : scopeKey(at.scope);
  return nics.flatMap((n: Record<string, unknown>) => [
    refTarget(n?.network, 'networks', { projectId: at.projectId, scope: 'global' }),
    refTarget(n?.subnetwork, 'subnetworks', { projectId: at.projectId, scope: key }),
  ]).filter((x): x is string => x !== undefined);
}
