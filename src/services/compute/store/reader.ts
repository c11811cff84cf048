import type { Store } from '../../../platform/store/store.ts';
import { resourceNotFound } from '../errors.ts';
import { type ListParams, aggregatedAnswer, listAnswer, listPage } from '../listPage.ts';
import type { ComputeCall } from '../methods.ts';
import { type ScopeType, allScopes, locationOf, scopePath } from '../scope.ts';
import type { ResourceStore, StoredResource } from './resources.ts';

/** A kind of the resource store as the generic get / list / aggregatedList read it. */
export interface StoredKind {
  /** The store's kind: `instanceTemplate`, `network`, ... */
  kind: string;
  /** The path segment of its collection: `instanceTemplates`. */
  collection: string;
  /** Its discovery schema: `InstanceTemplate` (lists are `compute#instanceTemplateList`, aggregated ones `...AggregatedList`). */
  schema: string;
  /** The scopes an aggregated list shows a key for. */
  aggregatedScopes: readonly ScopeType[];
  /** The resource as answered from its row (default: the stored body, which is the whole resource). */
  present?(r: StoredResource, projectId: string): Record<string, unknown>;
}


/** get, list and aggregatedList of the store's kinds: the same paging, filter and orderBy as every Compute list. */
export class ResourceReader {
  readonly #store: Store;
  readonly #resources: ResourceStore;

  constructor(store: Store, resources: ResourceStore) {
    this.#store = store;
    this.#resources = resources;
  }

  #present(k: StoredKind, r: StoredResource, projectId: string): Record<string, unknown> {
    return k.present ? k.present(r, projectId) : r.body;
  }

  /** The stored resource the call names by `param` (name or id); 404 naming the call's path. */
  async find(call: ComputeCall, k: StoredKind, param: string): Promise<StoredResource> {
    const r = await this.#resources.get(this.#store.db, k.kind, call.project.projectNumber, call.scope, call.params[param]);
    if (!r) throw resourceNotFound(call.path);
    return r;
  }

  async get(call: ComputeCall, k: StoredKind, param: string): Promise<Record<string, unknown>> {
    return this.#present(k, await this.find(call, k, param), call.project.projectId);
  }

  #item(k: StoredKind, r: StoredResource, projectId: string) {
    return { resource: this.#present(k, r, projectId), scope: r.scope, cursor: { name: { key: r.name, id: r.id }, creation: { key: r.creationMs, id: r.id } } };
  }

  async list(call: ComputeCall, k: StoredKind): Promise<Record<string, unknown>> {
    const { project: p, scope } = call;
    const id = `${scopePath(p.projectId, scope)}/${k.collection}`;
    const page = await listPage(call.query as ListParams, `${k.kind}/${p.projectNumber}/${locationOf(scope)}`, async (order, after, limit) =>
      (await this.#resources.page(this.#store.db, { kind: k.kind, projectNumber: p.projectNumber, scope, order, after, limit })).map((r) => this.#item(k, r, p.projectId)),
    );
    return listAnswer(k.schema, id, page);
  }

  async aggregatedList(call: ComputeCall, k: StoredKind): Promise<Record<string, unknown>> {
    const p = call.project;
    const page = await listPage(call.query as ListParams, `aggregated/${k.collection}/${p.projectNumber}`, async (order, after, limit) =>
      (await this.#resources.page(this.#store.db, { kind: k.kind, projectNumber: p.projectNumber, order, after, limit })).map((r) => this.#item(k, r, p.projectId)),
    );
    return aggregatedAnswer(p.projectId, k.collection, k.schema, page, k.aggregatedScopes.flatMap(allScopes));
  }
}
