import type { FastifyInstance } from 'fastify';
import type { ListParams } from '../listPage.ts';
import { BASE_PATH } from '../names.ts';
import type { ComputeWorldReader } from '../worldReader.ts';
import { RESOURCE_KINDS } from '../worldResources.ts';
import { AggregatedQuery, computeMethod } from './common.ts';
import { paramsOf } from './worldPaths.ts';

/** GET /compute/v1/projects/{project}/aggregated/<collection> for the zonal and regional kinds that have it -> compute#<kind>AggregatedList */
export function aggregatedListWorldResources(app: FastifyInstance, reader: ComputeWorldReader): void {
  for (const k of RESOURCE_KINDS.filter((r) => r.aggregated)) {
    const route = `${BASE_PATH}/projects/:project/aggregated/${k.collection}`;
    app.get<{ Params: { project: string }; Querystring: ListParams & { includeAllScopes?: boolean } }>(
      route,
      { schema: { params: paramsOf(route), querystring: AggregatedQuery }, config: computeMethod(`${k.resource}.aggregatedList`, 'read') },
      async (req) => reader.aggregatedList(req.principal, k, req.params.project, req.query),
    );
  }
}
