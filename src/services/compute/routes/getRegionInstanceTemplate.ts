import type { FastifyInstance } from 'fastify';
import { type ComputeService, regionScope } from '../service.ts';
import { NoQuery, TEMPLATES_PATH, TemplateParams, computeMethod } from './common.ts';

/** GET /compute/v1/projects/{project}/regions/{region}/instanceTemplates/{instanceTemplate} (name or id) */
export function getRegionInstanceTemplate(app: FastifyInstance, svc: ComputeService): void {
  app.get<{ Params: { project: string; region: string; instanceTemplate: string } }>(
    `${TEMPLATES_PATH}/:instanceTemplate`,
    { schema: { params: TemplateParams, querystring: NoQuery }, config: computeMethod('regionInstanceTemplates.get', 'read') },
    async (req) => svc.getTemplate(req.principal, req.params.project, regionScope(req.params.project, req.params.region), req.params.instanceTemplate),
  );
}
