import type { FastifyInstance } from 'fastify';
import { type Static, Type } from '@sinclair/typebox';
import { rfc3339 } from '../../platform/clock/clock.ts';
import { notFound } from '../../platform/http/errors.ts';
import { MAX_DAILY_LIMIT, type QuotaUsage } from '../../platform/quota/quota.ts';
import type { AdminContext } from '../context.ts';

const Params = Type.Object({
  project: Type.String({ pattern: '^([a-z][a-z0-9-]{4,28}[a-z0-9]|[1-9][0-9]{0,18})$' }),
  service: Type.String({ pattern: '^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)+$', maxLength: 253 }),
});
const Limit = Type.Object({ dailyLimit: Type.Integer({ minimum: 0, maximum: MAX_DAILY_LIMIT }) }, { additionalProperties: false });
const PATH = '/_twin/v1/quota/projects/:project/services/:service';

/**
 * Daily quotas: `GET /_twin/v1/quota` (every configured or used counter of today),
 * `GET /_twin/v1/quota/projects/{project}/services/{service}` (usage) and `PUT` of the same with
 * `{dailyLimit}`. A project is named by id or number; days end at midnight America/Los_Angeles.
 */
export function quota(app: FastifyInstance, ctx: AdminContext): void {
  const show = async (u: QuotaUsage) => {
    const number = u.consumer.startsWith('projects/') ? u.consumer.slice('projects/'.length) : undefined;
    const project = number ? (await ctx.iam.directory()).project(number) : undefined;
    return {
      consumer: u.consumer,
      ...(number && { project: project?.projectId ?? number, projectNumber: number }),
      service: u.service,
      dailyLimit: u.dailyLimit,
      used: u.used,
      remaining: Math.max(0, u.dailyLimit - u.used),
      day: u.day,
      resetTime: rfc3339(u.resetAt),
    };
  };
  const consumerOf = async (project: string) => {
    const p = (await ctx.iam.directory()).project(project);
    if (!p) throw notFound(`Project '${project}' does not exist.`);
    return `projects/${p.projectNumber}`;
  };
  app.get('/_twin/v1/quota', async () => {
    await ctx.sharedClock.reload();
    return { quotas: await Promise.all((await ctx.quota.all()).map(show)) };
  });
  app.get<{ Params: Static<typeof Params> }>(PATH, { schema: { params: Params } }, async (req) => {
    await ctx.sharedClock.reload();
    return show(await ctx.quota.usage(await consumerOf(req.params.project), req.params.service));
  });
  app.put<{ Params: Static<typeof Params>; Body: Static<typeof Limit> }>(PATH, { schema: { params: Params, body: Limit }, config: { bodyName: '' } }, async (req) => {
    const consumer = await consumerOf(req.params.project);
    await ctx.quota.setDailyLimit(consumer, req.params.service, req.body.dailyLimit);
    return show(await ctx.quota.usage(consumer, req.params.service));
  });
}
