import type { FastifyInstance } from 'fastify';
import { ADMIN_BODY_LIMIT, type AdminContext } from '../context.ts';

/** POST /_twin/v1/world:apply, body = world document (JSON or YAML): upsert, idempotent. */
export function applyWorld(app: FastifyInstance, ctx: AdminContext): void {
  app.post('/_twin/v1/world::apply', { bodyLimit: ADMIN_BODY_LIMIT, config: { bodyName: 'world' } }, async (req) => ctx.world.apply(req.body ?? {}));
}
