import type { ApiMethod, Authenticator } from '../auth/authenticator.ts';
import type { Principal } from '../auth/principal.ts';
import type { CallPipeline } from '../calls/pipeline.ts';
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

/** What a method's `parse` makes of its request message: what `handle` takes, and the project it names. */
export interface ParsedRequest<P = unknown> {
  params: P;
  project?: string;
}

/**
 * One unary method: its API method (name in error metadata, OAuth scopes), its message types
 * (fully qualified), `parse`, which checks the request message as REST checks the same call's
 * path, query and body (resource names, the body schema's bounds, with REST's errors) before any
 * fault rule looks at the call, and `handle`, which calls the same service code as the REST
 * route and answers with a plain object of the response message (protobuf.js field names).
 */
export interface GrpcMethod<P = any> {
  api: ApiMethod;
  requestType: string;
  responseType: string;
  /** No credential is needed, and the call is no API call (journal, faults): server reflection, unimplemented methods. */
  public?: boolean;
  parse(request: any): ParsedRequest<P>;
  handle(principal: Principal, params: P, ctx: CallContext): unknown;
}

export interface GrpcFrontOptions {
  authenticator: Authenticator;
  /** Where every call is decided on (fault rules) and completed (metrics, log line, journal), as REST's. */
  pipeline: CallPipeline;
  /** Max size of a request message (default 4 MiB, as gRPC servers). */
  maxMessageBytes?: number;
  log?: { error(obj: unknown, msg: string): void };
}

/**
 * The gRPC front end as the rest of the server sees it: services register their methods here
 * (cheap: no protobuf library is loaded), and `handler` serves calls. The protobuf machinery
 * (src/platform/grpc/server.ts, protobuf.js and the .proto files) is loaded at the first call,
 * so a server nobody calls over gRPC pays nothing at start-up or in memory.
 */
export class GrpcFront {
  readonly services = new Map<string, Map<string, GrpcMethod>>();
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
