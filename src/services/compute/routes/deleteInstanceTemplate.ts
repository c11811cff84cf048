import type { FastifyInstance } from 'fastify';
import type { ComputeService } from '../service.ts';
import { GLOBAL } from '../names.ts';
import { GLOBAL_TEMPLATES_PATH, GlobalTemplateParams, RequestIdQuery, computeMethod } from './common.ts';

/** DELETE /compute/v1/projects/{project}/global/instanceTemplates/{instanceTemplate}?requestId= -> Operation */
export function deleteInstanceTemplate(app: FastifyInstance, svc: ComputeService): void {
  app.delete<{ Params: { project: string; instanceTemplate: string }; Querystring: { requestId?: string } }>(
    `${GLOBAL_TEMPLATES_PATH}/:instanceTemplate`,
    { schema: { params: GlobalTemplateParams, querystring: RequestIdQuery }, config: computeMethod('instanceTemplates.delete', 'write') },
    async (req) => svc.deleteTemplate(req.principal, req.params.project, GLOBAL, req.params.instanceTemplate, req.query.requestId),
  );
}
