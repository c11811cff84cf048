import type { FastifyInstance } from 'fastify';
import { ApiError } from '../../../platform/http/errors.ts';
import type { ComputeService } from '../service.ts';
import { NoQuery, OPERATIONS_PATH, OperationParams, computeMethod } from './common.ts';

/**
 * POST /compute/v1/projects/{project}/regions/{region}/operations/{operation}/wait: blocks until
 * the operation is DONE or the wait deadline passes. The body is empty or the JSON string `""`.
 */
export function waitRegionOperation(app: FastifyInstance, svc: ComputeService): void {
  app.post<{ Params: { project: string; region: string; operation: string } }>(
    `${OPERATIONS_PATH}/:operation/wait`,
    { schema: { params: OperationParams, querystring: NoQuery }, config: computeMethod('regionOperations.wait', 'read') },
    async (req, reply) => {
      const b = req.body;
      const empty = b === undefined || b === null || b === '' || (typeof b === 'object' && !Array.isArray(b) && Object.keys(b).length === 0);
      if (!empty) throw new ApiError({ status: 'INVALID_ARGUMENT', message: 'Invalid JSON payload received. The wait method takes no request body.' });
      const aborted = new AbortController();
      // The client hung up: stop waiting (the response's `close` before it is sent means exactly that).
      reply.raw.once('close', () => aborted.abort());
      return svc.waitOperation(req.principal, req.params.project, req.params.region, req.params.operation, aborted.signal);
    },
  );
}
