import type { FastifyInstance } from 'fastify';
import { type ComputeService, regionScope } from '../service.ts';
import { NoQuery, OPERATIONS_PATH, OperationParams, computeMethod } from './common.ts';

/** DELETE /compute/v1/projects/{project}/regions/{region}/operations/{operation} -> empty body */
export function deleteRegionOperation(app: FastifyInstance, svc: ComputeService): void {
  app.delete<{ Params: { project: string; region: string; operation: string } }>(
    `${OPERATIONS_PATH}/:operation`,
    { schema: { params: OperationParams, querystring: NoQuery }, config: computeMethod('regionOperations.delete', 'write') },
    async (req, reply) => {
      await svc.deleteOperation(req.principal, req.params.project, regionScope(req.params.project, req.params.region), req.params.operation);
      return reply.code(204).send();
    },
  );
}
