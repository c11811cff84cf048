import type { FastifyInstance } from 'fastify';
import type { ComputeService } from '../service.ts';
import { GLOBAL } from '../names.ts';
import { GLOBAL_TEMPLATES_PATH, ProjectParams, RequestIdQuery, answeringTranscodingErrors, computeMethod } from './common.ts';

/** POST /compute/v1/projects/{project}/global/instanceTemplates?requestId= -> Operation */
export function insertInstanceTemplate(app: FastifyInstance, svc: ComputeService): void {
  app.post<{ Params: { project: string }; Querystring: { requestId?: string } }>(
    GLOBAL_TEMPLATES_PATH,
    { schema: { params: ProjectParams, querystring: RequestIdQuery }, config: computeMethod('instanceTemplates.insert', 'write') },
    async (req, reply) => answeringTranscodingErrors(reply, () => svc.insertTemplate(req.principal, req.params.project, GLOBAL, req.query.requestId, req.body)),
  );
}
