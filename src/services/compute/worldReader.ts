import { stableId } from './catalogue.ts';
import { resourceNotFound } from './errors.ts';
import { type ListParams, type Listed, aggregatedAnswer, listAnswer, listPage, memoryPages } from './listPage.ts';
import type { ComputeCall } from './methods.ts';
import { newestOfFamily } from './resolution.ts';
import { type Scope, allScopes, inRegion, inZone, isGlobal } from './scope.ts';
import type { ComputeWorld } from './world.ts';
import type { Located, ResourceKind, SourceQuery } from './worldResources.ts';

/** The collection's path as the list's `id`: `projects/P/zones`, `projects/P/global/networks`, `projects/P/regions/R/subnetworks`, ... */
function collectionPath(k: ResourceKind, project: string, scope: Scope): string {
  if (k.scope === 'regional' || k.scope === 'zonal') return `projects/${project}/${scope.type === 'region' ? 'regions' : 'zones'}/${(scope as { name: string }).name}/${k.collection}`;
  return `projects/${project}${k.scope === 'global' ? '/global' : ''}/${k.collection}`;
}

/** The scope of a located entry of a kind (aggregated lists key by it). */
const scopeOfEntry = (k: ResourceKind, location: string): Scope => (k.scope === 'zonal' ? inZone(location) : inRegion(location));

function listed(l: Located): Listed & Located {
  const r = l.resource;
  const id = typeof r.id === 'string' && /^[0-9]{1,20}$/.test(r.id) ? r.id : stableId(String(r.name));
  const created = Date.parse(String(r.creationTimestamp ?? ''));
  return { ...l, cursor: { name: { key: String(r.name), id }, creation: { key: Number.isFinite(created) ? created : 0, id } } };
}

/**
 * get, list, aggregatedList and images.getFromFamily over the kinds of `RESOURCE_KINDS` (the
 * calls authorized by the method tables): the same paging, filter and orderBy as every Compute list.
 */
export class ComputeWorldReader {
  readonly #world: ComputeWorld;

  constructor(world: ComputeWorld) {
    this.#world = world;
  }

  #query(call: ComputeCall, located: boolean): SourceQuery {
    return { projectId: call.project.projectId, projectNumber: call.project.projectNumber, ...(located && !isGlobal(call.scope) ? { locations: [(call.scope as { name: string }).name] } : {}) };
  }

  async get(call: ComputeCall, k: ResourceKind): Promise<Record<string, unknown>> {
    const name = call.params[k.param];
    const all = await k.entries(this.#world, this.#query(call, true));
    const found = all.find((l) => l.resource.name === name) ?? (/^[0-9]+$/.test(name) ? all.find((l) => l.resource.id === name) : undefined);
    if (!found) throw resourceNotFound(call.path);
    return found.resource;
  }

  /** `images.getFromFamily`: the newest image of the family that is not deprecated. */
  async imageFromFamily(call: ComputeCall, k: ResourceKind): Promise<Record<string, unknown>> {
    const all = await k.entries(this.#world, this.#query(call, false));
    const found = newestOfFamily(all.map((l) => l.resource), call.params.family);
    if (!found) throw resourceNotFound(call.path);
    return found;
  }

  async list(call: ComputeCall, k: ResourceKind): Promise<Record<string, unknown>> {
    const all = (await k.entries(this.#world, this.#query(call, true))).map(listed);
    const id = collectionPath(k, call.project.projectId, call.scope);
    const page = await listPage(call.query as ListParams, id, memoryPages(all));
    return listAnswer(k.schema, id, page);
  }

  /** The aggregatedList shape: `items` keyed by every zone or region of the scope, each with its items or a warning. */
  async aggregatedList(call: ComputeCall, k: ResourceKind): Promise<Record<string, unknown>> {
    const all = (await k.entries(this.#world, this.#query(call, false))).map(listed);
    const id = `projects/${call.project.projectId}/aggregated/${k.collection}`;
    const page = await listPage(call.query as ListParams, id, memoryPages(all));
    const scoped = { ...page, items: page.items.map((i) => ({ resource: i.resource, scope: scopeOfEntry(k, i.location) })) };
    return aggregatedAnswer(call.project.projectId, k.collection, k.schema, scoped, allScopes(k.scope === 'zonal' ? 'zone' : 'region'));
  }
}

