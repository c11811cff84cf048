import type { FastifyInstance } from 'fastify';
import { type ComputeService, type ListParams, regionScope } from '../service.ts';
import { ListQuery, OPERATIONS_PATH, RegionParams, type RegionParamsT, computeMethod } from './common.ts';

/** GET /compute/v1/projects/{project}/regions/{region}/operations -> compute#operationList */
export function listRegionOperations(app: FastifyInstance, svc: ComputeService): void {
  app.get<{ Params: RegionParamsT; Querystring: ListParams }>(
    OPERATIONS_PATH,
    { schema: { params: RegionParams, querystring: ListQuery }, config: computeMethod('regionOperations.list', 'read') },
    async (req) => svc.listOperations(req.principal, req.params.project, regionScope(req.params.project, req.params.region), req.query),
  );
}
