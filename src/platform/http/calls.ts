import http2 from 'node:http2';
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions, preHandlerHookHandler } from 'fastify';
import type { ApiMethod } from '../auth/authenticator.ts';
import type { CallPipeline } from '../calls/pipeline.ts';
import { CallRecord, operationOf } from '../calls/record.ts';
import { actOnFault } from '../faults/rules.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** The call this request is (src/platform/calls/record.ts): made by the app's first hook, filled in as the request goes. */
    call: CallRecord;
  }
}

/** A REST request's call record, as it arrives. */
export function arrivedCall(request: FastifyRequest): CallRecord {
  return new CallRecord('rest', request.method, request.url, String(request.id), request.headers);
}

/**
 * REST's side of the call pipeline. Every request is a call record (made by the app's first
 * hook, `createHttpApp`); authentication fills in its credentials and principal
 * (platform/auth/plugin.ts); a public API method (a route with `config.api`) then, validated,
 * names its project and has the fault decision made in a route `preHandler` (so a rule sees the
 * principal and the route's parameters, and an operation the handler starts runs inside the
 * fault's context); its answer names its operation (`preSerialization`, on the answer object);
 * and every request completes at one point, Fastify's `onSend` (its status final, its answer
 * being handed to the socket), where the pipeline makes the metrics, the log line and the
 * journal entry. An `onResponse` hook would make Fastify add 'finish' and 'error' listeners to
 * every response (~1 us a request). Install it before the routes it serves are registered.
 */
export function installCalls(app: FastifyInstance, pipeline: CallPipeline): void {
  app.addHook('onRoute', (route) => {
    const api = route.config?.api;
    if (!api) return;
    appendRouteHook(route, 'preHandler', faultStep(api, pipeline));
    appendRouteHook(route, 'preSerialization', answeredOperation);
  });
  app.addHook('onSend', (request, reply, payload, done) => {
    // A request refused before the app's first hook (a malformed URL) gets its record now.
    const call = request.call ?? (request.call = arrivedCall(request));
    const route = request.routeOptions;
    call.api ??= route.config?.api;
    if (route.url !== undefined) {
      call.route = route.url;
      call.routeKey = route.config;
    }
    // A call refused before its fault step (credentials, validation) still names the project its path does.
    if (call.api !== undefined) call.project ??= (request.params as { project?: string } | undefined)?.project;
    call.status = reply.statusCode;
    call.error = reply.apiError ?? undefined;
    call.remoteAddress = request.ip;
    if (call.api !== undefined && pipeline.keepsBodies) {
      call.requestBody = request.body;
      call.responseBody = typeof payload === 'string' ? payload : undefined;
    }
    pipeline.complete(call);
    done();
  });
}

type AppendableHook = 'preHandler' | 'preSerialization';

function appendRouteHook(route: RouteOptions, name: AppendableHook, hook: unknown): void {
  const own = route[name] as unknown;
  (route as Record<AppendableHook, unknown>)[name] = [...(own === undefined ? [] : Array.isArray(own) ? own : [own]), hook];
}

/** Validated and authenticated: the call names its method and project, and the fault rules look at it. */
function faultStep(api: ApiMethod, pipeline: CallPipeline): preHandlerHookHandler {
  return (request, reply, done) => {
    const call = request.call;
    call.api = api;
    call.project = (request.params as { project?: string } | undefined)?.project;
    const deciding = pipeline.decideFault(call);
    if (deciding === undefined) return done();
    deciding.then(
      (decision) => {
        if (!decision) return done();
        actOnFault(decision.action, api, {
          proceed: () => done(),
          fail: (err) => done(err),
          reset: () => {
            call.status = 0;
            call.remoteAddress = request.ip;
            pipeline.complete(call);
            resetConnection(reply);
          },
        });
      },
      (err: Error) => done(err),
    );
  };
}

/** The operation the answer names (an answer object, before it is serialised: the same test as gRPC's). */
function answeredOperation(request: FastifyRequest, reply: FastifyReply, payload: unknown, done: (err: null, payload: unknown) => void): void {
  if (reply.statusCode < 400) request.call.operation = operationOf(payload);
  done(null, payload);
}

/** HTTP/1.1: the socket is destroyed (the client sees ECONNRESET); HTTP/2: the stream is reset (RST_STREAM INTERNAL_ERROR). */
function resetConnection(reply: FastifyReply): void {
  const raw = reply.raw as { stream?: { close(code: number): void }; destroy(): void };
  if (raw.stream) raw.stream.close(http2.constants.NGHTTP2_INTERNAL_ERROR);
  else raw.destroy();
}
