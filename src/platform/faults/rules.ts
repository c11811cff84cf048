import { type Static, Type } from '@sinclair/typebox';
import { ApiError, type CanonicalStatus, GRPC_CODE, invalidArgument } from '../http/errors.ts';
import { withOperationFailure } from '../operations/injectedFailure.ts';

/**
 * A fault rule as the admin API takes it: which calls it matches, what it does to them, when.
 *
 *   {"match": {"method": "compute.regionInstanceTemplates.insert"},
 *    "action": {"type": "error", "status": "RESOURCE_EXHAUSTED", "reason": "rateLimitExceeded"},
 *    "when": {"next": 2}}
 */
/**
 * How many rules are kept at most (a call looks at every rule: past a few dozen, rules are a
 * mistake, and an unbounded table is memory and time for every call). Creating one more, or
 * restoring a snapshot with more, is a 400.
 */
export const MAX_FAULT_RULES = 100;

/** The 400 answered past MAX_FAULT_RULES: `what` would make `count` rules. */
export function tooManyRules(what: string, count: number): ApiError {
  return invalidArgument(`At most ${MAX_FAULT_RULES} fault rules are kept; ${what} would make ${count}.`);
}

const Status = Type.Union(Object.keys(GRPC_CODE).map((s) => Type.Literal(s)));
const Text = (max: number) => Type.String({ minLength: 1, maxLength: max });
const DelayMs = Type.Integer({ minimum: 0, maximum: 600_000 });

export const FaultMatchSchema = Type.Object(
  {
    /** A discovery method id, or a pattern with `*` (`compute.*`, `*.list`, `*`). */
    method: Text(200),
    /** `user:alice@example.com`, `serviceAccount:...`, or the bare email. */
    principal: Type.Optional(Text(320)),
    /** A project id or number. */
    project: Type.Optional(Text(100)),
    /** The id of the API key the call carries (the last segment of its name). */
    apiKeyId: Type.Optional(Text(100)),
    /** A request header that must be present (and equal `value` when given). */
    header: Type.Optional(Type.Object({ name: Text(200), value: Type.Optional(Type.String({ maxLength: 2000 })) }, { additionalProperties: false })),
  },
  { additionalProperties: false },
);

const ErrorFields = {
  status: Status,
  /** HTTP code of the answer (default: the status's usual code, 429 for RESOURCE_EXHAUSTED). */
  httpCode: Type.Optional(Type.Integer({ minimum: 400, maximum: 599 })),
  /** Google's reason (`rateLimitExceeded`, `backendError`, `RATE_LIMIT_EXCEEDED`, `QUOTA_EXCEEDED` ...). */
  reason: Type.Optional(Text(100)),
  message: Type.Optional(Text(2000)),
  /** The legacy `errors[].domain` (default `global`; the Data API's quota errors use `youtube.quota`). */
  domain: Type.Optional(Text(100)),
};

export const FaultActionSchema = Type.Union([
  Type.Object({ type: Type.Literal('error'), ...ErrorFields, delayMs: Type.Optional(DelayMs) }, { additionalProperties: false }),
  Type.Object({ type: Type.Literal('latency'), delayMs: DelayMs }, { additionalProperties: false }),
  Type.Object({ type: Type.Literal('failOperation'), ...ErrorFields, delayMs: Type.Optional(DelayMs) }, { additionalProperties: false }),
  Type.Object({ type: Type.Literal('reset'), delayMs: Type.Optional(DelayMs) }, { additionalProperties: false }),
]);

export const FaultWhenSchema = Type.Union([
  /** The next N matching calls. */
  Type.Object({ next: Type.Integer({ minimum: 1, maximum: 1_000_000_000 }) }, { additionalProperties: false }),
  /** Every Kth matching call (the Kth, 2Kth, ...). */
  Type.Object({ every: Type.Integer({ minimum: 1, maximum: 1_000_000_000 }) }, { additionalProperties: false }),
  /** Each matching call with this probability, decided by the seed and the call's position: the same seed gives the same sequence. */
  Type.Object({ probability: Type.Number({ minimum: 0, maximum: 1 }), seed: Type.Optional(Type.String({ maxLength: 200 })) }, { additionalProperties: false }),
  /** Every matching call. */
  Type.Object({ always: Type.Literal(true) }, { additionalProperties: false }),
]);

export const FaultRuleInputSchema = Type.Object(
  {
    match: FaultMatchSchema,
    action: FaultActionSchema,
    when: Type.Optional(FaultWhenSchema),
    /** RFC 3339: the rule stops acting then (the twin's clock). */
    expireTime: Type.Optional(Type.String({ maxLength: 64 })),
    /** Or: the rule stops acting this many seconds from now. */
    ttlSeconds: Type.Optional(Type.Integer({ minimum: 1, maximum: 10 * 365 * 86400 })),
    description: Type.Optional(Type.String({ maxLength: 1000 })),
  },
  { additionalProperties: false },
);

export type FaultMatch = Static<typeof FaultMatchSchema>;
export type FaultAction = Static<typeof FaultActionSchema>;
export type FaultWhen = Static<typeof FaultWhenSchema>;
export type FaultRuleInput = Static<typeof FaultRuleInputSchema>;
export type ErrorAction = Extract<FaultAction, { type: 'error' | 'failOperation' }>;

/** A stored rule as the admin API shows it. */
export interface FaultRule {
  id: string;
  match: FaultMatch;
  action: FaultAction;
  when: FaultWhen;
  /** Epoch ms (the twin's clock); absent: never. */
  expireMs?: number;
  description?: string;
  createMs: number;
}

/** A rule as the admin API answers it: times as RFC 3339, counters, whether it still acts. */
export function renderRule(rule: FaultRule, counters: { matched: number; injected: number }, nowMs: number): Record<string, unknown> {
  return {
    id: rule.id,
    match: rule.match,
    action: rule.action,
    when: rule.when,
    ...(rule.description ? { description: rule.description } : {}),
    createTime: new Date(rule.createMs).toISOString(),
    ...(rule.expireMs !== undefined ? { expireTime: new Date(rule.expireMs).toISOString() } : {}),
    matched: counters.matched,
    injected: counters.injected,
    active: !(rule.expireMs !== undefined && nowMs >= rule.expireMs) && !spent(rule.when, counters.matched),
  };
}

/** A `next: N` rule after its N calls acts no more. */
export function spent(when: FaultWhen, matched: number): boolean {
  return 'next' in when && matched >= when.next;
}

/** Whether the `n`th matching call (from 1) gets the fault; `unit(n)` is the seeded draw in [0, 1). */
export function fires(when: FaultWhen, n: number, unit: (n: number) => number): boolean {
  if ('next' in when) return n <= when.next;
  if ('every' in when) return n % when.every === 0;
  if ('probability' in when) return unit(n) < when.probability;
  return true;
}

/** Checks what the schema cannot say; answers the rule to store. */
export function checkRule(input: FaultRuleInput, id: string, nowMs: number): FaultRule {
  if (input.expireTime !== undefined && input.ttlSeconds !== undefined) throw invalidArgument('Give expireTime or ttlSeconds, not both.');
  const a = input.action;
  if ((a.type === 'error' || a.type === 'failOperation') && a.httpCode !== undefined && a.httpCode < 400) throw invalidArgument('action.httpCode must be an error code (400-599).');
  let expireMs: number | undefined;
  if (input.expireTime !== undefined) {
    expireMs = Date.parse(input.expireTime);
    if (!Number.isFinite(expireMs)) throw invalidArgument(`expireTime is not an RFC 3339 time: ${input.expireTime.slice(0, 64)}`);
  } else if (input.ttlSeconds !== undefined) expireMs = nowMs + input.ttlSeconds * 1000;
  return {
    id,
    match: input.match,
    action: a,
    when: input.when ?? { always: true },
    ...(expireMs !== undefined ? { expireMs } : {}),
    ...(input.description ? { description: input.description } : {}),
    createMs: nowMs,
  };
}

const DEFAULT_MESSAGE: Partial<Record<CanonicalStatus, string>> = {
  RESOURCE_EXHAUSTED: 'Quota exceeded or rate limit exceeded.',
  UNAVAILABLE: 'The service is currently unavailable.',
  INTERNAL: 'Internal error encountered.',
  DEADLINE_EXCEEDED: 'The request deadline was exceeded.',
  ABORTED: 'The operation was aborted.',
  UNKNOWN: 'Unknown error.',
};

/** The legacy `errors[].reason` of a status when the rule names none (the Data API's and Compute's words). */
const LEGACY_REASON: Partial<Record<CanonicalStatus, string>> = {
  RESOURCE_EXHAUSTED: 'rateLimitExceeded',
  UNAVAILABLE: 'backendError',
  INTERNAL: 'backendError',
  UNKNOWN: 'backendError',
  DEADLINE_EXCEEDED: 'backendError',
  NOT_FOUND: 'notFound',
  PERMISSION_DENIED: 'forbidden',
  UNAUTHENTICATED: 'authError',
  ALREADY_EXISTS: 'alreadyExists',
  ABORTED: 'conflict',
};

export function faultMessage(a: ErrorAction): string {
  return a.message ?? DEFAULT_MESSAGE[a.status as CanonicalStatus] ?? `Injected fault: ${a.status}.`;
}

/**
 * The error an `error` rule answers, as an ApiError the route's own envelope renders: the
 * status, HTTP code and message; an ErrorInfo (reason, domain googleapis.com, the method's
 * service and RPC name) when the rule names a reason; the legacy `errors[]` entry for the
 * envelopes that carry one.
 */
export function injectedError(a: ErrorAction, api: { service: string; method: string }): ApiError {
  const status = a.status as CanonicalStatus;
  const message = faultMessage(a);
  return new ApiError({
    status,
    httpCode: a.httpCode,
    message,
    reason: a.reason,
    domain: a.reason ? 'googleapis.com' : undefined,
    metadata: a.reason ? { service: api.service, method: api.method } : undefined,
    errors: [{ message, domain: a.domain ?? 'global', reason: a.reason ?? LEGACY_REASON[status] ?? 'badRequest' }],
  });
}

/** The error a `failOperation` rule gives the operations a faulted call starts (see platform/operations/injectedFailure.ts). */
export function operationFailureOf(a: ErrorAction): { code: number; message: string; reason?: string; httpCode: number } {
  const status = a.status as CanonicalStatus;
  return { code: GRPC_CODE[status], message: faultMessage(a), reason: a.reason, httpCode: a.httpCode ?? new ApiError({ status, message: '' }).httpCode };
}

/** How one transport carries on with a call a fault rule acts on. */
export interface FaultedCall {
  /** Serve the call (inside the failure's context for `failOperation`). */
  proceed(): void;
  /** Answer the injected error instead. */
  fail(err: ApiError): void;
  /** Reset the connection or stream. */
  reset(): void;
}

/**
 * What a rule's action does to a call, on any transport (REST's route hook, the gRPC front):
 * after the action's delay, the call fails with the injected error, runs with the operations it
 * starts failing, is reset, or runs (latency alone).
 */
export function actOnFault(action: FaultAction, api: { service: string; method: string }, call: FaultedCall): void {
  const act = () => {
    switch (action.type) {
      case 'error':
        return call.fail(injectedError(action, api));
      case 'failOperation':
        return withOperationFailure(operationFailureOf(action), () => call.proceed());
      case 'reset':
        return call.reset();
      default:
        return call.proceed();
    }
  };
  if (action.delayMs) setTimeout(act, action.delayMs);
  else act();
}
