import type { FastifyInstance } from 'fastify';
import type { ComputeService } from '../service.ts';
import { GLOBAL } from '../names.ts';
import { GLOBAL_OPERATIONS_PATH, GlobalOperationParams, NoQuery, computeMethod } from './common.ts';

/** DELETE /compute/v1/projects/{project}/global/operations/{operation} -> empty body */
export function deleteGlobalOperation(app: FastifyInstance, svc: ComputeService): void {
  app.delete<{ Params: { project: string; operation: string } }>(
    `${GLOBAL_OPERATIONS_PATH}/:operation`,
    { schema: { params: GlobalOperationParams, querystring: NoQuery }, config: computeMethod('globalOperations.delete', 'write') },
    async (req, reply) => {
      await svc.deleteOperation(req.principal, req.params.project, GLOBAL, req.params.operation);
      return reply.code(204).send();
    },
  );
}
