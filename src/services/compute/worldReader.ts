import type { Principal } from '../../platform/auth/principal.ts';
import type { AccessControl } from '../../platform/iam/accessControl.ts';
import type { IamService } from '../../platform/iam/iamService.ts';
import { authorizeCompute, type ComputeLocation } from './access.ts';
import { PUBLIC_IMAGES, REGIONS, ZONES, stableId } from './catalogue.ts';
import { invalidParameter, resourceNotFound } from './errors.ts';
import { type ListParams, type Listed, listPage, memoryPages } from './listPage.ts';
import { IMAGE_PATTERN, LINK_BASE, PROJECT_PATTERN, REGION_PATTERN, RESOURCE_PATTERN } from './names.ts';
import { newestOfFamily } from './resolution.ts';
import type { ComputeWorld } from './world.ts';
import type { Located, ResourceKind, SourceQuery } from './worldResources.ts';

function checkPattern(name: string, value: string, pattern: RegExp): void {
  if (!pattern.test(value)) throw invalidParameter(name, value, pattern);
}

/** The location path parameter of a scope (`region` or `zone`), if it has one. */
const locationParam = (k: ResourceKind) => (k.scope === 'regional' ? 'region' : k.scope === 'zonal' ? 'zone' : undefined);

/** `projects/P`, `projects/P/regions/R` or `projects/P/zones/Z`: the collection's parent. */
function parentPath(k: ResourceKind, project: string, location?: string): string {
  if (k.scope === 'regional') return `projects/${project}/regions/${location}`;
  if (k.scope === 'zonal') return `projects/${project}/zones/${location}`;
  return `projects/${project}`;
}

const collectionPath = (k: ResourceKind, project: string, location?: string) => `${parentPath(k, project, location)}${k.scope === 'global' ? '/global' : ''}/${k.collection}`;

/** The key of an aggregated list's scope: `zones/Z`, `regions/R` or `global`. */
const scopeKey = (k: ResourceKind, location: string) => (k.scope === 'zonal' ? `zones/${location}` : k.scope === 'regional' ? `regions/${location}` : 'global');

function listed(l: Located): Listed & Located {
  const r = l.resource;
  const id = typeof r.id === 'string' && /^[0-9]{1,20}$/.test(r.id) ? r.id : stableId(String(r.name));
  const created = Date.parse(String(r.creationTimestamp ?? ''));
  return { ...l, cursor: { name: { key: String(r.name), id }, creation: { key: Number.isFinite(created) ? created : 0, id } } };
}

/**
 * get, list, aggregatedList and images.getFromFamily over the kinds of `RESOURCE_KINDS`: the same
 * auth, IAM, paging, filter and orderBy as instance templates.
 */
export class ComputeWorldReader {
  readonly #d: { iam: IamService; access: AccessControl; world: ComputeWorld };

  constructor(deps: { iam: IamService; access: AccessControl; world: ComputeWorld }) {
    this.#d = deps;
  }

  /** Checks the path parameters and the permission; answers what the source needs. */
  async #authorize(principal: Principal, k: ResourceKind, verb: 'get' | 'list', project: string, location: string | undefined, path: string): Promise<SourceQuery> {
    checkPattern('project', project, PROJECT_PATTERN);
    const param = locationParam(k);
    if (param && location !== undefined) checkPattern(param, location, REGION_PATTERN);
    // The public image projects' images are readable by every authenticated principal.
    if (k.images && PUBLIC_IMAGES.has(project)) return { projectId: project, projectNumber: '' };
    const at: ComputeLocation = param === 'region' ? { region: location } : param === 'zone' ? { zone: location } : {};
    const p = await authorizeCompute(this.#d, principal, `${k.permissions}.${verb}`, project, at, path);
    return { projectId: p.projectId, projectNumber: p.projectNumber };
  }

  async get(principal: Principal, k: ResourceKind, project: string, location: string | undefined, name: string): Promise<Record<string, unknown>> {
    const path = k.scope === 'project' ? `projects/${project}/${k.collection}/${name}` : `${collectionPath(k, project, location)}/${name}`;
    checkPattern(k.param, name, RESOURCE_PATTERN);
    const q = await this.#authorize(principal, k, 'get', project, location, path);
    const all = await k.entries(this.#d.world, { ...q, locations: location === undefined ? undefined : [location] });
    const found = all.find((l) => l.resource.name === name) ?? (/^[0-9]+$/.test(name) ? all.find((l) => l.resource.id === name) : undefined);
    if (!found) throw resourceNotFound(path);
    return found.resource;
  }

  /** `images.getFromFamily`: the newest image of the family that is not deprecated. */
  async imageFromFamily(principal: Principal, k: ResourceKind, project: string, family: string): Promise<Record<string, unknown>> {
    const path = `projects/${project}/global/images/family/${family}`;
    checkPattern('family', family, IMAGE_PATTERN);
    const q = await this.#authorize(principal, k, 'get', project, undefined, path);
    const all = await k.entries(this.#d.world, q);
    const found = newestOfFamily(all.map((l) => l.resource), family);
    if (!found) throw resourceNotFound(path);
    return found;
  }

  async list(principal: Principal, k: ResourceKind, project: string, location: string | undefined, q: ListParams): Promise<Record<string, unknown>> {
    const sq = await this.#authorize(principal, k, 'list', project, location, parentPath(k, project, location));
    const all = (await k.entries(this.#d.world, { ...sq, locations: location === undefined ? undefined : [location] })).map(listed);
    const id = collectionPath(k, sq.projectId, location);
    const page = await listPage(q, id, memoryPages(all));
    return {
      kind: `compute#${lowerFirst(k.schema)}List`,
      id,
      ...(page.items.length ? { items: page.items.map((i) => i.resource) } : {}),
      ...(page.nextPageToken ? { nextPageToken: page.nextPageToken } : {}),
      selfLink: LINK_BASE + id,
    };
  }

  /** The aggregatedList shape: `items` keyed by every zone or region of the scope, each with its items or a warning. */
  async aggregatedList(principal: Principal, k: ResourceKind, project: string, q: ListParams & { includeAllScopes?: boolean }): Promise<Record<string, unknown>> {
    const sq = await this.#authorize(principal, k, 'list', project, undefined, `projects/${project}`);
    const all = (await k.entries(this.#d.world, sq)).map(listed);
    const id = `projects/${sq.projectId}/aggregated/${k.collection}`;
    const page = await listPage(q, id, memoryPages(all));
    const byScope = new Map<string, unknown[]>();
    for (const i of page.items) {
      const key = scopeKey(k, i.location);
      if (!byScope.has(key)) byScope.set(key, []);
      byScope.get(key)!.push(i.resource);
    }
    const items: Record<string, unknown> = {};
    for (const location of k.scope === 'zonal' ? ZONES.keys() : REGIONS.keys()) {
      const scope = scopeKey(k, location);
      const list = byScope.get(scope);
      items[scope] = list
        ? { [k.collection]: list }
        : { warning: { code: 'NO_RESULTS_ON_PAGE', message: `There are no results for scope '${scope}' on this page.`, data: [{ key: 'scope', value: scope }] } };
    }
    return {
      kind: `compute#${lowerFirst(k.schema)}AggregatedList`,
      id,
      items,
      ...(page.nextPageToken ? { nextPageToken: page.nextPageToken } : {}),
      selfLink: LINK_BASE + id,
    };
  }
}

const lowerFirst = (s: string) => s[0].toLowerCase() + s.slice(1);
