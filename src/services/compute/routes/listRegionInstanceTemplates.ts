import type { FastifyInstance } from 'fastify';
import { type ComputeService, type ListParams, regionScope } from '../service.ts';
import { ListQuery, RegionParams, type RegionParamsT, TEMPLATES_PATH, computeMethod } from './common.ts';

/** GET /compute/v1/projects/{project}/regions/{region}/instanceTemplates -> compute#instanceTemplateList */
export function listRegionInstanceTemplates(app: FastifyInstance, svc: ComputeService): void {
  app.get<{ Params: RegionParamsT; Querystring: ListParams }>(
    TEMPLATES_PATH,
    { schema: { params: RegionParams, querystring: ListQuery }, config: computeMethod('regionInstanceTemplates.list', 'read') },
    async (req) => svc.listTemplates(req.principal, req.params.project, regionScope(req.params.project, req.params.region), req.query),
  );
}
