import { Readable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { type Static, Type } from '@sinclair/typebox';
import { invalidArgument } from '../../platform/http/errors.ts';
import { exportEntries, missingRefs } from '../../services/media/catalog/repository.ts';
import type { AdminContext } from '../context.ts';

/** At most this many entries per write and ids per reference check (the CLI sends 2000 / 500). */
export const MAX_CATALOG_BATCH = 5000;
const MAX_IDS = 10_000;
/** A batch of 5000 entries of up to 1 MB each would be 5 GB: bound the body, not only the count. */
const CATALOG_BODY_LIMIT = 64 * 1024 * 1024;
const PREFIX = '/_twin/v1/media/catalog';
/** The catalogue's writer (entry checks, batches, resume marks): loaded with the first call that writes or resumes. */
const writer = () => import('../../services/media/catalog/writer.ts');

const Id = Type.String({ minLength: 1, maxLength: 64 });
const ImportId = Type.String({ pattern: '^[0-9a-f]{64}$' });
const RefsRequest = Type.Object(
  { channels: Type.Optional(Type.Array(Id, { maxItems: MAX_IDS })), contentOwners: Type.Optional(Type.Array(Id, { maxItems: MAX_IDS })) },
  { additionalProperties: false },
);
const WriteRequest = Type.Object(
  {
    entries: Type.Array(Type.Unknown(), { maxItems: MAX_CATALOG_BATCH }),
    import: Type.Optional(Type.Object({ id: ImportId, afterLine: Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER }) }, { additionalProperties: false })),
  },
  { additionalProperties: false },
);
const ImportParams = Type.Object({ id: ImportId });

/**
 * The media catalogue through the admin API, what `cloudtwin catalog import|generate|export
 * --url` use against a running server (bounded, admin token only):
 * - `POST /_twin/v1/media/catalog:missingReferences` `{channels, contentOwners}` (up to 10,000
 *   ids each) -> the ones not stored;
 * - `POST /_twin/v1/media/catalog:write` `{entries, import?: {id, afterLine}}` (up to 5,000
 *   entries, 64 MiB): checked whole like a world document's `media` section (format, references
 *   within the batch or stored), then written in one transaction together with the import's
 *   resume mark; a bad batch is 400 naming each bad entry and writes nothing;
 * - `GET` / `DELETE /_twin/v1/media/catalog/imports/{id}`: the resume mark (`{id, afterLine}`,
 *   0 when none) / forget it when the import is done;
 * - `GET /_twin/v1/media/catalog:export`: every entry as NDJSON, streamed.
 */
export function mediaCatalog(app: FastifyInstance, ctx: AdminContext): void {
  const db = ctx.store.db;
  app.post<{ Body: Static<typeof RefsRequest> }>(`${PREFIX}::missingReferences`, { schema: { body: RefsRequest }, config: { bodyName: '' } }, async (req) => {
    const refs = [...(req.body.channels ?? []).map((channelId) => ({ channelId })), ...(req.body.contentOwners ?? []).map((contentOwnerId) => ({ contentOwnerId }))];
    const missing = await missingRefs(db, refs, { channels: new Set(), contentOwners: new Set() });
    return { channels: [...missing.channels], contentOwners: [...missing.contentOwners] };
  });

  app.post<{ Body: Static<typeof WriteRequest> }>(`${PREFIX}::write`, { bodyLimit: CATALOG_BODY_LIMIT, schema: { body: WriteRequest }, config: { bodyName: '' } }, async (req) => {
    const { entries, import: mark } = req.body;
    const { checkEntries, writeImportBatch } = await writer();
    const checked = await checkEntries(db, entries, (i) => `entries[${i}]`);
    if (checked.problems.length) throw invalidArgument(`the batch was not written: ${checked.problems.join('; ')}`, checked.problems.map(violation));
    await writeImportBatch(db, checked.entries, mark);
    return { written: checked.entries.length };
  });

  app.get<{ Params: Static<typeof ImportParams> }>(`${PREFIX}/imports/:id`, { schema: { params: ImportParams } }, async (req) => ({ id: req.params.id, afterLine: await (await writer()).importResumePoint(db, req.params.id) }));
  app.delete<{ Params: Static<typeof ImportParams> }>(`${PREFIX}/imports/:id`, { schema: { params: ImportParams } }, async (req) => {
    await (await writer()).finishImport(db, req.params.id);
    return {};
  });

  app.get(`${PREFIX}::export`, async (_req, reply) => {
    async function* ndjson() {
      for await (const line of exportEntries(db)) yield `${line}\n`;
    }
    return reply.type('application/x-ndjson').send(Readable.from(ndjson()));
  });
}

/** `entries[3]: snippet.title: ...` as a field violation. */
function violation(problem: string): { field: string; description: string } {
  const at = problem.indexOf(': ');
  return at < 0 ? { field: 'entries', description: problem } : { field: problem.slice(0, at), description: problem.slice(at + 2) };
}
