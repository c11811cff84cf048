import type { FastifyInstance } from 'fastify';
import { type Static, Type } from '@sinclair/typebox';
import { MAX_OPERATION_DELAY_MS } from '../../platform/operations/engine.ts';
import type { AdminContext } from '../context.ts';

const Config = Type.Object(
  { mode: Type.Union([Type.Literal('instant'), Type.Literal('delayed')]), delayMs: Type.Optional(Type.Integer({ minimum: 0, maximum: MAX_OPERATION_DELAY_MS })) },
  { additionalProperties: false },
);

/** PUT /_twin/v1/operations/config {mode: "instant" | "delayed", delayMs}; GET shows it. */
export function operationsConfig(app: FastifyInstance, ctx: AdminContext): void {
  app.get('/_twin/v1/operations/config', async () => {
    await ctx.operations.reloadConfig();
    return ctx.operations.config;
  });
  app.put<{ Body: Static<typeof Config> }>('/_twin/v1/operations/config', { schema: { body: Config }, config: { bodyName: '' } }, async (req) => {
    await ctx.operations.setConfig({ mode: req.body.mode, delayMs: req.body.mode === 'delayed' ? (req.body.delayMs ?? 5000) : 0 });
    return ctx.operations.config;
  });
}
