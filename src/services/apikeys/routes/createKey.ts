import type { FastifyInstance } from 'fastify';
import type { Static } from '@sinclair/typebox';
import type { ApiKeysService } from '../service.ts';
import { CreateKeyQuery, type KeyBody, KeySchema, ParentParams } from '../schemas.ts';
import { KEYS_PATH, acceptProtoNames, apiKeysMethod } from './common.ts';

/** POST /v2/projects/{project}/locations/{location}/keys?keyId= -> Operation */
export function createKey(app: FastifyInstance, svc: ApiKeysService): void {
  app.post<{ Params: ParentParams; Querystring: Static<typeof CreateKeyQuery>; Body: KeyBody | undefined }>(
    KEYS_PATH,
    { schema: { params: ParentParams, querystring: CreateKeyQuery, body: KeySchema }, config: apiKeysMethod('CreateKey', 'write'), preValidation: acceptProtoNames },
    async (req) => svc.createKey(req.principal, req.params.project, req.params.location, req.query.keyId, req.body ?? {}),
  );
}
