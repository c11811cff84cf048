import type { FastifyInstance } from 'fastify';
import { type ComputeService, regionScope } from '../service.ts';
import { RegionParams, type RegionParamsT, RequestIdQuery, TEMPLATES_PATH, answeringTranscodingErrors, computeMethod } from './common.ts';

/** POST /compute/v1/projects/{project}/regions/{region}/instanceTemplates?requestId= -> Operation */
export function insertRegionInstanceTemplate(app: FastifyInstance, svc: ComputeService): void {
  app.post<{ Params: RegionParamsT; Querystring: { requestId?: string } }>(
    TEMPLATES_PATH,
    { schema: { params: RegionParams, querystring: RequestIdQuery }, config: computeMethod('regionInstanceTemplates.insert', 'write') },
    async (req, reply) => answeringTranscodingErrors(reply, () => svc.insertTemplate(req.principal, req.params.project, regionScope(req.params.project, req.params.region), req.query.requestId, req.body)),
  );
}
