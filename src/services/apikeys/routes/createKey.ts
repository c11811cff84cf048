import type { FastifyInstance } from 'fastify';
import { type Static, Type } from '@sinclair/typebox';
import type { ApiKeysService } from '../service.ts';
import { type KeyBody, KeySchema, ParentParams } from '../schemas.ts';
import { KEYS_PATH, acceptProtoNames, apiKeysMethod } from './common.ts';

const Query = Type.Object({ keyId: Type.Optional(Type.String({ maxLength: 1000 })) }, { additionalProperties: false });

/** POST /v2/projects/{project}/locations/{location}/keys?keyId= -> Operation */
export function createKey(app: FastifyInstance, svc: ApiKeysService): void {
  app.post<{ Params: ParentParams; Querystring: Static<typeof Query>; Body: KeyBody | undefined }>(
    KEYS_PATH,
    { schema: { params: ParentParams, querystring: Query, body: KeySchema }, config: apiKeysMethod('CreateKey', 'write'), preValidation: acceptProtoNames },
    async (req) => svc.createKey(req.principal, req.params.project, req.params.location, req.query.keyId, req.body ?? {}),
  );
}
