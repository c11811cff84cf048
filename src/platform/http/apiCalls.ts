import http2 from 'node:http2';
import type { FastifyInstance, FastifyReply, FastifyRequest, preHandlerHookHandler } from 'fastify';
import { credentialsOf } from '../auth/plugin.ts';
import type { ApiMethod } from '../auth/authenticator.ts';
import { actOnFault } from '../faults/rules.ts';
import type { FaultDecision, Faults } from '../faults/faults.ts';
import { type Journal, type JournalEntry, redactedBody } from '../journal/journal.ts';
import type { ApiError } from './errors.ts';
import { onRequestCompleted } from './completion.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** What the route learnt of the call for the journal: the API key's id (never its string), the project, the operation. */
    callKeyId: string | null;
    callProject: string | null;
    /** The fault rule that acted on the call. */
    fault: FaultDecision | null;
  }
}

/** Resolves an API key string to its id and project (the API Keys service provides it). */
export type KeyResolver = (keyString: string) => Promise<{ keyId: string; projectNumber: string } | undefined>;

export interface ApiCallsOptions {
  journal: Journal;
  faults?: Faults;
  resolveKey?: KeyResolver;
}

/** Operation names as the services give them: API Keys' `operations/...`, Compute's `operation-...`. */
const OPERATION_NAME = /"name"\s*:\s*"((?:operations\/|operation-)[^"\\]{1,200})"/;

/**
 * Every public API method (a route with `config.api`) is journaled and may be faulted, by its
 * discovery method id. Fault rules act in a route `preHandler` (after authentication and
 * validation, so a rule sees the principal and the route's parameters, and an operation the
 * handler starts runs inside the fault's context); the journal records the call at the one
 * completion point (`onRequestCompleted`). Another transport (gRPC) journals and faults a call
 * through `recordCall` and `Faults.decide` with the same method ids.
 */
export function installApiCalls(app: FastifyInstance, opts: ApiCallsOptions): void {
  const { journal, faults } = opts;
  app.decorateRequest('callKeyId', null);
  app.decorateRequest('callProject', null);
  app.decorateRequest('fault', null);
  if (faults) {
    app.addHook('onRoute', (route) => {
      const api = route.config?.api;
      if (!api) return;
      const hook = faultHook(api, faults, opts.resolveKey, journal);
      const own = route.preHandler;
      route.preHandler = [...(own === undefined ? [] : Array.isArray(own) ? own : [own]), hook];
    });
  }
  if (!journal.enabled) return;
  onRequestCompleted(app, (request, reply, route, payload) => {
    const api = route.config?.api;
    if (api === undefined) return;
    recordCall(journal, request, api, reply.statusCode, reply.apiError, payload);
  });
}

/** Records one call in the journal (from the completion point, or for a reset connection). */
export function recordCall(journal: Journal, request: FastifyRequest, api: ApiMethod, status: number, error: ApiError | null, payload: unknown): void {
  const latencyMs = request.receivedAt ? performance.now() - request.receivedAt : 0;
  const params = request.params as { project?: string } | undefined;
  const entry: Omit<JournalEntry, 'seq'> = {
    timeMs: Math.round(Date.now() - latencyMs),
    method: api.id,
    service: api.service,
    httpMethod: request.method,
    // As received: credentials in it are masked when the journal is read (masking every call's URL here cost lookupKey ~3 % of its CPU).
    url: request.url,
    principal: request.principal?.member,
    apiKeyId: request.callKeyId ?? undefined,
    project: request.callProject ?? params?.project,
    status,
    error: error ? { status: error.status, reason: error.reason ?? error.errors?.[0]?.reason, message: error.message } : undefined,
    latencyMs: Math.round(latencyMs * 1000) / 1000,
    requestId: String(request.id),
    fault: request.fault ? { rule: request.fault.rule, action: request.fault.action.type } : undefined,
    operation: undefined,
  };
  // Writes and operation reads answer an operation: its name is in the first `name` field.
  if (typeof payload === 'string' && status < 400 && (request.method !== 'GET' || api.id.includes('perations.'))) entry.operation = OPERATION_NAME.exec(payload)?.[1];
  if (journal.bodies) {
    entry.requestBody = request.body === undefined ? undefined : redactedBody(request.body);
    entry.responseBody = typeof payload === 'string' ? redactedBody(payload) : undefined;
  }
  journal.record(entry);
}

function faultHook(api: ApiMethod, faults: Faults, resolveKey: KeyResolver | undefined, journal: Journal): preHandlerHookHandler {
  return (request, reply, done) => {
    if (!faults.any) return done();
    const key = resolveKey && credentialsOf(request).apiKey;
    let resolved: ReturnType<KeyResolver> | undefined;
    faults
      .decide({
        method: api.id,
        principal: request.principal?.member,
        project: (request.params as { project?: string } | undefined)?.project,
        headers: request.headers,
        apiKey: key ? () => (resolved ??= resolveKey!(key)) : undefined,
      })
      .then(
        (decision) => {
          if (!decision) return done();
          request.fault = decision;
          actOnFault(decision.action, api, {
            proceed: () => done(),
            fail: (err) => done(err),
            reset: () => {
              if (journal.enabled) recordCall(journal, request, api, 0, null, undefined);
              resetConnection(reply);
            },
          });
        },
        (err: Error) => done(err),
      );
  };
}

/** HTTP/1.1: the socket is destroyed (the client sees ECONNRESET); HTTP/2: the stream is reset (RST_STREAM INTERNAL_ERROR). */
function resetConnection(reply: FastifyReply): void {
  const raw = reply.raw as { stream?: { close(code: number): void }; destroy(): void };
  if (raw.stream) raw.stream.close(http2.constants.NGHTTP2_INTERNAL_ERROR);
  else raw.destroy();
}
