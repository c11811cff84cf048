import { type Static, Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { READ_SCOPES } from '../../../platform/auth/scopes.ts';
import { invalidArgument } from '../../../platform/http/errors.ts';
import type { AccessControl } from '../../../platform/iam/accessControl.ts';
import { SERVICE, type ServedApi } from '../index.ts';

const Params = Type.Object({ project: Type.String({ maxLength: 100 }) });
const Query = Type.Object(
  { filter: Type.Optional(Type.String({ maxLength: 200 })), pageSize: Type.Optional(Type.Integer({ minimum: 0, maximum: 200 })), pageToken: Type.Optional(Type.String({ maxLength: 100 })) },
  { additionalProperties: false },
);

/** GET /v1/projects/{project}/services?filter=state:ENABLED -> {services: [{name, config: {name, title}, state, parent}]} */
export function listServices(app: FastifyInstance, d: { access: AccessControl; apis: readonly ServedApi[] }): void {
  app.get<{ Params: Static<typeof Params>; Querystring: Static<typeof Query> }>(
    '/v1/projects/:project/services',
    {
      schema: { params: Params, querystring: Query },
      config: { api: { service: SERVICE, method: 'google.api.serviceusage.v1.ServiceUsage.ListServices', id: 'serviceusage.services.list', scopes: READ_SCOPES }, envelope: 'modern', bodyName: '' },
    },
    async (req) => {
      const p = await d.access.require(req.principal, 'serviceusage.services.list', { project: req.params.project, service: SERVICE });
      const filter = (req.query.filter ?? '').trim();
      if (filter !== '' && !/^state:(ENABLED|DISABLED)$/.test(filter)) throw invalidArgument(`Invalid filter '${filter.slice(0, 100)}': only state:ENABLED and state:DISABLED are supported.`);
      if (filter === 'state:DISABLED') return {};
      const parent = `projects/${p.projectNumber}`;
      return { services: d.apis.map((a) => ({ name: `${parent}/services/${a.name}`, config: { name: a.name, title: a.title }, state: 'ENABLED', parent })) };
    },
  );
}
