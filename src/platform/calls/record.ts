import type { ApiMethod } from '../auth/authenticator.ts';
import type { Credentials } from '../auth/credentials.ts';
import type { Principal } from '../auth/principal.ts';
import type { FaultDecision } from '../faults/faults.ts';
import type { ApiError } from '../http/errors.ts';

export type Transport = 'rest' | 'grpc';

/**
 * One call as the platform sees it, whatever carried it (a REST request, a gRPC call): the one
 * record each transport fills in, in one order, and from which the request journal, the
 * metrics, the request log line and the fault decision are made (`CallPipeline`).
 *
 *   arrival       transport, HTTP method, target, request id, headers, when
 *   authenticate  credentials, principal
 *   validate      the method (`api`), its route, the project its parameters name
 *   decide faults fault (and the API key's id, when a rule or the journal asks for it)
 *   run           operation (what the answer names), API key id and project a service checked
 *   complete      status, gRPC status, error, latency
 *
 * A request that is not a public API call (the admin API, the console, `/metrics`, an unknown
 * path or gRPC method) is a record without `api`: it is metered and logged, never faulted or
 * journaled.
 */
export class CallRecord {
  readonly transport: Transport;
  /** `POST` for every gRPC call. */
  readonly httpMethod: string;
  /** As received: REST's URL with its query, a gRPC call's path (credentials are masked wherever it is shown). */
  readonly url: string;
  /** The server's request id: REST's `req-N`, gRPC's `grpc-N` (the log lines' `reqId`). */
  readonly requestId: string;
  /** `performance.now()` at arrival: latency is measured from here. */
  readonly receivedAt: number;
  /** What fault rules may match (`header`); never logged or journaled. */
  readonly headers: Record<string, string | string[] | undefined>;
  remoteAddress: string | undefined = undefined;

  credentials: Credentials | undefined = undefined;
  principal: Principal | undefined = undefined;

  /** The public API method called; undefined for any other request. */
  api: ApiMethod | undefined = undefined;
  /** The route that served it (REST's pattern, a gRPC method's path): the metrics label; undefined: none. */
  route: string | undefined = undefined;
  /** An object that stands for the route across calls (the metrics keep their per-route counters by it). */
  routeKey: object | undefined = undefined;
  /** The project the call names (id or number), or the one its API key or token belongs to. */
  project: string | undefined = undefined;
  /** The id of the API key the call carries (never its string). */
  apiKeyId: string | undefined = undefined;

  fault: FaultDecision | undefined = undefined;
  /** The long-running operation the answer names. */
  operation: string | undefined = undefined;

  /** HTTP status (the one REST answers for the same outcome, for gRPC); 0: reset before any answer. */
  status = 0;
  /** The gRPC status code, for a gRPC call. */
  grpcStatus: number | undefined = undefined;
  error: ApiError | undefined = undefined;
  /** The request and response bodies, kept only when the journal keeps bodies (REST). */
  requestBody: unknown = undefined;
  responseBody: unknown = undefined;
  /** Set by `CallPipeline.complete`: a call completes once. */
  completed = false;

  constructor(transport: Transport, httpMethod: string, url: string, requestId: string, headers: Record<string, string | string[] | undefined>, receivedAt = performance.now()) {
    this.transport = transport;
    this.httpMethod = httpMethod;
    this.url = url;
    this.requestId = requestId;
    this.headers = headers;
    this.receivedAt = receivedAt;
  }
}

/**
 * The long-running operation an answer names, on any transport: an answer that is an operation
 * (API Keys' `operations/...`, a Compute `compute#operation`) names it in its `name`; no other
 * answer names one (a key, a template, a list of operations).
 */
export function operationOf(answer: unknown): string | undefined {
  if (answer === null || typeof answer !== 'object') return undefined;
  const { name, kind } = answer as { name?: unknown; kind?: unknown };
  if (typeof name !== 'string') return undefined;
  return name.startsWith('operations/') || kind === 'compute#operation' ? name : undefined;
}
