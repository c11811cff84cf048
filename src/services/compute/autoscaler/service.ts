import type { Store } from '../../../platform/store/store.ts';
import { requiredField, resourceInUse, resourceNotFound } from '../errors.ts';
import { INSTANCE_GROUP_MANAGERS } from '../instanceGroupManager/kind.ts';
import { type ComputeCall, collectionPath } from '../methods.ts';
import type { WireOperation } from '../operation/service.ts';
import { LINK_BASE } from '../names.ts';
import { readResourceBody } from '../resourceBody.ts';

import type { ResourceReader } from '../store/reader.ts';
import type { ResourceStore, StoredResource } from '../store/resources.ts';
import type { ResourceWrites, WritableKind } from '../store/writes.ts';
import type { ResourceUsage } from '../usage.ts';
import { AUTOSCALERS, REGION_AUTOSCALERS, autoscalerTarget, autoscalerToStore, patchedAutoscaler } from './resource.ts';

export interface AutoscalerDeps {
  store: Store;
  resources: ResourceStore;
  reader: ResourceReader;
  writes: ResourceWrites;
  usage: ResourceUsage;
}

/**
 * Autoscalers, zonal and regional (the scope is the call's): insert (on an existing managed
 * instance group of the scope that no other autoscaler scales), get, list, aggregatedList,
 * patch, update, delete. The twin scales nothing: an autoscaler is its configuration, ACTIVE.
 */
export class Autoscalers {
  readonly #d: AutoscalerDeps;
  readonly kind: WritableKind = AUTOSCALERS;

  constructor(deps: AutoscalerDeps) {
    this.#d = deps;
    deps.writes.register(this.kind);
    // An autoscaler uses its group: the group's delete asks who uses it.
    deps.usage.register({ kind: AUTOSCALERS.kind, collection: AUTOSCALERS.collection, refs: (body, at) => [autoscalerTarget(body, at.projectId, at.scope)] });
  }

  /**
   * The group the body's `target` names, as a path in the project's id (`projects/P/zones/Z/instanceGroupManagers/g`):
   * it must exist, and no autoscaler but `self` may scale it already.
   */
  async #target(call: ComputeCall, asked: string, self?: StoredResource): Promise<string> {
    const [, project, , , , name] = asked.split('/');
    const own = project === call.project.projectId || project === call.project.projectNumber;
    if (!own || !(await this.#d.resources.get(this.#d.store.db, INSTANCE_GROUP_MANAGERS.kind, call.project.projectNumber, call.scope, name))) throw resourceNotFound(asked);
    const target = `projects/${call.project.projectId}/${asked.split('/').slice(2).join('/')}`;
    const other = await this.#d.usage.userOf(this.#d.store.db, call.project, target, (r) => r.kind !== AUTOSCALERS.kind || r.id === self?.id);
    if (other) throw resourceInUse('instance group manager', target, other);
    return target;
  }

  async insert(call: ComputeCall): Promise<WireOperation> {
    const body = readResourceBody('Autoscaler', 'autoscaler_resource', call.body);
    const asked = autoscalerTarget(body, call.project.projectId, call.scope);
    const autoscaler = autoscalerToStore(body, asked);
    autoscaler.target = LINK_BASE + (await this.#target(call, asked));
    return this.#d.writes.insert(call, this.kind, String(autoscaler.name), autoscaler);
  }

  get(call: ComputeCall): Promise<Record<string, unknown>> {
    return this.#d.reader.get(call, this.kind, 'autoscaler');
  }

  /** A region's list is a `compute#regionAutoscalerList`. */
  list(call: ComputeCall): Promise<Record<string, unknown>> {
    return this.#d.reader.list(call, call.scope.type === 'region' ? REGION_AUTOSCALERS : this.kind);
  }

  aggregatedList(call: ComputeCall): Promise<Record<string, unknown>> {
    return this.#d.reader.aggregatedList(call, this.kind);
  }

  /** `patch` merges the given fields (the policy's too); `update` (PUT) replaces the autoscaler whole. The one changed: the `autoscaler` parameter, else the body's name. */
  async change(call: ComputeCall, replace: boolean): Promise<WireOperation> {
    const body = readResourceBody('Autoscaler', 'autoscaler_resource', call.body);
    const name = typeof call.query.autoscaler === 'string' && call.query.autoscaler !== '' ? call.query.autoscaler : body.name;
    if (typeof name !== 'string' || name === '') throw requiredField('autoscaler');
    const r = await this.#d.resources.get(this.#d.store.db, this.kind.kind, call.project.projectNumber, call.scope, name);
    if (!r) throw resourceNotFound(`${collectionPath(call.projectParam, call.scope, 'autoscalers')}/${name}`);
    // The body's rules first (a bad field is a 400 before any lookup), then its target.
    const asked = body.target !== undefined || replace ? autoscalerTarget(body, call.project.projectId, call.scope) : undefined;
    const next = replace ? autoscalerToStore({ ...body, name: r.name }, asked!) : patchedAutoscaler(r.body, body, asked);
    if (asked) next.target = LINK_BASE + (await this.#target(call, asked, r));
    return this.#d.writes.update(call, this.kind, r, { ...next, id: r.id }, replace ? 'update' : 'patch');
  }

  async delete(call: ComputeCall): Promise<WireOperation> {
    const r = await this.#d.reader.find(call, this.kind, 'autoscaler');
    return this.#d.writes.delete(call, this.kind, r);
  }
}

