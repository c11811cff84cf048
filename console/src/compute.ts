/**
 * Compute Engine as the console uses it. A resource lives in a scope (global, a region or a zone)
 * and every page of the Compute section reads it the same way: the project's resources of one
 * collection in every scope (the collection's aggregatedList), a resource's path from its scope
 * and name, and a mutation's operation waited on in the operation's own scope.
 */
import { ApiProblem, call, listAll } from './api.ts';

export type Scope = { kind: 'global' } | { kind: 'region'; name: string } | { kind: 'zone'; name: string };

export const GLOBAL: Scope = { kind: 'global' };

/** The last segment of a resource URL (`.../zones/us-central1-a` -> `us-central1-a`). */
export const lastSegment = (url: unknown): string | undefined => (typeof url === 'string' && url ? url.slice(url.lastIndexOf('/') + 1) : undefined);

/** Where a resource or an operation lives, from its `zone` or `region` URL; global when it names neither. */
export function scopeOf(resource: { zone?: unknown; region?: unknown }): Scope {
  const zone = lastSegment(resource.zone);
  if (zone) return { kind: 'zone', name: zone };
  const region = lastSegment(resource.region);
  return region ? { kind: 'region', name: region } : GLOBAL;
}

/** The scope's segment of a path below the project, as an aggregatedList keys its `items`: `global`, `regions/R`, `zones/Z`. */
export function scopeSegment(scope: Scope): string {
  return scope.kind === 'global' ? 'global' : `${scope.kind === 'region' ? 'regions' : 'zones'}/${scope.name}`;
}

function scopeFromSegment(segment: string): Scope | undefined {
  if (segment === 'global') return GLOBAL;
  const m = /^(regions|zones)\/([^/]+)$/.exec(segment);
  return m ? { kind: m[1] === 'regions' ? 'region' : 'zone', name: m[2] } : undefined;
}

/**
 * A resource named by a URL or a relative path (a template a group or an instance names) as the
 * console shows it: its name, and its region or zone when it has one (`web (us-central1)`).
 */
export function referenceLabel(ref: unknown): string | undefined {
  const name = lastSegment(ref);
  if (!name) return undefined;
  const scope = /\/(?:regions|zones)\/([^/]+)\/[^/]+\/[^/]+$/.exec(String(ref));
  return scope ? `${name} (${scope[1]})` : name;
}

/** The value of one metadata key of an instance (`instance-template`, `created-by`), undefined when it has none. */
export function metadataValue(instance: { metadata?: { items?: { key: string; value?: string }[] } }, key: string): string | undefined {
  return instance.metadata?.items?.find((i) => i.key === key)?.value;
}

/** A scope as the console shows it: "Global", or the region's or zone's name. */
export function scopeLabel(scope: Scope): string {
  return scope.kind === 'global' ? 'Global' : scope.name;
}

export const projectPath = (project: string) => `/compute/v1/projects/${encodeURIComponent(project)}`;

/** A collection of one scope (`.../regions/us-central1/instanceTemplates`). */
export const collectionPath = (project: string, scope: Scope, collection: string) => `${projectPath(project)}/${scopeSegment(scope)}/${collection}`;

/** One resource of a collection, by scope and name. */
export const resourcePath = (project: string, scope: Scope, collection: string, name: string) => `${collectionPath(project, scope, collection)}/${encodeURIComponent(name)}`;

/** A resource with the scope it lives in. */
export interface Scoped<T> {
  scope: Scope;
  resource: T;
}

/**
 * Every resource of a collection in every scope of the project, page after page:
 * `GET .../aggregated/{collection}`, whose `items` are keyed by scope and hold a list named as
 * the collection (`instanceTemplates`, `instances`, `instanceGroupManagers`). A scope that could
 * not be read fails the whole list (the console shows what it could not read, not a partial list).
 */
export async function aggregatedListAll<T>(project: string, collection: string): Promise<Scoped<T>[]> {
  const all: Scoped<T>[] = [];
  let pageToken: string | undefined;
  do {
    const page = await call<{ items?: Record<string, Record<string, unknown>>; nextPageToken?: string }>('GET', `${projectPath(project)}/aggregated/${collection}`, {
      query: { maxResults: 500, pageToken },
    });
    for (const [segment, entry] of Object.entries(page.items ?? {})) {
      const scope = scopeFromSegment(segment);
      const list = entry[collection] as T[] | undefined;
      if (scope && list) for (const resource of list) all.push({ scope, resource });
    }
    pageToken = page.nextPageToken;
  } while (pageToken);
  return all;
}

/** The project's regions as Compute's regions.list gives them (every page), by name. */
export async function listRegions(project: string): Promise<string[]> {
  return (await listAll<{ name: string }>(`${projectPath(project)}/regions`, 'items', { maxResults: 500 })).map((r) => r.name);
}

/** Waits until a Compute operation is DONE, with the `wait` method of the operation's own scope. */
export async function waitForOperation(project: string, op: any, onProgress?: (op: any) => void): Promise<any> {
  let cur = op;
  while (cur.status !== 'DONE') {
    onProgress?.(cur);
    cur = await call('POST', `${collectionPath(project, scopeOf(cur), 'operations')}/${encodeURIComponent(cur.name)}/wait`, { body: '' });
  }
  onProgress?.(cur);
  return cur;
}

/** The error of a finished operation as the API's error (with the field each entry names), undefined when it succeeded. */
export function operationProblem(op: any): ApiProblem | undefined {
  if (!op?.error) return undefined;
  const errors = (op.error.errors ?? []) as any[];
  return new ApiProblem(op.httpErrorStatusCode ?? 400, {
    error: { message: errors.map((e) => e.message).join('\n'), errors: errors.map((e) => ({ ...e, reason: e.code })), status: op.httpErrorMessage },
  });
}

/**
 * Starts a mutation (an insert, a delete, a resize) and follows its operation to the end (the
 * Operations page lists it from the API): its progress reported, its failure thrown as the API's error.
 */
export async function mutate(project: string, method: 'POST' | 'DELETE' | 'PATCH', path: string, opts: { body?: unknown; query?: Record<string, string | number>; onProgress?: (op: any) => void } = {}): Promise<any> {
  const first = await call(method, path, { body: opts.body, query: opts.query });
  const done = await waitForOperation(project, first, opts.onProgress);
  const problem = operationProblem(done);
  if (problem) throw problem;
  return done;
}
