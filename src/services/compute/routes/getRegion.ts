import type { FastifyInstance } from 'fastify';
import type { ComputeService } from '../service.ts';
import { NoQuery, REGION_PATH, RegionParams, type RegionParamsT, computeMethod } from './common.ts';

/** GET /compute/v1/projects/{project}/regions/{region} -> compute#region */
export function getRegion(app: FastifyInstance, svc: ComputeService): void {
  app.get<{ Params: RegionParamsT }>(REGION_PATH, { schema: { params: RegionParams, querystring: NoQuery }, config: computeMethod('regions.get', 'read') }, async (req) =>
    svc.getRegion(req.principal, req.params.project, req.params.region),
  );
}
