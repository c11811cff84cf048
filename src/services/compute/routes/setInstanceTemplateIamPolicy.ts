import type { FastifyInstance } from 'fastify';
import type { ComputeService } from '../service.ts';
import { GLOBAL_TEMPLATES_PATH, NoQuery, PolicyResourceParams, computeMethod } from './common.ts';

/** POST /compute/v1/projects/{project}/global/instanceTemplates/{resource}/setIamPolicy (GlobalSetPolicyRequest) -> Policy */
export function setInstanceTemplateIamPolicy(app: FastifyInstance, svc: ComputeService): void {
  app.post<{ Params: { project: string; resource: string } }>(
    `${GLOBAL_TEMPLATES_PATH}/:resource/setIamPolicy`,
    { schema: { params: PolicyResourceParams, querystring: NoQuery }, config: computeMethod('instanceTemplates.setIamPolicy', 'write') },
    async (req) => svc.setTemplateIamPolicy(req.principal, req.params.project, req.params.resource, req.body),
  );
}
