import type { FastifyBaseLogger } from 'fastify';
import type { Logger } from 'pino';

const LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace'] as const;
type Level = (typeof LEVELS)[number];
type LogFn = (...args: unknown[]) => void;

/**
 * Fastify's per-request logger, made lazily. Fastify makes a pino child logger for every
 * request (its bindings, the request id, serialised: about 1 us, a few per cent of a request);
 * this stand-in makes it only when the request logs at an enabled level, so at `--log-level
 * warn` a request that logs nothing costs no logger. What is logged is the same, request id
 * included.
 */
export function lazyChildLogger(logger: FastifyBaseLogger, bindings: Record<string, unknown>, opts: { level?: string; serializers?: unknown }): FastifyBaseLogger {
  // Not pino (Fastify's no-op logger when logging is off), or a route with its own level or
  // serializers: the logger's own child, as Fastify would make it.
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
