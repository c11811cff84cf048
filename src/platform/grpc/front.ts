import type { ApiMethod, Authenticator } from '../auth/authenticator.ts';
import type { Principal } from '../auth/principal.ts';
import type { ApiError } from '../http/errors.ts';
import type { FaultDecision, Faults } from '../faults/faults.ts';
import { lazy } from '../lazy.ts';
import type { Http2Handler } from '../transport/listener.ts';
import type { ProtoTypes } from './protos.ts';

/** What a gRPC method handler gets besides its request message. */
export interface CallContext {
  /** The request's metadata (HTTP/2 headers, lower-case names). */
  metadata: Record<string, string | string[] | undefined>;
  /** The loaded message types (for `Any` values). */
  types: ProtoTypes;
}

/**
 * One unary method: its API method (name in error metadata, OAuth scopes), its message types
 * (fully qualified), and the handler, which calls the same service code as the REST route and
 * answers with a plain object of the response message (protobuf.js field names).
 */
export interface GrpcMethod {
  api: ApiMethod;
  requestType: string;
  responseType: string;
  /** No credential is needed (server reflection). */
  public?: boolean;
  handle(principal: Principal, request: any, ctx: CallContext): unknown;
}

/** One finished call, as logs, metrics and the request journal see it. */
export interface CompletedCall {
  /** `/package.Service/Method` as the call named it (at most 300 characters). */
  path: string;
  /** The path when it names a method this server serves (metrics label by it; any other path is one `unmatched` label). */
  route?: string;
  /** The gRPC status code, and the HTTP status REST answers for the same outcome. */
  grpcCode: number;
  httpCode: number;
  message?: string;
  error?: ApiError;
  principal?: Principal;
  /** The method called (absent for a path no method serves), the project its request names, the fault rule that acted, the operation it answered. */
  api?: ApiMethod;
  project?: string;
  fault?: FaultDecision;
  operation?: string;
  /** `performance.now()` when the call arrived, and its duration in ms. */
  receivedAt: number;
  durationMs: number;
  remoteAddress?: string;
}

export interface GrpcFrontOptions {
  authenticator: Authenticator;
  /** Max size of a request message (default 4 MiB, as gRPC servers). */
  maxMessageBytes?: number;
  log?: { error(obj: unknown, msg: string): void };
  /** Fault rules, applied to calls as to REST requests (by the method's discovery id). */
  faults?: Faults;
}

/**
 * The gRPC front end as the rest of the server sees it: services register their methods here
 * (cheap: no protobuf library is loaded), and `handler` serves calls. The protobuf machinery
 * (src/platform/grpc/server.ts, protobuf.js and the .proto files) is loaded at the first call,
 * so a server nobody calls over gRPC pays nothing at start-up or in memory.
 */
export class GrpcFront {
  readonly services = new Map<string, Map<string, GrpcMethod>>();
  readonly #completed: ((call: CompletedCall) => void)[] = [];
  readonly #opts: GrpcFrontOptions;
  readonly #server = lazy(async () => (this.#loaded = new (await import('./server.ts')).GrpcServer(this, this.#opts)));

  constructor(opts: GrpcFrontOptions) {
    this.#opts = opts;
  }

  addService(name: string, methods: Record<string, GrpcMethod>): void {
    const table = this.services.get(name) ?? new Map<string, GrpcMethod>();
    for (const [m, method] of Object.entries(methods)) table.set(m, method);
    this.services.set(name, table);
  }

  /** Subscribes to every finished call (the one completion point of the gRPC transport). */
  onCompleted(listener: (call: CompletedCall) => void): void {
    this.#completed.push(listener);
  }

  completed(call: CompletedCall): void {
    for (const listener of this.#completed) {
      try {
        listener(call);
      } catch (err) {
        this.#opts.log?.error({ err }, 'a gRPC completion listener failed');
      }
    }
  }

  #loaded: import('./server.ts').GrpcServer | undefined;

  /** Serves one call: node:http2's request and response (the call reads and writes `req.stream`). */
  readonly handler: Http2Handler = (req, res) => {
    const receivedAt = performance.now();
    if (this.#loaded) return this.#loaded.serve(req, res, receivedAt);
    this.#server().then(
      (server) => server.serve(req, res, receivedAt),
      (err) => {
        this.#opts.log?.error({ err }, 'the gRPC server could not be loaded');
        const stream = req.stream;
        if (!stream.destroyed && !stream.headersSent) stream.respond({ ':status': 200, 'content-type': 'application/grpc', 'grpc-status': '13', 'grpc-message': 'Internal error encountered.' }, { endStream: true });
      },
    );
  };
}
