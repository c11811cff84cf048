import type { FastifyInstance } from 'fastify';
import { type Static, Type } from '@sinclair/typebox';
import { FaultRuleInputSchema } from '../../platform/faults/rules.ts';
import type { AdminContext } from '../context.ts';

const Params = Type.Object({ id: Type.String({ maxLength: 100 }) });

/**
 * Fault injection rules: `POST /_twin/v1/faults` (create), `GET /_twin/v1/faults` (list, with
 * counters), `GET|DELETE /_twin/v1/faults/{id}`, `DELETE /_twin/v1/faults` (clear all). The
 * admin API and the console are never faulted: rules act only on public API methods.
 */
export function faults(app: FastifyInstance, ctx: AdminContext): void {
  app.post<{ Body: Static<typeof FaultRuleInputSchema> }>('/_twin/v1/faults', { schema: { body: FaultRuleInputSchema }, config: { bodyName: '' } }, async (req, reply) => {
    reply.code(201);
    return ctx.faults.create(req.body);
  });
  app.get('/_twin/v1/faults', async () => ({ faults: await ctx.faults.list() }));
  app.delete('/_twin/v1/faults', async () => ({ deleted: await ctx.faults.clear() }));
  app.get<{ Params: Static<typeof Params> }>('/_twin/v1/faults/:id', { schema: { params: Params } }, async (req) => ctx.faults.get(req.params.id));
  app.delete<{ Params: Static<typeof Params> }>('/_twin/v1/faults/:id', { schema: { params: Params } }, async (req) => {
    await ctx.faults.delete(req.params.id);
    return {};
  });
}
