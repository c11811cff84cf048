import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ApiMethod } from '../../../platform/auth/authenticator.ts';
import { READ_SCOPES, WRITE_SCOPES } from '../../../platform/auth/scopes.ts';
import { toJsonNames } from '../../../platform/http/jsonNames.ts';
import { googlePath } from '../../../platform/http/routes.ts';
import { MAP_FIELDS } from '../schemas.ts';
import { RPC, SERVICE } from '../names.ts';

/** Each RPC's method id in the discovery document (apikeys.v2). */
export const DISCOVERY_ID: Record<string, string> = {
  CreateKey: 'apikeys.projects.locations.keys.create',
  ListKeys: 'apikeys.projects.locations.keys.list',
  GetKey: 'apikeys.projects.locations.keys.get',
  GetKeyString: 'apikeys.projects.locations.keys.getKeyString',
  UpdateKey: 'apikeys.projects.locations.keys.patch',
  DeleteKey: 'apikeys.projects.locations.keys.delete',
  UndeleteKey: 'apikeys.projects.locations.keys.undelete',
  LookupKey: 'apikeys.keys.lookupKey',
  'google.longrunning.Operations.GetOperation': 'apikeys.operations.get',
};

/** The route config of one API Keys method: its name in error metadata, its discovery id and its OAuth scopes. */
export function apiKeysMethod(rpc: string, access: 'read' | 'write') {
  const id = DISCOVERY_ID[rpc];
  if (!id) throw new Error(`no discovery id for API Keys method ${rpc}`);
  const api: ApiMethod = { service: SERVICE, method: rpc.includes('.') ? rpc : `${RPC}.${rpc}`, id, scopes: access === 'read' ? READ_SCOPES : WRITE_SCOPES };
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
