import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import { urlNotFound } from '../../../platform/http/errors.ts';
import type { ApiKeysService } from '../service.ts';
import { KeyParams, NoQuery } from '../schemas.ts';
import { KEY_PATH, apiKeysMethod } from './common.ts';

/** POST /v2/projects/{project}/locations/{location}/keys/{key}:undelete (body `{}`) -> Operation */
export function undeleteKey(app: FastifyInstance, svc: ApiKeysService): void {
  app.post<{ Params: KeyParams }>(
    KEY_PATH,
    { schema: { params: KeyParams, querystring: NoQuery, body: Type.Object({}, { additionalProperties: false }) }, config: { ...apiKeysMethod('UndeleteKey', 'write'), bodyName: '' } },
    async (req) => {
      const m = /^(.+):undelete$/.exec(req.params.key);
      if (!m) throw urlNotFound(req.url);
      return svc.undeleteKey(req.principal, req.params.project, req.params.location, m[1]);
    },
  );
}
