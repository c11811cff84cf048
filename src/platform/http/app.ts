import type { Ajv, ValidateFunction } from 'ajv';
import type { FastifySchemaCompiler } from 'fastify';
import { STATUS_CODES } from './statusCodes.ts';
import { createRequire } from 'node:module';
import type { Socket } from 'node:net';
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance, type FastifyReply, type FastifyRequest, type FastifyServerOptions } from 'fastify';
import { MAX_JSON_DEPTH, TOO_DEEP, bodyText, checkStrings, jsonTextTooDeep, parseJsonBody, urlProblem, valueTooDeep } from './bodyParsing.ts';
import { ApiError, internalError, urlNotFound } from './errors.ts';
import { type EnvelopeStyle, errorEnvelopeText, sendError, sendInternalError } from './envelope.ts';
import { applyFieldSelection, type FieldSelection } from './fields.ts';
import { queryValidator } from './queryParams.ts';
import { arrivedCall } from './calls.ts';
import { createServerLogger, lazyChildLogger, type ServerLoggerOptions } from './requestLogger.ts';
import { prependRouteHook, recordRoutes } from './routes.ts';
import { scrubSecrets } from './secrets.ts';
import { type SystemParams, takeSystemParams } from './systemParams.ts';
import { coercingAjv, exactAjv, validationError } from './validationErrors.ts';

declare module 'fastify' {
  interface FastifyRequest {
    sys: SystemParams;
  }
  interface FastifyReply {
    /** The error this reply answers, when it is one (the request journal records its status and reason). */
    apiError: ApiError | null;
  }
  interface FastifyContextConfig {
    /** Which error envelope this route's real counterpart uses. Default `modern`. */
    envelope?: EnvelopeStyle;
    /** The name of the request body message in error paths (`key` -> `key.display_name`). */
    bodyName?: string;
  }
}

export interface HttpAppOptions {
  /** The server logger's options (see `createServerLogger`), or false for none; or the server logger itself (an app built later logs with the main app's). */
  logger: ServerLoggerOptions | boolean | FastifyBaseLogger;
  /** Request bodies larger than this get 413. */
  bodyLimit: number;
}

/**
 * Query strings and path parameters arrive as text, so their validator coerces (`pageSize=3`,
 * `showDeleted=true`); JSON bodies are typed, so theirs does not: Google rejects
 * `{"displayName": 123}` with `Invalid value at 'key.display_name' (TYPE_STRING), 123`.
 */
type FastifySchemaCompilerResult = ReturnType<FastifySchemaCompiler<unknown>>;

function installValidators(app: FastifyInstance): void {
  app.setValidatorCompiler(({ schema, httpPart }) => {
    if (httpPart === 'body') return compileLazily(exactAjv, schema);
    const compiled = compileLazily(coercingAjv, schema);
    // Query booleans in any case, integers within their proto type, one value per singular name.
    return (httpPart === 'querystring' ? queryValidator(schema, compiled) : compiled) as FastifySchemaCompilerResult;
  });
}

type Validate = ((data: unknown) => boolean) & { errors?: ValidateFunction['errors'] };

/**
 * A validator compiled on its first use: compiling every route's schemas at start-up was a
 * fifth of the time to the ready line; most servers only ever see a few of their routes.
 */
function compileLazily(ajv: () => Ajv, schema: unknown): Validate {
  let compiled: ValidateFunction | undefined;
  const validate: Validate = (data) => {
    compiled ??= ajv().compile(schema as object);
    const ok = compiled(data);
    validate.errors = compiled.errors;
    return ok;
  };
  return validate;
}

const requireLazily = createRequire(import.meta.url);

/** yaml is loaded with the first YAML body (a start-up cost otherwise). */
function parseYaml(text: string): unknown {
  return (requireLazily('yaml') as typeof import('yaml')).parse(text);
}

function prettyJson(payload: unknown): string {
  return JSON.stringify(payload, null, 2) + '\n';
}

const JSON_TYPE = 'application/json; charset=utf-8';

function emptyMessageWhenNoBody(request: FastifyRequest, _reply: FastifyReply, done: () => void): void {
  if (request.body === undefined || request.body === null) request.body = {};
  done();
}

/**
 * A reply's serializer for a partial response: the selected fields of an answer, serialised.
 * Error envelopes are never trimmed (they are sent as text, with their own serializer); a failed
 * operation (HTTP 200 with an `error` field) is.
 */
function selectingSerializer(reply: FastifyReply, sel: FieldSelection, serialize: (payload: unknown) => string): (payload: unknown) => string {
  return (payload) => serialize(payload && typeof payload === 'object' && reply.statusCode < 400 ? applyFieldSelection(payload, sel) : payload);
}

let requestCount = 0;
/**
 * Request ids as Fastify makes them (`req-1`, `req-2`, ... in base 36), counted for the process
 * rather than per app: a surface built later (mountLazily) numbers on from the main app, so the
 * log and the journal never show two requests with one id.
 */
function nextRequestId(): string {
  requestCount = (requestCount + 1) % Number.MAX_SAFE_INTEGER;
  return `req-${requestCount.toString(36)}`;
}

const isLogger = (v: unknown): v is FastifyBaseLogger => typeof v === 'object' && v !== null && typeof (v as { child?: unknown }).child === 'function';

/**
 * The Fastify app every service is mounted on: Google error envelopes, system parameters,
 * partial responses, pretty printing, bounded bodies, and JSON errors for everything.
 */
export function createHttpApp(opts: HttpAppOptions): FastifyInstance {
  // Fastify gets no logger of its own (see createServerLogger): requests log through lazy
  // children of the server's, and the app's `log` is the server's.
  const log = opts.logger === false ? undefined : isLogger(opts.logger) ? (opts.logger as unknown as ReturnType<typeof createServerLogger>) : createServerLogger(opts.logger);
  const app = Fastify({
    logger: false,
    // Fastify's own request lines ('incoming request' at every request) are off: the request log
    // is one line per call at its completion (the call pipeline: src/platform/calls/pipeline.ts).
    logController: new LogController({ disableRequestLogging: true }),
    // pino's per-request child logger is made only when the request logs something.
    childLoggerFactory: log ? (((_none: unknown, bindings: Record<string, unknown>, childOpts: { level?: string }) => lazyChildLogger(log as never, bindings, childOpts)) as never) : undefined,
    bodyLimit: opts.bodyLimit,
    genReqId: nextRequestId,
    routerOptions: { maxParamLength: 500 },
    // Drain on close: requests that already reached an open connection are served (with
    // `Connection: close`) instead of Fastify's non-Google 503 body.
    return503OnClosing: false,
    // Router-level rejections (malformed URL encoding, an over-long path segment) in the Google envelope too.
    frameworkErrors: (err: { code?: string; statusCode?: number }, _request: FastifyRequest, reply: FastifyReply) => {
      const message = err.code === 'FST_ERR_MAX_PARAM_LENGTH' ? 'A path segment of the request URL is too long.' : 'The request URL is not valid.';
      sendError(reply, new ApiError({ status: 'INVALID_ARGUMENT', httpCode: err.statusCode ?? 400, message }), 'modern');
    },
    // Requests Node's HTTP parser refuses (raw non-ASCII bytes in the URL, malformed headers,
    // headers too large) are answered in the Google envelope too, not Fastify's default body.
    clientErrorHandler: (err: NodeJS.ErrnoException, socket: Socket) => {
      if (err.code === 'ECONNRESET' || socket.destroyed || !socket.writable) return;
      const code = err.code === 'HPE_HEADER_OVERFLOW' ? 431 : err.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 408 : 400;
      const message = code === 431 ? 'The request headers are too large.' : code === 408 ? 'The request took too long to arrive.' : 'The request could not be read.';
      const body = errorEnvelopeText(new ApiError({ status: 'INVALID_ARGUMENT', httpCode: code, message }), 'modern', true);
      socket.end(`HTTP/1.1 ${code} ${STATUS_CODES[code]}\r\nContent-Type: application/json; charset=UTF-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
    },
  } as FastifyServerOptions);
  if (log) (app as { log: FastifyBaseLogger }).log = log as FastifyBaseLogger;
  recordRoutes(app);
  installValidators(app);

  app.decorateRequest('sys', null as unknown as SystemParams);
  app.decorateRequest('call', null as never);
  app.decorateReply('apiError', null);

  // Drain on close: Fastify closes idle keep-alive connections once, when close() starts; a
  // connection whose request was still running then would stay open for keepAliveTimeout
  // (72 s) and hold close() up. Keep closing the ones that turn idle until the server is shut.
  app.addHook('preClose', (done) => {
    if (!app.server.listening) return done();
    const reaper = setInterval(() => app.server.closeIdleConnections(), 20).unref();
    app.server.once('close', () => clearInterval(reaper));
    done();
  });

  // Bodies, as Google's front end reads them: a Google API method (a route with `config.api`)
  // takes its body as JSON whatever the Content-Type says, as ESF does (a form-encoded body is
  // then a JSON syntax error); the twin's own endpoints (admin API, token endpoint) also take
  // YAML and form bodies. Every body is checked once here: UTF-8, depth, NUL, surrogates.
  app.removeAllContentTypeParsers();
  const isApiMethod = (req: FastifyRequest) => (req.routeOptions.config as { api?: unknown } | undefined)?.api !== undefined;
  const json = (_req: FastifyRequest, body: Buffer, done: (err: Error | null, value?: unknown) => void) => {
    try {
      done(null, parseJsonBody(bodyText(body)));
    } catch (err) {
      done(err as Error, undefined);
    }
  };
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, json);
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'buffer' }, (req, body, done) => {
    if (isApiMethod(req)) return json(req, body as Buffer, done);
    try {
      const text = bodyText(body as Buffer);
      const form = Object.fromEntries(new URLSearchParams(text));
      checkStrings(form);
      done(null, form);
    } catch (err) {
      done(err as Error, undefined);
    }
  });
  app.addContentTypeParser(['application/yaml', 'application/x-yaml', 'text/yaml'], { parseAs: 'buffer' }, (req, body, done) => {
    if (isApiMethod(req)) return json(req, body as Buffer, done);
    let value: unknown;
    const tooDeep = () => new ApiError({ status: 'INVALID_ARGUMENT', message: TOO_DEEP.replace('JSON', 'YAML') });
    try {
      const text = bodyText(body as Buffer);
      // Flow collections (`[[[...`) nest without indentation: bounded like JSON before parsing.
      if (text.length > 2 * MAX_JSON_DEPTH && jsonTextTooDeep(text, MAX_JSON_DEPTH)) return done(tooDeep(), undefined);
      value = parseYaml(text);
    } catch (err) {
      if (err instanceof ApiError) return done(err, undefined);
      const message = String((err as Error)?.message);
      if (err instanceof RangeError || /call stack/i.test(message)) return done(tooDeep(), undefined);
      return done(new ApiError({ status: 'INVALID_ARGUMENT', message: `Invalid YAML payload received. ${scrubSecrets(message.slice(0, 300))}` }), undefined);
    }
    try {
      if (valueTooDeep(value)) throw tooDeep();
      checkStrings(value);
      done(null, value);
    } catch (err) {
      done(err as Error, undefined);
    }
  });
  app.addContentTypeParser('*', { parseAs: 'buffer' }, json);

  // Synchronous hooks use Fastify's callback form: no promise per hook on every request.
  app.addHook('onRequest', (request, reply, done) => {
    // The call record (latency is measured from here); the call pipeline (calls.ts) completes it.
    request.call = arrivedCall(request);
    // NUL and percent-escapes that are not UTF-8 (encoded surrogates among them) are refused here, once.
    if (request.url.includes('%')) {
      const problem = urlProblem(request.url);
      if (problem) return done(problem);
    }
    try {
      request.sys = takeSystemParams((request.query ?? {}) as Record<string, unknown>);
    } catch (err) {
      return done(err as Error);
    }
    // A per-reply serializer makes Fastify skip its JSON content type: set it here (routes that
    // answer something else set their own type later). Partial responses (`fields`) are cut
    // there too, so a request without them runs no selection step at all.
    const { prettyPrint, fields } = request.sys;
    if (fields) reply.serializer(selectingSerializer(reply, fields, prettyPrint ? prettyJson : JSON.stringify)).type(JSON_TYPE);
    else if (!prettyPrint) reply.serializer(JSON.stringify).type(JSON_TYPE);
    done();
  });

  // A request without a body is an empty message, as in Google's JSON transcoding. Only methods
  // that take a body need the step (a GET's body is never read).
  app.addHook('onRoute', (route) => {
    if ([route.method].flat().some((m) => m !== 'GET' && m !== 'HEAD')) prependRouteHook(route, 'preValidation', emptyMessageWhenNoBody);
  });

  app.setReplySerializer(prettyJson);

  // The error path cannot throw: whatever goes wrong, the client gets a Google envelope of the
  // route's style, and the log gets the cause once.
  app.setErrorHandler((err: any, request, reply) => {
    let style: EnvelopeStyle = 'modern';
    try {
      style = request.routeOptions?.config?.envelope ?? 'modern';
      const apiError = toApiError(err, request, opts.bodyLimit);
      if (apiError.httpCode >= 500) request.log.error({ err: loggableError(err) }, 'request failed');
      sendError(reply, apiError, style);
    } catch (failure) {
      try {
        request.log.error({ err: loggableError(err), errorAnswerFailure: scrubSecrets(String(failure instanceof Error ? failure.stack : failure)) }, 'request failed, and so did its error answer');
      } catch {
        // a logger that throws cannot stop the answer
      }
      sendInternalError(reply, style);
    }
  });

  app.setNotFoundHandler((request, reply) => {
    sendError(reply, urlNotFound(request.url), 'modern');
  });

  return app;
}

/**
 * An error as the log records it: type, code, message, stack and a database's `detail`, with
 * credential-shaped text masked (a driver's message may quote a value the request carried).
 */
function loggableError(err: any): Record<string, unknown> {
  const text = (v: unknown) => (v === undefined ? undefined : scrubSecrets(String(v)));
  try {
    return { type: text(err?.name ?? typeof err), code: text(err?.code), message: text(err?.message ?? err), detail: text(err?.detail), stack: text(err?.stack) };
  } catch {
    return { type: 'unprintable' };
  }
}

/** Any error a request can raise, as the ApiError its answer shows. */
function toApiError(err: any, request: FastifyRequest, bodyLimit: number): ApiError {
  if (err instanceof ApiError) return err;
  if (err?.validation) return validationError(err.validation, err.validationContext, request.routeOptions?.config?.bodyName ?? 'resource');
  if (err?.code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
    // The route's own limit when it sets one (the admin API's bulk routes), else the app's.
    const limit = request.routeOptions?.bodyLimit ?? bodyLimit;
    return new ApiError({ status: 'INVALID_ARGUMENT', httpCode: 413, message: `Request payload size exceeds the limit: ${limit} bytes.` });
  }
  if (err?.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE' || err?.code === 'FST_ERR_CTP_EMPTY_JSON_BODY') {
    return new ApiError({ status: 'INVALID_ARGUMENT', message: 'Invalid JSON payload received. The body could not be read as JSON.' });
  }
  if (typeof err?.statusCode === 'number' && err.statusCode >= 400 && err.statusCode < 500) {
    // Fastify's own client errors (bad Content-Length, aborted body, ...): their code, no internals.
    return new ApiError({ status: 'INVALID_ARGUMENT', httpCode: err.statusCode, message: 'The request could not be read.' });
  }
  return internalError();
}
