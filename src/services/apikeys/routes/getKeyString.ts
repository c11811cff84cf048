import type { FastifyInstance } from 'fastify';
import type { ApiKeysService } from '../service.ts';
import { KeyParams, NoQuery } from '../schemas.ts';
import { KEY_PATH, apiKeysMethod } from './common.ts';

/** GET /v2/projects/{project}/locations/{location}/keys/{key}/keyString -> {keyString} */
export function getKeyString(app: FastifyInstance, svc: ApiKeysService): void {
  app.get<{ Params: KeyParams }>(`${KEY_PATH}/keyString`, { schema: { params: KeyParams, querystring: NoQuery }, config: apiKeysMethod('GetKeyString', 'read') }, async (req) =>
    svc.getKeyString(req.principal, req.params.project, req.params.location, req.params.key),
  );
}
