import type { FastifyInstance } from 'fastify';
import type { ListParams } from '../listPage.ts';
import type { ComputeWorldReader } from '../worldReader.ts';
import { RESOURCE_KINDS } from '../worldResources.ts';
import { ListQuery, computeMethod } from './common.ts';
import { collectionRoute, locationOf, paramsOf } from './worldPaths.ts';

/** GET .../<collection> for every kind of the world (networks.list, images.list, machineTypes.list, ...) -> compute#<kind>List */
export function listWorldResources(app: FastifyInstance, reader: ComputeWorldReader): void {
  for (const k of RESOURCE_KINDS) {
    const route = collectionRoute(k);
    app.get<{ Params: Record<string, string>; Querystring: ListParams }>(
      route,
      { schema: { params: paramsOf(route), querystring: ListQuery }, config: computeMethod(`${k.resource}.list`, 'read') },
      async (req) => reader.list(req.principal, k, req.params.project, locationOf(k, req.params), req.query),
    );
  }
}
