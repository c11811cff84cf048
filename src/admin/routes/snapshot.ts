import type { FastifyInstance } from 'fastify';
import { ADMIN_BODY_LIMIT, type AdminContext } from '../context.ts';

/** GET/PUT /_twin/v1/snapshot (all state out / in) and POST /_twin/v1/reset (also empties the request journal). */
export function snapshot(app: FastifyInstance, ctx: AdminContext): void {
  app.get('/_twin/v1/snapshot', async () => ctx.snapshots.take());
  app.put('/_twin/v1/snapshot', { bodyLimit: ADMIN_BODY_LIMIT }, async (req) => {
    await ctx.snapshots.restore(req.body);
    return {};
  });
  app.post('/_twin/v1/reset', async () => {
    await ctx.snapshots.reset();
    // A clean slate between tests: no fault rules (cleared with the store) and an empty journal.
    ctx.journal.clear();
    return {};
  });
}
