import type { FastifyInstance } from 'fastify';
import { type ComputeService, regionScope } from '../service.ts';
import { RequestIdQuery, TEMPLATES_PATH, TemplateParams, computeMethod } from './common.ts';

/** DELETE /compute/v1/projects/{project}/regions/{region}/instanceTemplates/{instanceTemplate}?requestId= -> Operation */
export function deleteRegionInstanceTemplate(app: FastifyInstance, svc: ComputeService): void {
  app.delete<{ Params: { project: string; region: string; instanceTemplate: string }; Querystring: { requestId?: string } }>(
    `${TEMPLATES_PATH}/:instanceTemplate`,
    { schema: { params: TemplateParams, querystring: RequestIdQuery }, config: computeMethod('regionInstanceTemplates.delete', 'write') },
    async (req) => svc.deleteTemplate(req.principal, req.params.project, regionScope(req.params.project, req.params.region), req.params.instanceTemplate, req.query.requestId),
  );
}
