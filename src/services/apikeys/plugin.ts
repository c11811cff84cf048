import type { FastifyInstance } from 'fastify';
import { createKey } from './routes/createKey.ts';
import { deleteKey } from './routes/deleteKey.ts';
import { getKey } from './routes/getKey.ts';
import { getKeyString } from './routes/getKeyString.ts';
import { getOperation } from './routes/getOperation.ts';
import { listKeys } from './routes/listKeys.ts';
import { lookupKey } from './routes/lookupKey.ts';
import { undeleteKey } from './routes/undeleteKey.ts';
import { updateKey } from './routes/updateKey.ts';
import type { ApiKeysService } from './service.ts';

/** Mounts the API Keys v2 REST surface. */
export function registerApiKeysRoutes(app: FastifyInstance, svc: ApiKeysService): void {
  for (const route of [createKey, listKeys, getKey, getKeyString, updateKey, deleteKey, undeleteKey, lookupKey, getOperation]) route(app, svc);
}
