import { Ajv, type Options as AjvOptions } from 'ajv';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest, type FastifyServerOptions } from 'fastify';
import { parse as parseYaml } from 'yaml';
import { ApiError, internalError, urlNotFound } from './errors.ts';
import { type EnvelopeStyle, errorEnvelope } from './envelope.ts';
import { applyFieldSelection } from './fields.ts';
import { type SystemParams, takeSystemParams } from './systemParams.ts';
import { validationError } from './validationErrors.ts';

declare module 'fastify' {
  interface FastifyRequest {
    sys: SystemParams;
  }
  interface FastifyContextConfig {
    /** Which error envelope this route's real counterpart uses. Default `modern`. */
    envelope?: EnvelopeStyle;
    /** The name of the request body message in error paths (`key` -> `key.display_name`). */
    bodyName?: string;
  }
}

export interface HttpAppOptions {
  logger: FastifyServerOptions['logger'] | false;
  /** Request bodies larger than this get 413. */
  bodyLimit: number;
}

const REDACTED_QUERY = /([?&](?:key|keyString|access_token|\$key)=)[^&]*/gi;

/** A request URL safe to log: credentials and key strings in the query are masked. */
export function redactUrl(url: string): string {
  return url.replace(REDACTED_QUERY, '$1REDACTED');
}

const AJV_OPTIONS: AjvOptions = { removeAdditional: false, useDefaults: true, allErrors: false, verbose: true, strict: false };

/**
 * Query strings and path parameters arrive as text, so their validator coerces (`pageSize=3`,
 * `showDeleted=true`); JSON bodies are typed, so theirs does not: Google rejects
 * `{"displayName": 123}` with `Invalid value at 'key.display_name' (TYPE_STRING), 123`.
 */
function installValidators(app: FastifyInstance): void {
  const coercing = new Ajv({ ...AJV_OPTIONS, coerceTypes: 'array' });
  const exact = new Ajv({ ...AJV_OPTIONS, coerceTypes: false });
  app.setValidatorCompiler(({ schema, httpPart }) => (httpPart === 'body' ? exact : coercing).compile(schema));
}

/** The one character no store can keep in text (PostgreSQL rejects it): refused at the door. */
const NUL_IN_BODY = new ApiError({ status: 'INVALID_ARGUMENT', message: 'Invalid JSON payload received. Strings may not contain the NUL character (\\u0000).' });

function containsNul(value: unknown): boolean {
  if (typeof value === 'string') return value.includes('\u0000');
  if (value === null || typeof value !== 'object') return false;
  for (const [k, v] of Object.entries(value)) if (k.includes('\u0000') || containsNul(v)) return true;
  return false;
}

function sendError(reply: FastifyReply, err: ApiError, style: EnvelopeStyle): void {
  reply.code(err.httpCode).type('application/json; charset=UTF-8').send(errorEnvelope(err, style));
}

function prettyJson(payload: unknown): string {
  return JSON.stringify(payload, null, 2) + '\n';
}

/**
 * The Fastify app every service is mounted on: Google error envelopes, system parameters,
 * partial responses, pretty printing, bounded bodies, and JSON errors for everything.
 */
export function createHttpApp(opts: HttpAppOptions): FastifyInstance {
  const app = Fastify({
    logger: opts.logger === false ? false : {
      ...(typeof opts.logger === 'object' ? opts.logger : {}),
      redact: { paths: ['req.headers.authorization', 'req.headers["x-goog-api-key"]'], censor: 'REDACTED' },
      serializers: {
        req: (req: FastifyRequest) => ({ method: req.method, url: redactUrl(req.url), remoteAddress: req.ip }),
      },
    },
    bodyLimit: opts.bodyLimit,
    routerOptions: { maxParamLength: 500 },
    // Drain on close: requests that already reached an open connection are served (with
    // `Connection: close`) instead of Fastify's non-Google 503 body.
    return503OnClosing: false,
    // Router-level rejections (malformed URL encoding, an over-long path segment) in the Google envelope too.
    frameworkErrors: (err: { code?: string; statusCode?: number }, _request: FastifyRequest, reply: FastifyReply) => {
      const message = err.code === 'FST_ERR_MAX_PARAM_LENGTH' ? 'A path segment of the request URL is too long.' : 'The request URL is not valid.';
      sendError(reply, new ApiError({ status: 'INVALID_ARGUMENT', httpCode: err.statusCode ?? 400, message }), 'modern');
    },
  } as FastifyServerOptions);
  installValidators(app);

  app.decorateRequest('sys', null as unknown as SystemParams);

  // Drain on close: Fastify closes idle keep-alive connections once, when close() starts; a
  // connection whose request was still running then would stay open for keepAliveTimeout
  // (72 s) and hold close() up. Keep closing the ones that turn idle until the server is shut.
  app.addHook('preClose', (done) => {
    if (!app.server.listening) return done();
    const reaper = setInterval(() => app.server.closeIdleConnections(), 20).unref();
    app.server.once('close', () => clearInterval(reaper));
    done();
  });

  app.removeAllContentTypeParsers();
  app.addContentTypeParser(['application/json', 'text/plain'], { parseAs: 'string' }, (_req, body, done) => {
    const text = (body as string).trim();
    if (text === '') return done(null, undefined);
    try {
      const value = JSON.parse(text);
      if (text.includes('\\u0000') && containsNul(value)) return done(NUL_IN_BODY, undefined);
      done(null, value);
    } catch (err) {
      done(new ApiError({ status: 'INVALID_ARGUMENT', message: `Invalid JSON payload received. ${(err as Error).message}` }), undefined);
    }
  });
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_req, body, done) => {
    done(null, Object.fromEntries(new URLSearchParams(body as string)));
  });
  app.addContentTypeParser(['application/yaml', 'application/x-yaml', 'text/yaml'], { parseAs: 'string' }, (_req, body, done) => {
    try {
      const value = parseYaml(body as string);
      done(containsNul(value) ? NUL_IN_BODY : null, value);
    } catch (err) {
      done(new ApiError({ status: 'INVALID_ARGUMENT', message: `Invalid YAML payload received. ${(err as Error).message}` }), undefined);
    }
  });
  app.addContentTypeParser('*', { parseAs: 'string' }, (_req, body, done) => {
    if ((body as string).length === 0) return done(null, undefined);
    done(new ApiError({ status: 'INVALID_ARGUMENT', message: 'Invalid JSON payload received. Expected a JSON body with Content-Type: application/json.' }), undefined);
  });

  // Synchronous hooks use Fastify's callback form: no promise per hook on every request.
  app.addHook('onRequest', (request, reply, done) => {
    if (/%00/.test(request.url)) return done(new ApiError({ status: 'INVALID_ARGUMENT', message: 'The request URL is not valid: it contains the NUL character (%00).' }));
    try {
      request.sys = takeSystemParams((request.query ?? {}) as Record<string, unknown>);
    } catch (err) {
      return done(err as Error);
    }
    // A per-reply serializer makes Fastify skip its JSON content type: set it here (routes that
    // answer something else set their own type later).
    if (!request.sys.prettyPrint) reply.serializer(JSON.stringify).type('application/json; charset=utf-8');
    done();
  });

  // A request without a body is an empty message, as in Google's JSON transcoding.
  app.addHook('preValidation', (request, _reply, done) => {
    if (request.body === undefined || request.body === null) request.body = {};
    done();
  });

  app.addHook('preSerialization', (request, reply, payload, done) => {
    const sel = request.sys?.fields;
    // Error envelopes are never trimmed; a failed operation (HTTP 200 with an `error` field) is.
    done(null, sel && payload && typeof payload === 'object' && reply.statusCode < 400 ? applyFieldSelection(payload, sel) : payload);
  });

  app.setReplySerializer(prettyJson);

  app.setErrorHandler((err: any, request, reply) => {
    let apiError: ApiError;
    if (err instanceof ApiError) apiError = err;
    else if (err.validation) apiError = validationError(err.validation, err.validationContext, request.routeOptions.config.bodyName ?? 'resource');
    else if (err.code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
      apiError = new ApiError({ status: 'INVALID_ARGUMENT', httpCode: 413, message: `Request payload size exceeds the limit: ${opts.bodyLimit} bytes.` });
    } else if (err.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE' || err.code === 'FST_ERR_CTP_EMPTY_JSON_BODY') {
      apiError = new ApiError({ status: 'INVALID_ARGUMENT', message: `Invalid JSON payload received. ${err.message}` });
    } else if (typeof err.statusCode === 'number' && err.statusCode >= 400 && err.statusCode < 500) {
      apiError = new ApiError({ status: 'INVALID_ARGUMENT', httpCode: err.statusCode, message: err.message });
    } else {
      apiError = internalError();
    }
    if (apiError.httpCode >= 500) request.log.error({ err }, 'request failed');
    sendError(reply, apiError, request.routeOptions?.config?.envelope ?? 'modern');
  });

  app.setNotFoundHandler((request, reply) => {
    sendError(reply, urlNotFound(request.url), 'modern');
  });

  return app;
}
