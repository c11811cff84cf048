import type { FastifyInstance } from 'fastify';
import { type Static, Type } from '@sinclair/typebox';
import type { ApiKeysService } from '../service.ts';
import { KeyParams } from '../schemas.ts';
import { KEY_PATH, acceptProtoNames, apiKeysMethod } from './common.ts';

const Query = Type.Object({ etag: Type.Optional(Type.String({ maxLength: 200 })) }, { additionalProperties: false });

/** DELETE /v2/projects/{project}/locations/{location}/keys/{key}?etag= -> Operation */
export function deleteKey(app: FastifyInstance, svc: ApiKeysService): void {
  app.delete<{ Params: KeyParams; Querystring: Static<typeof Query> }>(
    KEY_PATH,
    { schema: { params: KeyParams, querystring: Query }, config: apiKeysMethod('DeleteKey', 'write'), preValidation: acceptProtoNames },
    async (req) => svc.deleteKey(req.principal, req.params.project, req.params.location, req.params.key, req.query.etag),
  );
}
