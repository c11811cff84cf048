import type { FastifyInstance } from 'fastify';
import type { Static } from '@sinclair/typebox';
import type { ApiKeysService } from '../service.ts';
import { ListKeysQuery, ParentParams } from '../schemas.ts';
import { KEYS_PATH, acceptProtoNames, apiKeysMethod } from './common.ts';

/** GET /v2/projects/{project}/locations/{location}/keys -> {keys, nextPageToken} */
export function listKeys(app: FastifyInstance, svc: ApiKeysService): void {
  app.get<{ Params: ParentParams; Querystring: Static<typeof ListKeysQuery> }>(
    KEYS_PATH,
    { schema: { params: ParentParams, querystring: ListKeysQuery }, config: apiKeysMethod('ListKeys', 'read'), preValidation: acceptProtoNames },
    async (req) => svc.listKeys(req.principal, req.params.project, req.params.location, req.query),
  );
}
