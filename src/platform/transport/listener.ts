import type { IncomingMessage, Server as HttpServer, ServerResponse } from 'node:http';
import { type Http2ServerRequest, type IncomingHttpHeaders, type Http2ServerResponse, type ServerHttp2Stream, createServer as createHttp2Server, constants as h2 } from 'node:http2';
import { type Server as NetServer, type Socket, createServer as createNetServer } from 'node:net';
import { type TLSSocket, createServer as createTlsServer } from 'node:tls';
import { EMPTY_SETTINGS, H2Connection, H2_PREFACE, type H2Stream, firstRequestIsGrpc, isGrpcContentType, withoutFirstSettingsAck } from './h2/connection.ts';

/** How long the port waits for the first request of an HTTP/2 connection to choose its engine, and how much of it it reads. */
const FIRST_REQUEST_WAIT_MS = 100;
const FIRST_REQUEST_MAX_BYTES = 64 * 1024;
/** The first byte of a TLS record carrying a handshake (a ClientHello). */
const TLS_HANDSHAKE = 0x16;

/**
 * The stream of one gRPC call: node:http2's `ServerHttp2Stream`, or a stream of this port's own
 * HTTP/2 engine (h2/connection.ts), which serves connections that open with a gRPC call.
 */
export interface GrpcServerStream {
  readonly destroyed: boolean;
  readonly closed: boolean;
  readonly headersSent: boolean;
  readonly session?: { socket?: { remoteAddress?: string } } | undefined;
  on(event: string, listener: (...args: any[]) => void): unknown;
  once(event: string, listener: (...args: any[]) => void): unknown;
  removeListener(event: string, listener: (...args: any[]) => void): unknown;
  removeAllListeners(event?: string): unknown;
  respond(headers: Record<string, string | number>, options?: { endStream?: boolean; waitForTrailers?: boolean }): void;
  write(data: Uint8Array): unknown;
  end(data?: Uint8Array): unknown;
  sendTrailers(trailers: Record<string, string | number>): void;
  close(code?: number): void;
  resume(): unknown;
}

/** A handler of one gRPC call: its stream and its request headers. */
export type GrpcStreamHandler = (stream: GrpcServerStream, headers: Record<string, string | string[] | undefined>) => void;

export interface ListenOptions {
  host: string;
  port: number;
  /** A port bound already (bindPort): served instead of binding host:port. */
  bound?: BoundPort;
  /** PEM certificate chain and key: TLS (ALPN h2 and http/1.1) on the same port; cleartext otherwise. */
  tls?: { cert: string | Buffer; key: string | Buffer };
  /** A connection that sends nothing for this long is closed (default 10 s). */
  firstBytesTimeoutMs?: number;
  /** How long `close()` waits for in-flight requests and calls before it cuts what is left (default 10 s). */
  drainTimeoutMs?: number;
}

/** What one port serves. */
export interface Application {
  /** The HTTP/1.1 server whose `request` handler answers REST (Fastify's); it is never itself listening. */
  http1: HttpServer;
  /** Answers one request that arrived over HTTP/2 with the same handler (Fastify's `routing`). */
  http2Request: (req: Http2ServerRequest, res: Http2ServerResponse) => void;
  /** Answers one `application/grpc*` request; absent: gRPC is off (such requests go to `http2Request`). */
  grpc?: GrpcStreamHandler;
}

/** A port bound and listening, whose connections wait until `listen` serves them (bind first, build after). */
export interface BoundPort {
  server: NetServer;
  host: string;
  port: number;
  /** Closes it (when the start goes no further). */
  close(): Promise<void>;
}

/** Binds host:port (0 picks a free port); errors are the system's (EADDRINUSE, ...). */
export async function bindPort(host: string, port: number): Promise<BoundPort> {
  const server = createNetServer({ noDelay: true });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen({ host, port }, () => {
      server.removeListener('error', reject);
      resolve();
    });
  });
  return {
    server,
    host,
    port: (server.address() as { port: number }).port,
    close: () => new Promise<void>((resolve) => (server.listening ? server.close(() => resolve()) : resolve())),
  };
}

export interface Listener {
  host: string;
  port: number;
  /** `http://HOST:PORT` or `https://HOST:PORT` (IPv6 hosts in brackets; a wildcard host as its loopback address, see `reachableHost`). */
  url: string;
  /** The transports this port speaks, e.g. `['http/1.1', 'h2c', 'grpc']` or `['https/1.1', 'h2', 'grpc+tls']`. */
  transports: string[];
  /** Stops accepting, lets in-flight HTTP/1.1 requests and HTTP/2 streams finish (at most `drainTimeoutMs`), then closes every connection. */
  close(): Promise<void>;
}

/**
 * The host a client on this machine opens for a listen host: the host itself, but for the
 * wildcard addresses (`0.0.0.0`, `::`: every interface), which are no address to connect to,
 * the loopback address of the same family.
 */
export function reachableHost(host: string): string {
  if (host === '0.0.0.0') return '127.0.0.1';
  if (host === '::' || host === '[::]') return '::1';
  return host;
}

/** `PRI * HTTP/2.0...` so far: `yes`, `maybe` (a prefix of it, wait for more), or `no`. */
function prefaceState(buf: Buffer): 'yes' | 'maybe' | 'no' {
  const n = Math.min(buf.length, H2_PREFACE.length);
  if (buf.compare(H2_PREFACE, 0, n, 0, n) !== 0) return 'no';
  return n === H2_PREFACE.length ? 'yes' : 'maybe';
}

/**
 * One port for every transport: a `net` server reads each connection's first bytes and hands the
 * socket on. A TLS ClientHello (0x16) goes to a TLS server whose ALPN picks `h2` or `http/1.1`;
 * the HTTP/2 preface (prior knowledge, cleartext) goes to the HTTP/2 server; anything else is
 * HTTP/1.1. On HTTP/2, `content-type: application/grpc*` goes to the gRPC handler and every other
 * request (REST, the console, the admin API) to the same routes as HTTP/1.1.
 */
export async function listen(appl: Application, opts: ListenOptions): Promise<Listener> {
  const sockets = new Set<Socket>();
  /** HTTP/2 connections of either engine, for the drain: close() is GOAWAY, destroy() cuts. */
  const sessions = new Set<{ close(): void; destroy(): void }>();
  const firstBytesTimeoutMs = opts.firstBytesTimeoutMs ?? 10_000;

  // The HTTP/1.1 server is fed sockets rather than listening: its connection tracking (idle
  // connections closed on drain, request timeouts) starts on 'listening', so start it here.
  appl.http1.emit('listening');

  const http2 = createHttp2Server({ maxSessionMemory: 32, settings: { maxConcurrentStreams: 1000 } });
  http2.on('session', (session) => {
    const entry = { close: () => session.close(), destroy: () => session.destroy(undefined, h2.NGHTTP2_CANCEL) };
    sessions.add(entry);
    session.once('close', () => sessions.delete(entry));
  });
  const grpc = appl.grpc;
  // gRPC calls take the raw stream; every other request goes through node:http2's compatibility
  // layer (request/response objects, as Fastify's router expects), which a second, never-listening
  // server applies to the streams handed to it: a gRPC call pays nothing for it.
  const compat = createHttp2Server();
  compat.on('request', (req: Http2ServerRequest, res: Http2ServerResponse) => appl.http2Request(req, res));
  http2.on('stream', (stream: ServerHttp2Stream, headers: IncomingHttpHeaders, flags: number, rawHeaders: string[]) => {
    if (grpc && isGrpcContentType(headers['content-type'])) grpc(stream, headers);
    else compat.emit('stream', stream, headers, flags, rawHeaders);
  });
  // A session with no stream for this long is closed, like an idle HTTP/1.1 keep-alive connection.
  http2.on('session', (session) => session.setTimeout(120_000, () => session.close()));

  const toNodeHttp2 = (socket: Socket, bytes: Buffer) => {
    if (socket.destroyed) return;
    socket.pause();
    if (bytes.length) socket.unshift(bytes);
    http2.emit('connection', socket);
  };
  const toGrpcEngine = (socket: Socket, bytes: Buffer) => {
    const conn = new H2Connection(socket, bytes, { onStream: (stream, headers) => (isGrpcContentType(headers['content-type']) ? grpc!(stream, headers) : misdirected(stream)) });
    sessions.add(conn);
    conn.once('close', () => sessions.delete(conn));
  };
  /**
   * An HTTP/2 connection (its bytes so far: `head`): one whose first request is a gRPC call goes
   * to this port's own engine (h2/connection.ts: a unary call costs about half of node:http2's
   * CPU), any other (a browser, curl, REST) to node:http2 and Fastify's router. A client still
   * silent after FIRST_REQUEST_WAIT_MS waits for the server's SETTINGS (gRPC C-core does): it gets
   * an empty one, and the choice waits for its first request (at most `firstBytesTimeoutMs`);
   * node:http2 then gets the connection once the client's ACK of it came, without that ACK.
   */
  const serveHttp2 = (socket: Socket, head: Buffer) => {
    if (!grpc) return toNodeHttp2(socket, head);
    let bytes = head;
    let engine: 'grpc' | 'node' | undefined;
    let settingsSent = false;
    let handed = false;
    const settle = () => {
      if (handed) return;
      if (engine === undefined) {
        const first = bytes.length > FIRST_REQUEST_MAX_BYTES ? 'no' : firstRequestIsGrpc(bytes);
        if (first === 'more') return;
        engine = first === 'yes' ? 'grpc' : 'node';
      }
      let rest: Buffer | undefined = bytes;
      if (engine === 'node' && settingsSent && !(rest = withoutFirstSettingsAck(bytes))) return;
      handed = true;
      clearTimeout(timer);
      socket.removeListener('data', onData);
      if (socket.destroyed) return;
      if (engine === 'grpc') toGrpcEngine(socket, rest);
      else toNodeHttp2(socket, rest);
    };
    const onData = (chunk: Buffer) => {
      bytes = bytes.length ? Buffer.concat([bytes, chunk]) : chunk;
      settle();
    };
    let timer = setTimeout(() => {
      if (handed || engine !== undefined) return;
      settingsSent = true;
      socket.write(EMPTY_SETTINGS);
      // No request (or, for node:http2, no ACK) in time: a client that says nothing is closed, as on any connection.
      timer = setTimeout(() => socket.destroy(), firstBytesTimeoutMs);
    }, FIRST_REQUEST_WAIT_MS);
    socket.on('data', onData);
    settle();
    if (!handed) socket.resume();
  };

  const tls = opts.tls ? createTlsServer({ cert: opts.tls.cert, key: opts.tls.key, ALPNProtocols: ['h2', 'http/1.1'] }) : undefined;
  tls?.on('secureConnection', (socket: TLSSocket) => {
    if (socket.alpnProtocol === 'h2') serveHttp2(socket, Buffer.alloc(0));
    else appl.http1.emit('connection', socket);
  });
  tls?.on('tlsClientError', (_err, socket) => socket.destroy());

  const dispatch = (socket: Socket, head: Buffer) => {
    if (head[0] !== TLS_HANDSHAKE && prefaceState(head) === 'yes') return serveHttp2(socket, head);
    socket.pause();
    socket.unshift(head);
    if (head[0] === TLS_HANDSHAKE) {
      if (!tls) return socket.destroy(); // TLS to a cleartext port: nothing sensible to answer
      tls.emit('connection', socket);
    } else {
      appl.http1.emit('connection', socket);
      // The HTTP/1.1 server reads with 'data' listeners, which do not resume a paused socket.
      socket.resume();
    }
  };

  const onConnection = (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
    socket.on('error', () => socket.destroy());
    const silent = () => socket.destroy();
    socket.setTimeout(firstBytesTimeoutMs, silent);
    let head: Buffer = Buffer.alloc(0);
    const onData = (chunk: Buffer) => {
      head = head.length ? Buffer.concat([head, chunk]) : chunk;
      // The preface may arrive split over packets: wait until it is whole, or clearly not it.
      if (head[0] !== TLS_HANDSHAKE && prefaceState(head) === 'maybe') return;
      socket.removeListener('data', onData);
      socket.setTimeout(0);
      socket.removeListener('timeout', silent);
      dispatch(socket, head);
    };
    socket.on('data', onData);
  };

  const bound = opts.bound ?? (await bindPort(opts.host, opts.port));
  const net: NetServer = bound.server;
  net.on('connection', onConnection);
  const port = bound.port;
  const reachable = reachableHost(opts.host);
  const hostText = reachable.includes(':') ? `[${reachable}]` : reachable;
  const transports = opts.tls ? ['https/1.1', 'h2'] : ['http/1.1', 'h2c'];
  if (grpc) transports.push(opts.tls ? 'grpc+tls' : 'grpc');

  let closing: Promise<void> | undefined;
  const close = () =>
    (closing ??= (async () => {
      // No new connections (its callback would wait for every open connection to end).
      net.close();
      // HTTP/2: GOAWAY now; each session ends when its open streams have.
      for (const session of sessions) session.close();
      const deadline = Date.now() + (opts.drainTimeoutMs ?? 10_000);
      while (sockets.size > 0 && Date.now() < deadline) {
        // HTTP/1.1: a keep-alive connection closes as soon as it has no request running.
        appl.http1.closeIdleConnections();
        await new Promise((r) => setTimeout(r, 20));
      }
      for (const session of sessions) session.destroy();
      for (const socket of sockets) socket.destroy();
      // Stops the HTTP/1.1 server's connection checks (it was never listening itself).
      appl.http1.emit('close');
    })());

  return { host: opts.host, port, url: `${opts.tls ? 'https' : 'http'}://${hostText}:${port}`, transports, close };
}

/** A request other than a gRPC call on a connection this port's gRPC engine serves: 421, which tells the client to send it on another connection (RFC 9110 §15.5.20). */
function misdirected(stream: H2Stream): void {
  stream.respond({ ':status': 421, 'content-type': 'text/plain; charset=utf-8' });
  stream.end(Buffer.from('This HTTP/2 connection carries gRPC calls; send other requests on a connection of their own.\n'));
  stream.resume();
}

/** The Application of a Fastify app: its HTTP/1.1 server and its router for HTTP/2 requests. */
export function fastifyApplication(app: { server: HttpServer; routing: (req: IncomingMessage, res: ServerResponse) => void }, grpc?: GrpcStreamHandler): Application {
  return { http1: app.server, http2Request: (req, res) => app.routing(req as never, res as never), grpc };
}
