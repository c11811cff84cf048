import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ApiMethod } from '../../../platform/auth/authenticator.ts';
import { READ_SCOPES, WRITE_SCOPES } from '../../../platform/auth/scopes.ts';
import { toJsonNames } from '../../../platform/http/jsonNames.ts';
import { googlePath } from '../../../platform/http/routes.ts';
import { MAP_FIELDS } from '../schemas.ts';
import { RPC, SERVICE } from '../names.ts';

/** The route config of one API Keys method: its name in error metadata and its OAuth scopes. */
export function apiKeysMethod(rpc: string, access: 'read' | 'write') {
  const api: ApiMethod = { service: SERVICE, method: rpc.includes('.') ? rpc : `${RPC}.${rpc}`, scopes: access === 'read' ? READ_SCOPES : WRITE_SCOPES };
  return { api, envelope: 'modern' as const, bodyName: 'key' };
}

/** Accepts snake_case field and parameter names, as Google's transcoder does. */
export function acceptProtoNames(request: FastifyRequest, _reply: FastifyReply, done: () => void): void {
  if (request.body !== undefined) request.body = toJsonNames(request.body, MAP_FIELDS);
  request.query = toJsonNames(request.query, MAP_FIELDS);
  done();
}

export const KEYS_TEMPLATE = '/v2/projects/{project}/locations/{location}/keys';
export const KEY_TEMPLATE = `${KEYS_TEMPLATE}/{key}`;
export const KEYS_PATH = googlePath(KEYS_TEMPLATE);
export const KEY_PATH = googlePath(KEY_TEMPLATE);
