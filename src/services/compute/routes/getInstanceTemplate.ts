import type { FastifyInstance } from 'fastify';
import type { ComputeService } from '../service.ts';
import { GLOBAL } from '../names.ts';
import { GLOBAL_TEMPLATES_PATH, GlobalTemplateParams, NoQuery, computeMethod } from './common.ts';

/** GET /compute/v1/projects/{project}/global/instanceTemplates/{instanceTemplate} (name or id) */
export function getInstanceTemplate(app: FastifyInstance, svc: ComputeService): void {
  app.get<{ Params: { project: string; instanceTemplate: string } }>(
    `${GLOBAL_TEMPLATES_PATH}/:instanceTemplate`,
    { schema: { params: GlobalTemplateParams, querystring: NoQuery }, config: computeMethod('instanceTemplates.get', 'read') },
    async (req) => svc.getTemplate(req.principal, req.params.project, GLOBAL, req.params.instanceTemplate),
  );
}
