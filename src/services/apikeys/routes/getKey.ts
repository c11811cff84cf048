import type { FastifyInstance } from 'fastify';
import type { ApiKeysService } from '../service.ts';
import { KeyParams, NoQuery } from '../schemas.ts';
import { KEY_PATH, apiKeysMethod } from './common.ts';

/** GET /v2/projects/{project}/locations/{location}/keys/{key} -> Key */
export function getKey(app: FastifyInstance, svc: ApiKeysService): void {
  app.get<{ Params: KeyParams }>(KEY_PATH, { schema: { params: KeyParams, querystring: NoQuery }, config: apiKeysMethod('GetKey', 'read') }, async (req) =>
    svc.getKey(req.principal, req.params.project, req.params.location, req.params.key),
  );
}
