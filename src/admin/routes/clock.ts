import type { FastifyInstance } from 'fastify';
import { type Static, Type } from '@sinclair/typebox';
import { rfc3339 } from '../../platform/clock/clock.ts';
import { invalidArgument } from '../../platform/http/errors.ts';
import { echoText } from '../../platform/http/secrets.ts';
import type { AdminContext } from '../context.ts';

const Advance = Type.Object({ seconds: Type.Number({ minimum: 0, maximum: 10 * 365 * 86400 }) }, { additionalProperties: false });
const SetTime = Type.Object({ time: Type.String({ maxLength: 64, description: 'an RFC 3339 timestamp' }) }, { additionalProperties: false });

/** GET /_twin/v1/clock, POST /_twin/v1/clock:advance {seconds} and POST /_twin/v1/clock:set {time} (forward only). */
export function clock(app: FastifyInstance, ctx: AdminContext): void {
  const show = () => ({ now: rfc3339(ctx.clock.nowMs()), offsetSeconds: ctx.clock.offsetMs / 1000 });
  app.get('/_twin/v1/clock', async () => {
    await ctx.sharedClock.reload();
    return show();
  });
  app.post<{ Body: Static<typeof Advance> }>('/_twin/v1/clock::advance', { schema: { body: Advance }, config: { bodyName: '' } }, async (req) => {
    await ctx.sharedClock.advance(req.body.seconds);
    return afterMove();
  });
  app.post<{ Body: Static<typeof SetTime> }>('/_twin/v1/clock::set', { schema: { body: SetTime }, config: { bodyName: '' } }, async (req) => {
    const at = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/i.test(req.body.time) ? Date.parse(req.body.time) : NaN;
    if (!Number.isFinite(at)) throw invalidArgument(`time: '${echoText(req.body.time)}' is not an RFC 3339 timestamp (e.g. 2030-01-01T00:00:00Z).`);
    if (!(await ctx.sharedClock.set(at))) throw invalidArgument(`time: ${rfc3339(at)} is before the twin's current time ${rfc3339(ctx.clock.nowMs())}; the clock only moves forward.`);
    return afterMove();
  });
  /** Time-driven effects happen at once rather than at the worker's next pass. */
  const afterMove = async () => {
    await ctx.operations.completeDue();
    await ctx.operations.purgeFinished();
    return show();
  };
}
