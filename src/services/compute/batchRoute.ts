import type { FastifyInstance } from 'fastify';
import { randomBytes } from 'node:crypto';
import { errorEnvelopeText, sendError } from '../../platform/http/envelope.ts';
import { type BatchAnswer, MAX_BATCH_PARTS, boundaryOf, formatBatch, parseBatch } from './batch.ts';
import { computeError } from './errors.ts';
import { BASE_PATH } from './names.ts';

/** Headers of the outer request that are the batch's own, not its parts'. */
const OUTER_ONLY = new Set(['content-type', 'content-length', 'content-transfer-encoding', 'transfer-encoding', 'accept-encoding', 'connection', 'host', 'expect']);

const partError = (message: string): BatchAnswer => ({
  status: 400,
  headers: { 'Content-Type': 'application/json; charset=UTF-8' },
  body: errorEnvelopeText(computeError('INVALID_ARGUMENT', 'badRequest', message), 'compute', true),
});

/**
 * POST /batch/compute/v1 (multipart/mixed of application/http requests) -> multipart/mixed of
 * their answers, in order. Each part is answered as its own request to this server; the outer
 * request's headers (its Authorization among them) apply to every part, and a header the part
 * carries itself wins, as Google documents for batch requests. Parts must be Compute v1 requests.
 */
export function batchCompute(app: FastifyInstance): void {
  app.register(async (scope) => {
    scope.addContentTypeParser('multipart/mixed', { parseAs: 'buffer' }, (_req, body, done) => done(null, body));
    scope.post('/batch/compute/v1', { config: { envelope: 'compute' as const } }, async (req, reply) => {
      const boundary = boundaryOf(req.headers['content-type']);
      if (!boundary || !Buffer.isBuffer(req.body)) {
        sendError(reply, computeError('INVALID_ARGUMENT', 'badRequest', 'A batch request must be multipart/mixed with a boundary.'), 'compute');
        return reply;
      }
      const parts = parseBatch(req.body.toString('utf8'), boundary);
      if (parts.length === 0 || parts.length > MAX_BATCH_PARTS) {
        sendError(reply, computeError('INVALID_ARGUMENT', 'badRequest', `A batch request must have between 1 and ${MAX_BATCH_PARTS} parts (this one has ${parts.length}).`), 'compute');
        return reply;
      }
      const outer: Record<string, string> = {};
      for (const [k, v] of Object.entries(req.headers)) if (!OUTER_ONLY.has(k) && typeof v === 'string') outer[k] = v;
      const answers: BatchAnswer[] = [];
      for (const part of parts) {
        if (!part.request) {
          answers.push({ ...partError(part.problem!), contentId: part.contentId });
          continue;
        }
        const { method, url, headers, body } = part.request;
        if (!url.startsWith(`${BASE_PATH}/`)) {
          answers.push({ ...partError(`A part of a Compute batch request must call ${BASE_PATH}/... (this one calls '${url.slice(0, 200)}').`), contentId: part.contentId });
          continue;
        }
        const res = await app.inject({ method: method as 'GET', url, headers: { ...outer, ...headers }, ...(body ? { payload: body } : {}) });
        const type = res.headers['content-type'];
        answers.push({ contentId: part.contentId, status: res.statusCode, headers: typeof type === 'string' ? { 'Content-Type': type } : {}, body: res.body });
      }
      const answerBoundary = `batch_${randomBytes(12).toString('base64url')}`;
      return reply.type(`multipart/mixed; boundary=${answerBoundary}`).serializer((p: unknown) => p as string).send(formatBatch(answers, answerBoundary));
    });
  });
}
