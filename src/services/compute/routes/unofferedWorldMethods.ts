import type { FastifyInstance } from 'fastify';
import { computeError } from '../errors.ts';
import { COMPUTE_SCHEMAS } from '../discovery/schema.ts';
import { BASE_PATH } from '../names.ts';
import { RESOURCE_KINDS } from '../worldResources.ts';
import { computeMethod } from './common.ts';
import { paramsOf } from './worldPaths.ts';

/** The methods of the world's kinds cloudtwin serves (the rest of each resource's methods write, or act on, the world). */
const OFFERED = new Set(['get', 'list', 'aggregatedList', 'getFromFamily']);

/**
 * Every other method of the world's resources (`networks.insert`, `images.delete`,
 * `instances.start`, ...): the world is read only here (world:apply writes it), so each answers
 * 501 `notImplemented` in Compute's envelope, naming the method, after the usual authentication
 * and scope check (docs/differences.md).
 */
export function unofferedWorldMethods(app: FastifyInstance): void {
  const resources = new Set(RESOURCE_KINDS.map((k) => k.resource));
  for (const m of COMPUTE_SCHEMAS.methods) {
    const [, resource, method] = m.id.split('.');
    if (!resources.has(resource) || OFFERED.has(method)) continue;
    const route = `${BASE_PATH}/${m.path.replace(/\{([A-Za-z]+)\}/g, ':$1')}`;
    app.route({
      method: m.verb as 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE',
      url: route,
      schema: { params: paramsOf(route) },
      config: computeMethod(`${resource}.${method}`, m.verb === 'GET' ? 'read' : 'write'),
      handler: async () => {
        throw computeError('UNIMPLEMENTED', 'notImplemented', `Method ${m.id} is not offered by cloudtwin: the world's Compute resources are read only (declare them with world:apply).`);
      },
    });
  }
}
