import type { FastifyInstance } from 'fastify';
import type { ComputeWorldReader } from '../worldReader.ts';
import { RESOURCE_KINDS } from '../worldResources.ts';
import { NoQuery, computeMethod } from './common.ts';
import { itemRoute, locationOf, paramsOf } from './worldPaths.ts';

/** GET .../<collection>/{name or id} for every kind of the world (networks.get, zones.get, machineTypes.get, ...) -> its resource */
export function getWorldResource(app: FastifyInstance, reader: ComputeWorldReader): void {
  for (const k of RESOURCE_KINDS) {
    const route = itemRoute(k);
    app.get<{ Params: Record<string, string> }>(route, { schema: { params: paramsOf(route), querystring: NoQuery }, config: computeMethod(`${k.resource}.get`, 'read') }, async (req) =>
      reader.get(req.principal, k, req.params.project, locationOf(k, req.params), req.params[k.param]),
    );
  }
}
