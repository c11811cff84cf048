import type { FastifyInstance } from 'fastify';
import type { ComputeService, ListParams } from '../service.ts';
import { GLOBAL } from '../names.ts';
import { GLOBAL_OPERATIONS_PATH, ListQuery, ProjectParams, computeMethod } from './common.ts';

/** GET /compute/v1/projects/{project}/global/operations -> compute#operationList */
export function listGlobalOperations(app: FastifyInstance, svc: ComputeService): void {
  app.get<{ Params: { project: string }; Querystring: ListParams }>(
    GLOBAL_OPERATIONS_PATH,
    { schema: { params: ProjectParams, querystring: ListQuery }, config: computeMethod('globalOperations.list', 'read') },
    async (req) => svc.listOperations(req.principal, req.params.project, GLOBAL, req.query),
  );
}
