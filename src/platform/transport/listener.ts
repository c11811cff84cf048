import type { IncomingMessage, Server as HttpServer, ServerResponse } from 'node:http';
import { type Http2Server, type Http2ServerRequest, type Http2ServerResponse, type ServerHttp2Session, createServer as createHttp2Server, constants as h2 } from 'node:http2';
import { type Server as NetServer, type Socket, createServer as createNetServer } from 'node:net';
import { type TLSSocket, createServer as createTlsServer } from 'node:tls';

/** The HTTP/2 client connection preface (RFC 9113, section 3.4). */
const H2_PREFACE = Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n');
/** The first byte of a TLS record carrying a handshake (a ClientHello). */
const TLS_HANDSHAKE = 0x16;
/** An HTTP/2 session with no frame for this long is closed, as an idle HTTP/1.1 keep-alive connection is. */
const HTTP2_SESSION_IDLE_MS = 120_000;
/**
 * How long past its advertised Keep-Alive timeout an HTTP/1.1 connection that has received
 * nothing since its last answer stays open. A client closes such a connection when the advertised
 * timeout is near, by its own clock; one that is late (a starved process) and sends a request just
 * as the server closes loses it, and a POST lost that way is not retried. Only untouched
 * connections get the grace: a request begun and not finished is still closed at the idle limit.
 */
const KEEP_ALIVE_GRACE_MS = 50_000;

/**
 * What node:http2 is told to tolerate before it ends a session (GOAWAY ENHANCE_YOUR_CALM or
 * PROTOCOL_ERROR): nghttp2 enforces these, cloudtwin only sets them.
 */
export const HTTP2_LIMITS = {
  /** Streams open at once on one session (SETTINGS_MAX_CONCURRENT_STREAMS); more are refused. */
  maxConcurrentStreams: 1000,
  /** Streams node:http2 itself refuses (ENHANCE_YOUR_CALM: the session's memory is spent) before the session is ended. */
  maxSessionRejectedStreams: 100,
  /** Invalid frames before the session is ended: malformed requests, and streams opened past the concurrency limit (each refused). */
  maxSessionInvalidFrames: 100,
  /** Entries in one SETTINGS frame (RFC 9113 defines 6; clients send at most those). */
  maxSettings: 16,
  /** Header fields in one request, and the size of its header list in bytes. */
  maxHeaderListPairs: 128,
  maxHeaderListSize: 64 * 1024,
  /** Resets the client may send (rapid reset): a burst of this many, then this many per second. */
  streamResetBurst: 1000,
  streamResetRate: 33,
  /** Memory one session may hold (MB) before new streams are refused. */
  maxSessionMemory: 32,
} as const;

/** A handler of one HTTP/2 request, as node:http2's compatibility API hands it over. */
export type Http2Handler = (req: Http2ServerRequest, res: Http2ServerResponse) => void;

export interface ListenOptions {
  host: string;
  port: number;
  /** A port bound already (bindPort): served instead of binding host:port. */
  bound?: BoundPort;
  /** PEM certificate chain and key: TLS only (ALPN h2 and http/1.1); cleartext otherwise. */
  tls?: { cert: string | Buffer; key: string | Buffer };
  /**
   * A connection is closed when it stays quiet this long (default 10 s) before it has sent a whole
   * request: nothing at all, a TLS handshake begun and not finished, or an HTTP/1.1 request head
   * begun and not finished.
   */
  idleTimeoutMs?: number;
  /** How long `close()` waits for in-flight requests and calls before it cuts what is left (default 10 s). */
  drainTimeoutMs?: number;
}

/** What one port serves. */
export interface Application {
  /** The HTTP/1.1 server whose `request` handler answers REST (Fastify's); it is never itself listening. */
  http1: HttpServer;
  /** Answers one request that arrived over HTTP/2 with the same routes (Fastify's `routing`). */
  http2Request: Http2Handler;
  /** Answers one `application/grpc*` request (it reads and writes `req.stream`); absent: gRPC is off (such requests go to `http2Request`). */
  grpc?: Http2Handler;
}

/** A port bound and listening, whose connections wait until `listen` serves them (bind first, build after). */
export interface BoundPort {
  server: NetServer;
  host: string;
  port: number;
  /** Hands every connection to `onConnection`: those that came since the bind (held unread), then each new one. */
  serve(onConnection: (socket: Socket) => void): void;
  /** Closes it (when the start goes no further), with the connections held. */
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
  // Connections that come while the rest starts (a health check polling from `run` on) are held,
  // unread, and served once `serve` is called; without this they were accepted and never answered.
  const early = new Set<Socket>();
  const hold = (socket: Socket) => {
    early.add(socket);
    socket.once('close', () => early.delete(socket));
    socket.on('error', () => socket.destroy());
  };
  server.on('connection', hold);
  return {
    server,
    host,
    port: (server.address() as { port: number }).port,
    serve(onConnection) {
      server.off('connection', hold);
      server.on('connection', onConnection);
      for (const socket of early) onConnection(socket);
      early.clear();
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of early) socket.destroy();
        if (server.listening) server.close(() => resolve());
        else resolve();
      }),
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

/** `application/grpc`, `application/grpc+proto`, `application/grpc;...`: a gRPC call. */
function isGrpcContentType(value: unknown): boolean {
  return typeof value === 'string' && value.startsWith('application/grpc') && (value.length === 16 || value[16] === '+' || value[16] === ';');
}

/**
 * One port for every transport: a `net` server reads each connection's first bytes and hands the
 * socket on (`emit('connection')`, the injection node's servers document). A TLS ClientHello
 * (0x16) goes to a TLS server whose ALPN picks `h2` or `http/1.1`; the HTTP/2 preface (prior
 * knowledge, cleartext) goes to node:http2; anything else is HTTP/1.1. With TLS on, only TLS is
 * served. Every HTTP/2 connection is node:http2's: on one session, each stream whose
 * `content-type` is `application/grpc*` goes to the gRPC handler and every other (REST, the
 * console, the admin API) to the same routes as HTTP/1.1.
 */
export async function listen(appl: Application, opts: ListenOptions): Promise<Listener> {
  const sockets = new Set<Socket>();
  const sessions = new Set<ServerHttp2Session>();
  const idleTimeoutMs = opts.idleTimeoutMs ?? 10_000;

  const http2 = serveHttp2(appl, sessions);
  const http1 = serveHttp1(appl.http1, idleTimeoutMs);

  // The handshake must be done within the idle limit too (Node's default is 120 s).
  const tls = opts.tls ? createTlsServer({ cert: opts.tls.cert, key: opts.tls.key, ALPNProtocols: ['h2', 'http/1.1'], handshakeTimeout: idleTimeoutMs }) : undefined;
  tls?.on('secureConnection', (socket: TLSSocket) => (socket.alpnProtocol === 'h2' ? http2 : appl.http1).emit('connection', socket));
  tls?.on('tlsClientError', (_err, socket) => socket.destroy());

  const dispatch = (socket: Socket, head: Buffer) => {
    socket.pause();
    socket.unshift(head);
    if (head[0] === TLS_HANDSHAKE) {
      if (!tls) return socket.destroy(); // TLS to a cleartext port: nothing sensible to answer
      tls.emit('connection', socket);
    } else if (tls) {
      refuseCleartext(socket, head, `https://${hostText}:${port}`);
    } else if (prefaceState(head) === 'yes') {
      http2.emit('connection', socket);
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
    socket.setTimeout(idleTimeoutMs, silent);
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
  bound.serve(onConnection);
  const port = bound.port;
  const reachable = reachableHost(opts.host);
  const hostText = reachable.includes(':') ? `[${reachable}]` : reachable;
  const transports = opts.tls ? ['https/1.1', 'h2'] : ['http/1.1', 'h2c'];
  if (appl.grpc) transports.push(opts.tls ? 'grpc+tls' : 'grpc');

  let closing: Promise<void> | undefined;
  const close = () =>
    (closing ??= (async () => {
      // No new connections (its callback would wait for every open connection to end).
      net.close();
      // HTTP/2: GOAWAY now; each session ends when its open streams have.
      for (const session of sessions) session.close();
      // HTTP/1.1: idle connections close now, busy ones once their answers are out.
      http1.drain();
      const deadline = Date.now() + (opts.drainTimeoutMs ?? 10_000);
      while (sockets.size > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      for (const session of sessions) session.destroy(undefined, h2.NGHTTP2_CANCEL);
      for (const socket of sockets) socket.destroy();
    })());

  return { host: opts.host, port, url: `${opts.tls ? 'https' : 'http'}://${hostText}:${port}`, transports, close };
}

/**
 * The HTTP/2 side of the port: one node:http2 server for every HTTP/2 connection (each handed
 * over with `emit('connection')`), its flood limits, its sessions tracked for the drain, and
 * each stream sent by its content-type to the gRPC handler or to the REST routes.
 */
function serveHttp2(appl: Application, sessions: Set<ServerHttp2Session>): Http2Server {
  const server = createHttp2Server({
    maxSessionMemory: HTTP2_LIMITS.maxSessionMemory,
    maxSessionRejectedStreams: HTTP2_LIMITS.maxSessionRejectedStreams,
    maxSessionInvalidFrames: HTTP2_LIMITS.maxSessionInvalidFrames,
    maxSettings: HTTP2_LIMITS.maxSettings,
    maxHeaderListPairs: HTTP2_LIMITS.maxHeaderListPairs,
    streamResetBurst: HTTP2_LIMITS.streamResetBurst,
    streamResetRate: HTTP2_LIMITS.streamResetRate,
    settings: { maxConcurrentStreams: HTTP2_LIMITS.maxConcurrentStreams, maxHeaderListSize: HTTP2_LIMITS.maxHeaderListSize },
  } as Parameters<typeof createHttp2Server>[0]);
  server.on('session', (session: ServerHttp2Session) => {
    sessions.add(session);
    session.once('close', () => sessions.delete(session));
    session.setTimeout(HTTP2_SESSION_IDLE_MS, () => session.close());
  });
  const grpc = appl.grpc;
  server.on('request', grpc ? (req: Http2ServerRequest, res: Http2ServerResponse) => (isGrpcContentType(req.headers['content-type']) ? grpc(req, res) : appl.http2Request(req, res)) : appl.http2Request);
  return server;
}

/**
 * The HTTP/1.1 side of the port: the server's own per-connection limits, and what a drain needs.
 * Node's HTTP server times a connection out after `timeout` ms without a byte in either direction
 * until its first request, and `keepAliveTimeout` (+1 s) after each answer, whatever comes then
 * (it advertises `Keep-Alive: timeout=N`); both are the idle limit. On a timeout, a connection
 * whose request is being answered (read whole, the server still working) is kept, and so is one
 * that has received nothing since its last answer, for up to KEEP_ALIVE_GRACE_MS more; any other
 * is closed: a request head or body begun and not finished, or a keep-alive connection unused
 * for longer than that.
 */
function serveHttp1(server: HttpServer, idleTimeoutMs: number): { drain(): void } {
  /** Its connections, each with the requests whose answers are not out yet. */
  const connections = new Map<Socket, Set<IncomingMessage>>();
  let draining = false;
  server.on('connection', (socket: Socket) => {
    connections.set(socket, new Set());
    socket.once('close', () => connections.delete(socket));
  });
  /** Per connection, when its last answer went out and how many bytes it had read then. */
  const lastAnswer = new WeakMap<Socket, { at: number; bytesRead: number }>();
  server.keepAliveTimeout = idleTimeoutMs;
  server.setTimeout(idleTimeoutMs, (socket: Socket) => {
    const requests = connections.get(socket);
    if (requests && [...requests].some((req) => req.complete)) return;
    const last = lastAnswer.get(socket);
    const untouched = requests?.size === 0 && last !== undefined && socket.bytesRead === last.bytesRead;
    if (untouched && !draining && Date.now() - last.at < idleTimeoutMs + KEEP_ALIVE_GRACE_MS) return void socket.setTimeout(idleTimeoutMs);
    socket.destroy();
  });
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const requests = connections.get(req.socket);
    if (!requests) return;
    requests.add(req);
    if (draining && !res.headersSent) res.setHeader('connection', 'close');
    res.once('close', () => {
      requests.delete(req);
      lastAnswer.set(req.socket, { at: Date.now(), bytesRead: req.socket.bytesRead });
      if (draining && requests.size === 0) req.socket.end();
    });
  });
  return {
    drain() {
      draining = true;
      for (const [socket, requests] of connections) if (requests.size === 0) socket.end();
    },
  };
}

/** A cleartext connection to a TLS port: an HTTP/1.1 request gets a 400 naming the https address, anything else is closed. */
function refuseCleartext(socket: Socket, head: Buffer, httpsUrl: string): void {
  if (prefaceState(head) === 'yes') return void socket.destroy();
  const body = `This port speaks TLS only: use ${httpsUrl}\n`;
  socket.end(`HTTP/1.1 400 Bad Request\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
}

/** The Application of a Fastify app: its HTTP/1.1 server and its router for HTTP/2 requests. */
export function fastifyApplication(app: { server: HttpServer; routing: (req: IncomingMessage, res: ServerResponse) => void }, grpc?: Http2Handler): Application {
  return { http1: app.server, http2Request: (req, res) => app.routing(req as never, res as never), grpc };
}
