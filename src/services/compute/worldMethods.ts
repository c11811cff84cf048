import type { FastifyInstance } from 'fastify';
import { PUBLIC_IMAGES } from './catalogue.ts';
import { COMPUTE_SCHEMAS } from './discovery/schema.ts';
import { computeError } from './errors.ts';
import { type ComputeMethod, computeRouteConfig } from './methods.ts';
import { BASE_PATH } from './names.ts';
import type { ComputeWorldReader } from './worldReader.ts';
import { RESOURCE_KINDS, type ResourceKind } from './worldResources.ts';

/** A kind's collection as the discovery document writes its path. */
function collectionOf(k: ResourceKind): string {
  if (k.scope === 'global') return `projects/{project}/global/${k.collection}`;
  if (k.scope === 'regional') return `projects/{project}/regions/{region}/${k.collection}`;
  if (k.scope === 'zonal') return `projects/{project}/zones/{zone}/${k.collection}`;
  return `projects/{project}/${k.collection}`;
}

/** The public image projects' images are readable by every authenticated principal. */
const publicImages = (project: string) => PUBLIC_IMAGES.has(project);

/**
 * The world's read-only kinds (RESOURCE_KINDS: regions, zones, images, machine types, ...):
 * get, list, aggregatedList where the kind has it, and images.getFromFamily.
 */
export function worldMethods(reader: ComputeWorldReader, kinds: readonly ResourceKind[] = RESOURCE_KINDS): ComputeMethod[] {
  return kinds.flatMap((k): ComputeMethod[] => {
    const collection = collectionOf(k);
    const open = k.images ? publicImages : undefined;
    const resourceParam = k.scope === 'project' ? k.param : undefined;
    return [
      { id: `compute.${k.resource}.get`, verb: 'GET', path: `${collection}/{${k.param}}`, permission: `${k.permissions}.get`, resourceParam, open, handler: (c) => reader.get(c, k) },
      { id: `compute.${k.resource}.list`, verb: 'GET', path: collection, permission: `${k.permissions}.list`, query: 'list', open, handler: (c) => reader.list(c, k) },
      ...(k.aggregated
        ? [{ id: `compute.${k.resource}.aggregatedList`, verb: 'GET', path: `projects/{project}/aggregated/${k.collection}`, permission: `${k.permissions}.list`, query: 'aggregated', handler: (c) => reader.aggregatedList(c, k) } as ComputeMethod]
        : []),
      ...(k.images
        ? [{ id: 'compute.images.getFromFamily', verb: 'GET', path: 'projects/{project}/global/images/family/{family}', permission: 'compute.images.get', open, handler: (c) => reader.imageFromFamily(c, k) } as ComputeMethod]
        : []),
    ];
  });
}

/**
 * Every other method of the resources cloudtwin serves (`images.delete`, `instances.start`,
 * `networks.addPeering`, ...): each answers 501 `notImplemented` in Compute's envelope, naming the
 * method, after the usual authentication and scope check (docs/differences.md). `offered`: the ids
 * the method tables serve; a resource none of them names stays unrouted (404).
 */
export function unofferedMethods(app: FastifyInstance, offered: ReadonlySet<string>): void {
  const resources = new Set([...offered].map((id) => id.split('.')[1]));
  for (const m of COMPUTE_SCHEMAS.methods) {
    const resource = m.id.split('.')[1];
    if (!resources.has(resource) || offered.has(m.id)) continue;
    app.route({
      method: m.verb as 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE',
      url: `${BASE_PATH}/${m.path.replace(/\{([A-Za-z]+)\}/g, ':$1')}`,
      config: computeRouteConfig(m.id, m.verb === 'GET' ? 'read' : 'write'),
      handler: async () => {
        throw computeError('UNIMPLEMENTED', 'notImplemented', `Method ${m.id} is not offered by cloudtwin (docs/differences.md lists what is).`);
      },
    });
  }
}
