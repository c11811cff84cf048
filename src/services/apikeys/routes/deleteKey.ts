import type { FastifyInstance } from 'fastify';
import type { Static } from '@sinclair/typebox';
import type { ApiKeysService } from '../service.ts';
import { DeleteKeyQuery, KeyParams } from '../schemas.ts';
import { KEY_PATH, acceptProtoNames, apiKeysMethod } from './common.ts';

/** DELETE /v2/projects/{project}/locations/{location}/keys/{key}?etag= -> Operation */
export function deleteKey(app: FastifyInstance, svc: ApiKeysService): void {
  app.delete<{ Params: KeyParams; Querystring: Static<typeof DeleteKeyQuery> }>(
    KEY_PATH,
    { schema: { params: KeyParams, querystring: DeleteKeyQuery }, config: apiKeysMethod('DeleteKey', 'write'), preValidation: acceptProtoNames },
    async (req) => svc.deleteKey(req.principal, req.params.project, req.params.location, req.params.key, req.query.etag),
  );
}
