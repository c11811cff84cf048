import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import { googlePath } from '../../../platform/http/routes.ts';
import type { ApiKeysService } from '../service.ts';
import { KeyParams, NoQuery } from '../schemas.ts';
import { KEY_TEMPLATE, apiKeysMethod } from './common.ts';

/** POST /v2/projects/{project}/locations/{location}/keys/{key}:undelete (body `{}`) -> Operation */
export function undeleteKey(app: FastifyInstance, svc: ApiKeysService): void {
  app.post<{ Params: KeyParams }>(
    googlePath(`${KEY_TEMPLATE}:undelete`),
    { schema: { params: KeyParams, querystring: NoQuery, body: Type.Object({}, { additionalProperties: false }) }, config: { ...apiKeysMethod('UndeleteKey', 'write'), bodyName: '' } },
    async (req) => svc.undeleteKey(req.principal, req.params.project, req.params.location, req.params.key),
  );
}
