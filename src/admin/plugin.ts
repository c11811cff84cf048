import type { FastifyInstance } from 'fastify';
import { authorizationOf } from '../platform/auth/credentials.ts';
import { constantTimeEqual } from '../platform/crypto/secretBox.ts';
import { ApiError } from '../platform/http/errors.ts';
import type { AdminContext } from './context.ts';
import { clock } from './routes/clock.ts';
import { credentials } from './routes/credentials.ts';
import { health } from './routes/health.ts';
import { mediaCatalog } from './routes/mediaCatalog.ts';
import { operationsConfig } from './routes/operationsConfig.ts';
import { quota } from './routes/quota.ts';
import { faults } from './routes/faults.ts';
import { requests } from './routes/requests.ts';
import { principals } from './routes/principals.ts';
import { serviceAccountKeys } from './routes/serviceAccountKeys.ts';
import { snapshot } from './routes/snapshot.ts';
import { applyWorld } from './routes/world.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Admin routes that need no admin token (health). */
    public?: boolean;
  }
}

/** The twin's own control plane under /_twin/v1; every route but health needs the admin token. */
export function registerAdmin(app: FastifyInstance, ctx: AdminContext): void {
  app.register(async (admin) => {
    admin.addHook('onRequest', async (req) => {
      if (req.routeOptions.config?.public) return;
      const { bearer } = authorizationOf(req.headers.authorization);
      if (bearer === undefined || !constantTimeEqual(bearer, ctx.adminToken)) {
        throw new ApiError({ status: 'UNAUTHENTICATED', message: 'The admin API needs Authorization: Bearer <admin token>.' });
      }
    });
    for (const route of [health, applyWorld, snapshot, credentials, serviceAccountKeys, clock, operationsConfig, principals, quota, faults, requests, mediaCatalog]) route(admin, ctx);
  });
}
