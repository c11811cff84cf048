import type { FastifyInstance } from 'fastify';
import type { ComputeService, ListParams } from '../service.ts';
import { GLOBAL } from '../names.ts';
import { GLOBAL_TEMPLATES_PATH, ListQuery, ProjectParams, computeMethod } from './common.ts';

/** GET /compute/v1/projects/{project}/global/instanceTemplates -> compute#instanceTemplateList */
export function listInstanceTemplates(app: FastifyInstance, svc: ComputeService): void {
  app.get<{ Params: { project: string }; Querystring: ListParams }>(
    GLOBAL_TEMPLATES_PATH,
    { schema: { params: ProjectParams, querystring: ListQuery }, config: computeMethod('instanceTemplates.list', 'read') },
    async (req) => svc.listTemplates(req.principal, req.params.project, GLOBAL, req.query),
  );
}
