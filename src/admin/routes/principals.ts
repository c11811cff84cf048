import type { FastifyInstance } from 'fastify';
import type { AdminContext } from '../context.ts';

/** GET /_twin/v1/principals: the world's projects and the principals it names (the console's sign-in picker). */
export function principals(app: FastifyInstance, ctx: AdminContext): void {
  app.get('/_twin/v1/principals', async () => {
    const dir = await ctx.iam.directory();
    return {
      projects: dir.projects().map((p) => ({ projectId: p.projectId, projectNumber: p.projectNumber })).sort((a, b) => a.projectId.localeCompare(b.projectId)),
      principals: dir.principals(),
    };
  });
}
