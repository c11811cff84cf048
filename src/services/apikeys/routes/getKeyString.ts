import type { FastifyInstance } from 'fastify';
import type { ApiKeysService } from '../service.ts';
import { KeyParams, NoQuery } from '../schemas.ts';
import { googlePath } from '../../../platform/http/routes.ts';
import { KEY_TEMPLATE, apiKeysMethod } from './common.ts';

/** GET /v2/projects/{project}/locations/{location}/keys/{key}/keyString -> {keyString} */
export function getKeyString(app: FastifyInstance, svc: ApiKeysService): void {
  app.get<{ Params: KeyParams }>(googlePath(`${KEY_TEMPLATE}/keyString`), { schema: { params: KeyParams, querystring: NoQuery }, config: apiKeysMethod('GetKeyString', 'read') }, async (req) =>
    svc.getKeyString(req.principal, req.params.project, req.params.location, req.params.key),
  );
}
