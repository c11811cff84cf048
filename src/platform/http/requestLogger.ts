import type { FastifyBaseLogger, FastifyReply, FastifyRequest } from 'fastify';
import { pino, stdSerializers, type DestinationStream, type Logger, type LoggerOptions } from 'pino';
import { redactUrl } from './secrets.ts';

const LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace'] as const;
type Level = (typeof LEVELS)[number];
type LogFn = (...args: unknown[]) => void;

/** The server logger's options: pino's, and the stream its lines go to (stdout when none). */
export type ServerLoggerOptions = LoggerOptions & { stream?: DestinationStream };

/**
 * The server's logger (pino, JSON lines). Fastify itself is given no logger: given one, it adds
 * a 'finish' and an 'error' listener to every response to log the request's completion, even at
 * a level that logs nothing (~1.5 us a request on the hot path). Requests log through
 * `lazyChildLogger` children of this logger instead, and instead of Fastify's two lines per request
 * ('incoming request', 'request completed') the request log is one line per call at its
 * completion, written by the call pipeline (src/platform/calls/pipeline.ts) only when `info` is
 * enabled. Credentials in headers are redacted; a request is logged by method, redacted URL and
 * remote address.
 */
export function createServerLogger(options: ServerLoggerOptions | true): Logger {
  const { stream, ...rest } = options === true ? {} : options;
  const pinoOptions: LoggerOptions = {
    ...rest,
    redact: { paths: ['req.headers.authorization', 'req.headers["x-goog-api-key"]'], censor: 'REDACTED' },
    serializers: {
      req: (req: FastifyRequest) => ({ method: req.method, url: redactUrl(req.url), remoteAddress: req.ip }),
      res: (reply: FastifyReply) => ({ statusCode: reply.statusCode }),
      err: stdSerializers.err,
    },
  };
  return stream ? pino(pinoOptions, stream) : pino(pinoOptions);
}

/**
 * Fastify's per-request logger, made lazily. Fastify makes a pino child logger for every
 * request (its bindings, the request id, serialised: about 1 us, a few per cent of a request);
 * this stand-in makes it only when the request logs at an enabled level, so at `--log-level
 * warn` a request that logs nothing costs no logger. What is logged is the same, request id
 * included.
 */
export function lazyChildLogger(logger: FastifyBaseLogger, bindings: Record<string, unknown>, opts: { level?: string; serializers?: unknown }): FastifyBaseLogger {
  // Not pino (a logger without levels), or a route with its own level or serializers: the
  // logger's own child, as Fastify would make it.
  if (typeof (logger as { isLevelEnabled?: unknown }).isLevelEnabled !== 'function' || opts.level !== undefined || opts.serializers !== undefined) {
    return logger.child(bindings, opts as never);
  }
  // Fastify's built-in logger is pino.
  return new RequestLogger(logger as unknown as Logger, bindings) as unknown as FastifyBaseLogger;
}

class RequestLogger {
  readonly parent: Logger;
  readonly childBindings: Record<string, unknown>;
  made: Logger | undefined;

  constructor(parent: Logger, bindings: Record<string, unknown>) {
    this.parent = parent;
    this.childBindings = bindings;
    this.made = undefined;
  }

  real(): Logger {
    return (this.made ??= this.parent.child(this.childBindings));
  }

  get level(): string {
    return this.made?.level ?? this.parent.level;
  }

  set level(level: string) {
    this.real().level = level;
  }

  child(bindings: Record<string, unknown>, opts?: Record<string, unknown>): Logger {
    return this.real().child(bindings, opts as never);
  }

  isLevelEnabled(level: string): boolean {
    return (this.made ?? this.parent).isLevelEnabled(level);
  }

  bindings(): Record<string, unknown> {
    return this.real().bindings();
  }
}

for (const level of LEVELS) {
  Object.defineProperty(RequestLogger.prototype, level, {
    value: function (this: RequestLogger, ...args: unknown[]): void {
      if (this.made === undefined && !this.parent.isLevelEnabled(level)) return;
      (this.real()[level as Level] as LogFn)(...args);
    },
    writable: true,
    configurable: true,
  });
}
