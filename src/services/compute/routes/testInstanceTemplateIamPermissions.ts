import type { FastifyInstance } from 'fastify';
import type { ComputeService } from '../service.ts';
import { GLOBAL_TEMPLATES_PATH, NoQuery, PolicyResourceParams, computeMethod } from './common.ts';

/** POST /compute/v1/projects/{project}/global/instanceTemplates/{resource}/testIamPermissions (TestPermissionsRequest) -> TestPermissionsResponse */
export function testInstanceTemplateIamPermissions(app: FastifyInstance, svc: ComputeService): void {
  app.post<{ Params: { project: string; resource: string } }>(
    `${GLOBAL_TEMPLATES_PATH}/:resource/testIamPermissions`,
    { schema: { params: PolicyResourceParams, querystring: NoQuery }, config: computeMethod('instanceTemplates.testIamPermissions', 'read') },
    async (req) => svc.testTemplateIamPermissions(req.principal, req.params.project, req.params.resource, req.body),
  );
}
