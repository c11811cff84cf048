import type { Kysely } from 'kysely';
import type { Database } from '../../../platform/store/schema.ts';
import type { Store } from '../../../platform/store/store.ts';
import { COMPUTE_SCHEMAS } from '../discovery/schema.ts';
import { resourceNotFound } from '../errors.ts';
import { type ListParams, aggregatedAnswer, listAnswer, listPage } from '../listPage.ts';
import { computeTimestamp } from '../names.ts';
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
  /** Several rows as answered, when answering needs other rows too (a network's subnetworks): one read for a page. */
  presentAll?(db: Kysely<Database>, rows: readonly StoredResource[], p: { projectId: string; projectNumber: string }): Promise<Record<string, unknown>[]>;
}


/**
 * A stored resource as answered: `kind`, its id and creation time from the row, the kind's
 * `defaults` where the stored JSON gives none (an entry the world declared gives only some), the
 * stored JSON, then the `links` (made from the row, so always right); only the schema's fields.
 */
export function presented(schema: string, r: StoredResource, defaults: Record<string, unknown>, links: Record<string, unknown>): Record<string, unknown> {
  return COMPUTE_SCHEMAS.prune(schema, {
    kind: `compute#${schema[0].toLowerCase()}${schema.slice(1)}`,
    id: r.id,
    creationTimestamp: computeTimestamp(r.creationMs),
    ...defaults,
    ...r.body,
    ...links,
  });
}

/** get, list and aggregatedList of the store's kinds: the same paging, filter and orderBy as every Compute list. */
export class ResourceReader {
  readonly #store: Store;
  readonly #resources: ResourceStore;

  constructor(store: Store, resources: ResourceStore) {
    this.#store = store;
    this.#resources = resources;
  }

  /** Rows as answered, in their order. */
  async presentAll(k: StoredKind, rows: readonly StoredResource[], p: { projectId: string; projectNumber: string }): Promise<Record<string, unknown>[]> {
    if (k.presentAll) return k.presentAll(this.#store.db, rows, p);
    return rows.map((r) => (k.present ? k.present(r, p.projectId) : r.body));
  }

  /** The stored resource the call names by `param` (name or id); 404 naming the call's path. */
  async find(call: ComputeCall, k: StoredKind, param: string): Promise<StoredResource> {
    const r = await this.#resources.get(this.#store.db, k.kind, call.project.projectNumber, call.scope, call.params[param]);
    if (!r) throw resourceNotFound(call.path);
    return r;
  }

  async get(call: ComputeCall, k: StoredKind, param: string): Promise<Record<string, unknown>> {
    const [one] = await this.presentAll(k, [await this.find(call, k, param)], call.project);
    return one;
  }

  async #items(k: StoredKind, rows: StoredResource[], p: { projectId: string; projectNumber: string }) {
    const answered = await this.presentAll(k, rows, p);
    return rows.map((r, i) => ({ resource: answered[i], scope: r.scope, cursor: { name: { key: r.name, id: r.id }, creation: { key: r.creationMs, id: r.id } } }));
  }

  async list(call: ComputeCall, k: StoredKind): Promise<Record<string, unknown>> {
    const { project: p, scope } = call;
    const id = `${scopePath(p.projectId, scope)}/${k.collection}`;
    const page = await listPage(call.query as ListParams, `${k.kind}/${p.projectNumber}/${locationOf(scope)}`, async (order, after, limit) =>
      this.#items(k, await this.#resources.page(this.#store.db, { kind: k.kind, projectNumber: p.projectNumber, scope, order, after, limit }), p),
    );
    return listAnswer(k.schema, id, page);
  }

  async aggregatedList(call: ComputeCall, k: StoredKind): Promise<Record<string, unknown>> {
    const p = call.project;
    const page = await listPage(call.query as ListParams, `aggregated/${k.collection}/${p.projectNumber}`, async (order, after, limit) =>
      this.#items(k, await this.#resources.page(this.#store.db, { kind: k.kind, projectNumber: p.projectNumber, order, after, limit }), p),
    );
    return aggregatedAnswer(p.projectId, k.collection, k.schema, page, k.aggregatedScopes.flatMap(allScopes));
  }
}
