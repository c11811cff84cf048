import type { FastifyInstance } from 'fastify';
import { type Static, Type } from '@sinclair/typebox';
import { invalidArgument } from '../../platform/http/errors.ts';
import { MAX_JOURNAL_LIMIT, readableEntry } from '../../platform/journal/journal.ts';
import type { AdminContext } from '../context.ts';

const Query = Type.Object(
  {
    method: Type.Optional(Type.String({ maxLength: 200 })),
    principal: Type.Optional(Type.String({ maxLength: 320 })),
    project: Type.Optional(Type.String({ maxLength: 100 })),
    status: Type.Optional(Type.String({ pattern: '^([1-5][0-9][0-9]|[0-5]xx|ok|error|[A-Z_]{3,40})$' })),
    since: Type.Optional(Type.String({ maxLength: 64 })),
    after: Type.Optional(Type.Integer({ minimum: 0 })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_JOURNAL_LIMIT })),
  },
  { additionalProperties: false },
);

/**
 * The request journal of this process: `GET /_twin/v1/requests?method=&principal=&project=&status=&since=&after=&limit=`
 * (newest first) and `DELETE /_twin/v1/requests` (clear).
 */
export function requests(app: FastifyInstance, ctx: AdminContext): void {
  app.get<{ Querystring: Static<typeof Query> }>('/_twin/v1/requests', { schema: { querystring: Query } }, async (req) => {
    const q = req.query;
    let sinceMs: number | undefined;
    if (q.since !== undefined) {
      sinceMs = Date.parse(q.since);
      if (!Number.isFinite(sinceMs)) throw invalidArgument(`since must be an RFC 3339 time, not '${q.since}'.`);
    }
    // A project named by id or number matches calls that named it either way.
    let projects: string[] | undefined;
    if (q.project !== undefined) {
      const p = (await ctx.iam.directory()).project(q.project);
      projects = p ? [p.projectId, p.projectNumber] : [q.project];
    }
    const entries = projects
      ? projects.flatMap((project) => ctx.journal.query({ ...q, project, sinceMs, limit: q.limit })).sort((a, b) => b.seq - a.seq).slice(0, q.limit ?? 100)
      : ctx.journal.query({ ...q, sinceMs });
    return { requests: entries.map(readableEntry), size: ctx.journal.size, capacity: ctx.journal.capacity, bodies: ctx.journal.bodies, lastSeq: ctx.journal.lastSeq };
  });
  app.delete('/_twin/v1/requests', async () => {
    ctx.journal.clear();
    return {};
  });
}
