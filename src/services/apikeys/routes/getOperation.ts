import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import type { ApiKeysService } from '../service.ts';
import { NoQuery } from '../schemas.ts';
import { apiKeysMethod } from './common.ts';

const Params = Type.Object({ operation: Type.String({ maxLength: 500 }) });

/** GET /v2/operations/{operation} -> Operation */
export function getOperation(app: FastifyInstance, svc: ApiKeysService): void {
  app.get<{ Params: { operation: string } }>(
    '/v2/operations/:operation',
    { schema: { params: Params, querystring: NoQuery }, config: apiKeysMethod('google.longrunning.Operations.GetOperation', 'read') },
    async (req) => svc.getOperation(req.principal, `operations/${req.params.operation}`),
  );
}
