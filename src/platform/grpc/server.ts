import { type Http2ServerRequest, type Http2ServerResponse, type IncomingHttpHeaders, type ServerHttp2Stream, constants as http2constants } from 'node:http2';
import { type ZlibOptions, gunzip, inflate } from 'node:zlib';
import { credentialsOf, hasOAuthCredential } from '../auth/credentials.ts';
import type { Principal } from '../auth/principal.ts';
import { CallRecord, operationOf } from '../calls/record.ts';
import { ApiError, type CanonicalStatus, GRPC_CODE, internalError } from '../http/errors.ts';
import { errorEnvelopeText } from '../http/envelope.ts';
import { scrubSecrets } from '../http/secrets.ts';
import type { FaultDecision } from '../faults/faults.ts';
import { actOnFault } from '../faults/rules.ts';
import type { GrpcFront, GrpcFrontOptions, GrpcMethod } from './front.ts';
import { type ProtoTypes, loadProtoTypes } from './protos.ts';
import { Reflection } from './reflection.ts';

const ignore = () => {};
const REFLECTION = /^\/grpc\.reflection\.(v1|v1alpha)\.ServerReflection\/ServerReflectionInfo$/;

const MAX_MESSAGE_BYTES = 4 * 1024 * 1024;
/** Inflaters by `grpc-encoding`; each stops (ERR_BUFFER_TOO_LARGE) once its output would pass `maxOutputLength`. */
const DECOMPRESS: Record<string, (b: Buffer, opts: ZlibOptions, done: (err: Error | null, out: Buffer) => void) => void> = { gzip: gunzip, deflate: inflate };
const ACCEPT_ENCODING = 'identity,deflate,gzip';
const TIMEOUT_UNITS: Record<string, number> = { H: 3_600_000, M: 60_000, S: 1000, m: 1, u: 0.001, n: 0.000001 };
// node:http2 copies headers and options it is given: one object each serves every call.
const RESPONSE_HEADERS = Object.freeze({ ':status': 200, 'content-type': 'application/grpc', 'grpc-accept-encoding': ACCEPT_ENCODING });
const WAIT_FOR_TRAILERS = Object.freeze({ waitForTrailers: true });
const OK_TRAILERS = Object.freeze({ 'grpc-status': '0' });

/**
 * `grpc-message` as the gRPC spec says (PROTOCOL-HTTP2.md): the UTF-8 bytes, each byte outside
 * 0x20-0x7E and `%` itself percent-encoded, nothing else (grpc-js decodes with `decodeURI`, so
 * an encoded `:` or `,` would reach the user as `%3A`, `%2C`).
 */
export function encodeGrpcMessage(text: string): string {
  let out = '';
  for (const byte of Buffer.from(text, 'utf8')) {
    out += byte >= 0x20 && byte <= 0x7e && byte !== 0x25 ? String.fromCharCode(byte) : '%' + byte.toString(16).toUpperCase().padStart(2, '0');
  }
  return out;
}

function frame(message: Uint8Array): Buffer {
  const out = Buffer.allocUnsafe(5 + message.length);
  out[0] = 0;
  out.writeUInt32BE(message.length, 1);
  out.set(message, 5);
  return out;
}

/** `grpc-timeout` in ms (`100m`, `5S`, `1H`, ...), or undefined when absent or malformed. */
function timeoutMs(value: unknown): number | undefined {
  const m = typeof value === 'string' ? /^(\d{1,8})([HMSmun])$/.exec(value) : null;
  return m ? Number(m[1]) * TIMEOUT_UNITS[m[2]] : undefined;
}

function header(headers: IncomingHttpHeaders, name: string): string | undefined {
  const v = headers[name];
  return Array.isArray(v) ? v[0] : v;
}

let grpcCalls = 0;

class CallError extends Error {
  readonly apiError: ApiError;
  constructor(status: CanonicalStatus, message: string) {
    super(message);
    this.apiError = new ApiError({ status, message });
  }
}

/**
 * Unary gRPC over HTTP/2 (PROTOCOL-HTTP2.md): length-prefixed messages, `grpc-timeout`, gzip and
 * deflate request compression, answers as headers + message + trailers, errors as trailers only
 * with `google.rpc.Status` in `grpc-status-details-bin` carrying the same details (and message)
 * as the REST answer to the same error. Each call is a call record (src/platform/calls/record.ts)
 * filled in REST's order: authenticated, its message read and parsed (validated), the fault rules
 * asked (the call pipeline), run; it ends in one place, `finish`, which completes it in the
 * pipeline (metrics, the log line, the journal).
 */
export class GrpcServer {
  readonly #front: GrpcFront;
  readonly #opts: GrpcFrontOptions;
  readonly types: ProtoTypes;

  constructor(front: GrpcFront, opts: GrpcFrontOptions) {
    this.#front = front;
    this.#opts = opts;
    this.types = loadProtoTypes();
  }

  /** `/package.Service/Method` -> its method, filled as calls name them (only paths a service serves are kept). */
  readonly #routes = new Map<string, GrpcMethod>();

  /** One call: node:http2's request and response for its stream (read and written raw; the trailers go through `res`, which sends them). */
  serve(req: Http2ServerRequest, res: Http2ServerResponse, receivedAt: number): void {
    const headers = req.headers;
    const path = header(headers, ':path') ?? '';
    const record = new CallRecord('grpc', 'POST', path.slice(0, 300), `grpc-${(++grpcCalls).toString(36)}`, headers, receivedAt);
    record.remoteAddress = req.stream.session?.socket?.remoteAddress;
    const call = new Call(this, req.stream, res, headers, path, record);
    try {
      const contentType = header(headers, 'content-type') ?? '';
      if (header(headers, ':method') !== 'POST') throw new CallError('UNIMPLEMENTED', `gRPC calls are POST requests; this was ${header(headers, ':method')}.`);
      if (contentType !== 'application/grpc' && !/^application\/grpc(\+proto)?(;|$)/.test(contentType)) {
        throw new CallError('UNIMPLEMENTED', `The content type ${contentType} is not supported; use application/grpc (protobuf messages).`);
      }
      const method = this.#routes.get(path) ?? this.#route(path);
      if (method) return call.run(method);
      const reflection = REFLECTION.exec(path);
      if (reflection) return call.reflect(`grpc.reflection.${reflection[1]}`, this.reflection);
      const m = /^\/([A-Za-z0-9_.]+)\/([A-Za-z0-9_]+)$/.exec(path);
      if (!m || !this.#front.services.has(m[1])) throw new CallError('UNIMPLEMENTED', `The server does not implement the service of ${path.slice(0, 200)}.`);
      throw new CallError('UNIMPLEMENTED', `The server does not implement the method ${path.slice(0, 200)}.`);
    } catch (err) {
      call.fail(err);
    }
  }

  #route(path: string): GrpcMethod | undefined {
    const slash = path.lastIndexOf('/');
    const method = path.startsWith('/') && slash > 0 ? this.#front.services.get(path.slice(1, slash))?.get(path.slice(slash + 1)) : undefined;
    if (method) this.#routes.set(path, method);
    return method;
  }

  /** The error as `google.rpc.Status` fields: exactly the REST envelope's message and details. */
  statusOf(err: ApiError): { code: number; message: string; detailsBin?: string } {
    const rest = JSON.parse(errorEnvelopeText(err, 'modern', false)).error as { message: string; details?: Record<string, unknown>[] };
    const details = (rest.details ?? []).map(({ '@type': url, ...fields }) => this.types.any(String(url).slice(String(url).lastIndexOf('/') + 1), fields));
    const code = err.grpcCode;
    if (!details.length) return { code, message: rest.message };
    const bin = this.types.encode('google.rpc.Status', { code, message: rest.message, details });
    return { code, message: rest.message, detailsBin: Buffer.from(bin).toString('base64') };
  }

  #reflection: Reflection | undefined;

  /** Server reflection over the loaded files, made at its first use. */
  get reflection(): Reflection {
    return (this.#reflection ??= new Reflection(this.types, () => [...this.#front.services.keys(), 'grpc.reflection.v1.ServerReflection', 'grpc.reflection.v1alpha.ServerReflection']));
  }


  get opts(): GrpcFrontOptions {
    return this.#opts;
  }
}

/** One call, from its headers to its trailers. */
class Call {
  readonly #server: GrpcServer;
  readonly #stream: ServerHttp2Stream;
  /** node:http2's response for the stream: it sends the trailers given to `addTrailers` when the stream's data is done. */
  readonly #res: Http2ServerResponse;
  readonly #headers: IncomingHttpHeaders;
  readonly #path: string;
  readonly #record: CallRecord;
  #done = false;
  #timer: NodeJS.Timeout | undefined;

  readonly #onClose = () => {
    if (!this.#done) this.#finish(1, 499);
  };

  constructor(server: GrpcServer, stream: ServerHttp2Stream, res: Http2ServerResponse, headers: IncomingHttpHeaders, path: string, record: CallRecord) {
    this.#server = server;
    this.#stream = stream;
    this.#res = res;
    this.#headers = headers;
    this.#path = path;
    this.#record = record;
    stream.on('error', ignore); // a reset stream: the call ends as cancelled below
    stream.on('close', this.#onClose);
  }

  run(method: GrpcMethod): void {
    const record = this.#record;
    record.route = this.#path;
    record.routeKey = method;
    if (!method.public) record.api = method.api;
    const deadline = timeoutMs(this.#headers['grpc-timeout']);
    if (deadline !== undefined) {
      this.#timer = setTimeout(() => this.fail(new CallError('DEADLINE_EXCEEDED', 'Deadline Exceeded')), Math.max(0, Math.ceil(deadline)));
      this.#timer.unref();
    }
    this.#steps(method, record).catch((err) => this.fail(err));
  }

  /** A call's steps, in REST's order: authenticate, validate (read, decode, parse), decide faults, run. */
  async #steps(method: GrpcMethod, record: CallRecord): Promise<void> {
    let principal = method.public ? undefined : this.#authenticate(method, record);
    if (principal instanceof Promise) principal = await principal;
    record.principal = principal;
    const bytes = await this.#readMessage();
    if (this.#done) return;
    const types = this.#server.types;
    const requestType = types.type(method.requestType);
    let request: Record<string, unknown>;
    try {
      request = requestType.toObject(requestType.decode(bytes), { longs: String, enums: String, bytes: Buffer });
    } catch (err) {
      throw new CallError('INVALID_ARGUMENT', `The request message is not a valid ${method.requestType}: ${scrubSecrets(String((err as Error).message)).slice(0, 200)}`);
    }
    const { params, project } = method.parse(request);
    record.project = project;
    const deciding = this.#server.opts.pipeline.decideFault(record);
    const decision = deciding && (await deciding);
    if (this.#done) return;
    const handle = () => method.handle(principal!, params, { metadata: this.#headers, types });
    const answer = decision ? await this.#faulted(decision, method, handle) : await handle();
    if (this.#done) return;
    record.operation = operationOf(answer);
    this.#reply(types.encode(method.responseType, answer as Record<string, unknown>));
  }

  /** A call a fault rule acts on, as REST's (platform/http/calls.ts): an error, latency, a failed operation, a reset stream. */
  #faulted(decision: FaultDecision, method: GrpcMethod, handle: () => unknown): Promise<unknown> {
    return new Promise((resolve, reject) =>
      actOnFault(decision.action, method.api, {
        proceed: () => {
          try {
            resolve(handle());
          } catch (err) {
            reject(err);
          }
        },
        fail: reject,
        reset: () => {
          this.#finish(14, 0);
          if (!this.#stream.destroyed) this.#stream.close(http2constants.NGHTTP2_INTERNAL_ERROR);
          resolve(undefined);
        },
      }),
    );
  }

  /** The bidirectional reflection stream: one response message per request message, then status OK. */
  reflect(pkg: string, reflection: Reflection): void {
    this.#record.route = this.#path;
    const stream = this.#stream;
    const types = this.#server.types;
    const requestType = types.type(`${pkg}.ServerReflectionRequest`);
    const limit = this.#server.opts.maxMessageBytes ?? MAX_MESSAGE_BYTES;
    stream.respond(RESPONSE_HEADERS, WAIT_FOR_TRAILERS);
    const stop = (status: CanonicalStatus, message: string) => {
      if (this.#done) return;
      const error = new ApiError({ status, message });
      this.#finish(GRPC_CODE[status], error.httpCode, error);
      stream.removeAllListeners('data');
      stream.resume();
      this.#res.addTrailers({ 'grpc-status': String(GRPC_CODE[status]), 'grpc-message': encodeGrpcMessage(message) });
      stream.end();
    };
    let pending: Buffer = Buffer.alloc(0);
    stream.on('data', (chunk: Buffer) => {
      pending = pending.length ? Buffer.concat([pending, chunk]) : chunk;
      while (pending.length >= 5 && !this.#done) {
        const length = pending.readUInt32BE(1);
        if (length > limit) return stop('RESOURCE_EXHAUSTED', `Received message larger than max (${length} vs. ${limit})`);
        if (pending.length < 5 + length) return;
        if (pending[0] !== 0) return stop('UNIMPLEMENTED', 'Compressed reflection requests are not supported.');
        const body = pending.subarray(5, 5 + length);
        pending = pending.subarray(5 + length);
        let answer: Record<string, unknown>;
        try {
          answer = reflection.answer(requestType.toObject(requestType.decode(body)));
        } catch (err) {
          return stop('INVALID_ARGUMENT', `The request message is not a valid ${pkg}.ServerReflectionRequest: ${String((err as Error).message).slice(0, 200)}`);
        }
        stream.write(frame(types.encode(`${pkg}.ServerReflectionResponse`, answer)));
      }
    });
    stream.once('end', () => {
      if (this.#done) return;
      this.#finish(0, 200);
      this.#res.addTrailers(OK_TRAILERS);
      stream.end();
    });
  }

  /** The caller, without a promise when the credential is one the authenticator has in its cache (the common case). */
  #authenticate(method: GrpcMethod, record: CallRecord): Principal | Promise<Principal> {
    const auth = this.#server.opts.authenticator;
    const creds = credentialsOf(this.#headers);
    record.credentials = creds;
    // Permissive mode: a call with no credential at all is the permissive principal (insecure channel, no auth).
    if (!hasOAuthCredential(creds) && !creds.apiKey) {
      const anonymous = auth.anonymousPrincipal();
      if (anonymous) return anonymous;
    }
    return auth.cachedPrincipal(creds, method.api) ?? auth.authenticate(creds, method.api);
  }

  /** The one request message of a unary call, decompressed; bounded by the message size limit. */
  #readMessage(): Promise<Buffer> {
    const stream = this.#stream;
    const limit = this.#server.opts.maxMessageBytes ?? MAX_MESSAGE_BYTES;
    return new Promise((resolve, reject) => {
      const chunks: Buffer[] = [];
      let size = 0;
      let declared: number | undefined;
      const detach = () => {
        stream.removeListener('data', onData);
        stream.removeListener('end', onEnd);
      };
      const stop = (err: Error) => {
        detach();
        reject(err);
      };
      const onData = (chunk: Buffer) => {
        chunks.push(chunk);
        size += chunk.length;
        if (declared === undefined && size >= 5) {
          const head = chunks.length === 1 ? chunks[0] : Buffer.concat(chunks);
          declared = head.readUInt32BE(1);
          if (declared > limit) stop(new CallError('RESOURCE_EXHAUSTED', `Received message larger than max (${declared} vs. ${limit})`));
        }
        if (size > limit + 5 + 5) stop(new CallError('RESOURCE_EXHAUSTED', `Received message larger than max (${size - 5} vs. ${limit})`));
      };
      const onEnd = () => {
        detach();
        const all = chunks.length === 1 ? chunks[0] : Buffer.concat(chunks);
        if (all.length < 5) return reject(new CallError('INVALID_ARGUMENT', 'The call carried no request message.'));
        const length = all.readUInt32BE(1);
        if (all.length < 5 + length) return reject(new CallError('INVALID_ARGUMENT', 'The request message was cut short.'));
        if (all.length > 5 + length) return reject(new CallError('INVALID_ARGUMENT', 'A unary call takes one request message; this one had more.'));
        const body = all.subarray(5);
        if (all[0] === 0) return resolve(body);
        if (all[0] !== 1) return reject(new CallError('INVALID_ARGUMENT', `The message's compressed flag is ${all[0]}, not 0 or 1.`));
        const encoding = header(this.#headers, 'grpc-encoding') ?? 'identity';
        const decompress = DECOMPRESS[encoding];
        if (!decompress) return reject(new CallError('UNIMPLEMENTED', `The message is compressed with ${encoding.slice(0, 50)}, which this server does not support (it takes ${ACCEPT_ENCODING}).`));
        // Inflated with a bound, before anything else is done with the call: a small message that
        // inflates past the limit (a gzip bomb) costs at most the limit, and is refused.
        decompress(body, { maxOutputLength: limit }, (err, plain) => {
          if (!err) return resolve(plain);
          if ((err as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') return reject(new CallError('RESOURCE_EXHAUSTED', `Received message larger than max (over ${limit} bytes decompressed vs. ${limit})`));
          reject(new CallError('INVALID_ARGUMENT', `The message could not be decompressed (${encoding}).`));
        });
      };
      stream.on('data', onData);
      stream.once('end', onEnd);
      // A call whose stream ended while it was being authenticated (no message: node:http2 ends an
      // empty stream without waiting for a reader) has ended already: 'end' will not come again.
      if (stream.readableEnded) onEnd();
    });
  }

  #reply(message: Uint8Array): void {
    if (this.#done) return;
    const stream = this.#stream;
    if (stream.destroyed || stream.closed) return;
    // The message is framed before anything is sent: an answer is whole or not at all.
    const data = frame(message);
    this.#finish(0, 200);
    stream.respond(RESPONSE_HEADERS, WAIT_FOR_TRAILERS);
    this.#res.addTrailers(OK_TRAILERS);
    stream.end(data);
  }

  fail(err: unknown): void {
    if (this.#done) return;
    let apiError: ApiError;
    if (err instanceof CallError) apiError = err.apiError;
    else if (err instanceof ApiError) apiError = err;
    else {
      apiError = internalError();
      this.#server.opts.log?.error({ err: { message: scrubSecrets(String((err as Error)?.stack ?? err)) }, path: this.#path }, 'gRPC call failed');
    }
    const status = this.#server.statusOf(apiError);
    this.#finish(status.code, apiError.httpCode, apiError);
    const stream = this.#stream;
    if (stream.destroyed || stream.closed) return;
    const trailers: Record<string, string> = { 'grpc-status': String(status.code), 'grpc-message': encodeGrpcMessage(status.message) };
    if (status.detailsBin) trailers['grpc-status-details-bin'] = status.detailsBin;
    if (!stream.headersSent) {
      // Trailers-only: one HEADERS frame ending the stream.
      stream.respond({ ':status': 200, 'content-type': 'application/grpc', 'grpc-accept-encoding': ACCEPT_ENCODING, ...trailers }, { endStream: true });
    } else stream.close();
    // What the client still sends is not read.
    stream.resume();
  }

  /** The call is over: its record completes in the pipeline (metrics, the log line, the journal). */
  #finish(grpcCode: number, httpCode: number, error?: ApiError): void {
    this.#done = true;
    if (this.#timer) clearTimeout(this.#timer);
    // node:http2 keeps a finished stream (and all it references) until a full GC: the call lets go of it now.
    this.#stream.removeListener('close', this.#onClose);
    const record = this.#record;
    record.grpcStatus = grpcCode;
    record.status = httpCode;
    record.error = error;
    this.#server.opts.pipeline.complete(record);
  }
}
