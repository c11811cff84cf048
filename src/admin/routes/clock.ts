import type { FastifyInstance } from 'fastify';
import { type Static, Type } from '@sinclair/typebox';
import { rfc3339 } from '../../platform/clock/clock.ts';
import type { AdminContext } from '../context.ts';

const Advance = Type.Object({ seconds: Type.Number({ minimum: 0, maximum: 10 * 365 * 86400 }) }, { additionalProperties: false });

/** GET /_twin/v1/clock and POST /_twin/v1/clock:advance {seconds}. */
export function clock(app: FastifyInstance, ctx: AdminContext): void {
  const show = () => ({ now: rfc3339(ctx.clock.nowMs()), offsetSeconds: ctx.clock.offsetMs / 1000 });
  app.get('/_twin/v1/clock', async () => {
    await ctx.sharedClock.reload();
    return show();
  });
  app.post<{ Body: Static<typeof Advance> }>('/_twin/v1/clock::advance', { schema: { body: Advance }, config: { bodyName: '' } }, async (req) => {
    await ctx.sharedClock.advance(req.body.seconds);
    // Time-driven effects happen at once rather than at the worker's next pass.
    await ctx.operations.completeDue();
    await ctx.operations.purgeFinished();
    return show();
  });
}
