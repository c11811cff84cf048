import type { FastifyInstance } from 'fastify';
import type { AdminContext } from '../context.ts';

/** GET /_twin/v1/health (no auth): {status, version, store, transports} */
export function health(app: FastifyInstance, ctx: AdminContext): void {
  app.get('/_twin/v1/health', { config: { public: true } }, async (_req, reply) => {
    try {
      await ctx.store.db.selectFrom('twin_settings').select('name').limit(1).execute();
      return { status: 'ok', version: ctx.version, store: ctx.store.description, transports: ctx.serving.transports };
    } catch {
      return reply.code(503).send({ status: 'unavailable', version: ctx.version, store: ctx.store.description, transports: ctx.serving.transports });
    }
  });
}
