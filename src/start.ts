import { type BoundPort, type Listener, bindPort } from './platform/transport/listener.ts';
import { type Cloudtwin, type CloudtwinOptions, createCloudtwin, type ServeOptions } from './server.ts';
import { StartupError } from './startupErrors.ts';

/**
 * The one way a cloudtwin starts serving, for `cloudtwin serve` and the in-process fixture
 * (`startCloudtwin`) alike: bind the port, then build everything (store, data directory, admin
 * token, TLS material), then serve the bound port (the one-port listener: REST over HTTP/1.1 and
 * HTTP/2, gRPC) and start the background worker. Binding first means a port already in use
 * stops the start before anything is created (no data directory left behind). `stop()` stops
 * accepting, lets in-flight requests finish, then closes the app, the worker and the store:
 * nothing of the server is left in the process.
 */
export interface StartOptions extends CloudtwinOptions {
  host: string;
  /** 0 picks a free port. */
  port: number;
  /** The certificate to serve (TLS on the same port), made once the port is bound; none: cleartext. */
  tls?: () => (NonNullable<ServeOptions['tls']> & { caFile?: string }) | undefined;
}

export interface RunningCloudtwin {
  twin: Cloudtwin;
  listener: Listener;
  /** `http://HOST:PORT` or `https://...` (an IPv6 host in brackets). */
  url: string;
  host: string;
  port: number;
  /** What `tls()` gave, if anything. */
  tls: ReturnType<NonNullable<StartOptions['tls']>>;
  /** Stops accepting connections, drains in-flight requests, closes everything. Idempotent. */
  stop(): Promise<void>;
}

export async function startServing(opts: StartOptions): Promise<RunningCloudtwin> {
  const bound = await bind(opts.host, opts.port);
  let twin: Cloudtwin | undefined;
  try {
    twin = await createCloudtwin(opts);
    const tls = opts.tls?.();
    const listener = await twin.listen({ host: opts.host, port: opts.port, bound, tls });
    twin.worker.start();
    const running = twin;
    let stopped: Promise<void> | undefined;
    return {
      twin,
      listener,
      url: listener.url,
      host: opts.host,
      port: listener.port,
      tls,
      stop: () => (stopped ??= running.close()),
    };
  } catch (err) {
    await twin?.close();
    await bound.close();
    throw err;
  }
}

/** Binds host:port; a port in use or a host that cannot be bound is a StartupError about that option. */
async function bind(host: string, port: number): Promise<BoundPort> {
  try {
    return await bindPort(host, port);
  } catch (e) {
    const err = e as NodeJS.ErrnoException;
    const hint = 'choose another port, or 0 to pick a free one (--port 0)';
    if (err.code === 'EADDRINUSE') throw new StartupError(`already in use on ${host}: ${hint}`, { option: 'port', cause: err });
    if (err.code === 'EACCES') throw new StartupError(`not allowed to listen on this port (ports below 1024 need privileges): ${hint}`, { option: 'port', cause: err });
    if (err.code === 'EADDRNOTAVAIL' || err.code === 'ENOTFOUND' || err.code === 'EAI_AGAIN' || err.code === 'EAFNOSUPPORT') {
      throw new StartupError(`cannot listen on this host (${err.code}); expected an address of this machine such as 127.0.0.1, 0.0.0.0, :: or localhost`, { option: 'host', exitCode: 2, cause: err });
    }
    throw err;
  }
}
