// cloudtwin's programmatic API: `startCloudtwin`, an in-process server for a test suite.
import { randomBytes } from 'node:crypto';
import { AdminClient, httpTransport } from './fixture/adminClient.ts';
import { type OperationsMode, type Snapshot, type World, behaviourHelpers, clockHelpers, credentialHelpers, stateHelpers } from './fixture/helpers.ts';
import { faultHelpers, requestHelpers } from './fixture/faultsAndRequests.ts';
import { gcloudEnvironment } from './platform/http/gcloudEnvironment.ts';
import { reachableHost } from './platform/transport/listener.ts';
import { startServing } from './start.ts';
import { StartupError } from './startupErrors.ts';

export { AdminApiError, AdminClient, type AdminTransport, httpTransport } from './fixture/adminClient.ts';
export type { ClockReading, Health, OperationsMode, QuotaReading, ServiceAccountKeyFile, ServiceAccountKeyListing, Snapshot, TokenOptions, World } from './fixture/helpers.ts';
export type { FaultAction, FaultMatch, FaultRule, FaultRuleInput, FaultWhen, RecordedRequest, RequestFilter } from './fixture/faultsAndRequests.ts';
export { StartupError } from './startupErrors.ts';

export interface StartCloudtwinOptions {
  /** A world document, or the path of one (JSON, or YAML ending in .yaml/.yml), applied at start. */
  world?: World | Record<string, unknown> | string;
  /** `enforce` (default): real credentials; `permissive`: any bearer token acts as `permissivePrincipal`. */
  auth?: 'enforce' | 'permissive';
  permissivePrincipal?: string;
  /** Keep everything in memory (the default unless `dataDir` or `databaseUrl` is given). */
  inMemory?: boolean;
  /** A SQLite data directory (kept after stop). */
  dataDir?: string;
  /** A PostgreSQL URL; several fixtures or servers on one database are one service. */
  databaseUrl?: string;
  /** Interface to listen on (default 127.0.0.1). */
  host?: string;
  /** Port (default 0: a free one; read `url` or `port`). */
  port?: number;
  /** How long-running operations finish (default `instant`: within the request). */
  operations?: OperationsMode;
  /** The admin token (default: a random one, in `adminToken`). */
  adminToken?: string;
  /** pino level of the server's JSON log on stderr (default `silent`). */
  logLevel?: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  /** Media API path prefix (default `/youtube`) and service name (default `youtube.googleapis.com`). */
  mediaPathPrefix?: string;
  mediaServiceName?: string;
  /** Calls the request journal keeps (default 10,000; 0 turns it off). */
  journalSize?: number;
  /** Journal request and response bodies too (credentials masked). */
  journalBodies?: boolean;
}

/** The options each official client needs to talk to this twin (no URL arithmetic in tests). */
export interface ClientOptions {
  /** `http://HOST:PORT`. */
  url: string;
  /** googleapis: `google.apikeys({version: 'v2', ...clientOptions().googleapis, auth})`. */
  googleapis: { rootUrl: string };
  /** gax clients over REST (`@google-cloud/apikeys`, `@google-cloud/compute`): `new ApiKeysClient({...clientOptions().gax, credentials})`. */
  gax: { apiEndpoint: string; port: number; protocol: 'http'; fallback: true };
  /** gcloud: environment variables (endpoint overrides); add `CLOUDSDK_CONFIG` and an access token file of your own. */
  gcloud: Record<string, string>;
}

export type CloudtwinFixture = {
  /** `http://HOST:PORT`. */
  url: string;
  host: string;
  port: number;
  adminToken: string;
  /** The admin API as raw calls (`admin.get('/_twin/v1/...')`), for what no helper covers. */
  admin: AdminClient;
  clientOptions(): ClientOptions;
  /** Back to the state this fixture had when it started (its world applied, its operations mode, no fault rules), the request journal emptied. */
  reset(): Promise<void>;
  /** Stops: drains in-flight requests, frees the port, closes the store; nothing is left running. */
  stop(): Promise<void>;
} & ReturnType<typeof stateHelpers> &
  ReturnType<typeof credentialHelpers> &
  ReturnType<typeof clockHelpers> &
  ReturnType<typeof behaviourHelpers> &
  ReturnType<typeof faultHelpers> &
  ReturnType<typeof requestHelpers>;

/**
 * Starts a cloudtwin in this process: bound to a port (a free one by default), in memory by
 * default, its world applied and operations instant, ready when the promise resolves. Several
 * may run at once, each with its own state.
 */
export async function startCloudtwin(opts: StartCloudtwinOptions = {}): Promise<CloudtwinFixture> {
  if (opts.inMemory && (opts.dataDir || opts.databaseUrl)) {
    throw new StartupError('inMemory cannot be combined with dataDir or databaseUrl; choose one store', { exitCode: 2 });
  }
  const adminToken = opts.adminToken ?? 'ctadm_' + randomBytes(24).toString('base64url');
  const host = opts.host ?? '127.0.0.1';
  let running;
  try {
    running = await startServing({
      host,
      port: opts.port ?? 0,
      dataDir: opts.inMemory ? undefined : opts.dataDir,
      databaseUrl: opts.inMemory ? undefined : opts.databaseUrl,
      worldFile: typeof opts.world === 'string' ? opts.world : undefined,
      world: typeof opts.world === 'string' ? undefined : opts.world,
      adminToken,
      auth: opts.auth ?? 'enforce',
      permissivePrincipal: opts.permissivePrincipal,
      mediaPathPrefix: opts.mediaPathPrefix,
      mediaServiceName: opts.mediaServiceName,
      journalSize: opts.journalSize,
      journalBodies: opts.journalBodies,
      allowedHosts: [host],
      logger: opts.logLevel && opts.logLevel !== 'silent' ? { level: opts.logLevel, stream: process.stderr } : false,
    });
  } catch (err) {
    if (err instanceof StartupError && err.option) {
      const value = { host, port: opts.port ?? 0, dataDir: opts.dataDir, databaseUrl: opts.databaseUrl, world: opts.world }[err.option];
      throw new StartupError(`${err.option}${typeof value === 'object' ? '' : ` ${value}`}: ${err.message}`, { exitCode: err.exitCode, option: err.option, cause: err });
    }
    throw err;
  }
  const { twin, url, port } = running;
  // Over the socket, not fastify's inject: inject loads light-my-request, which require()s the
  // ES-module-only `cookie`; jest's module runtime cannot on Node 22 (the README's jest example).
  const admin = new AdminClient(httpTransport(url, adminToken));
  const helpers = { ...stateHelpers(admin), ...credentialHelpers(admin), ...clockHelpers(admin), ...behaviourHelpers(admin), ...faultHelpers(admin), ...requestHelpers(admin) };
  let initial: Snapshot;
  try {
    // In process, not through the admin API: a start makes no HTTP request (a test that never
    // calls the admin API never loads an HTTP client).
    const mode = opts.operations ?? 'instant';
    await twin.operations.setConfig(mode === 'instant' ? { mode: 'instant', delayMs: 0 } : { mode: 'delayed', delayMs: mode.delayMs });
    initial = await twin.snapshots.take();
  } catch (err) {
    await running.stop();
    throw err;
  }
  return {
    url,
    host,
    port,
    adminToken,
    admin,
    ...helpers,
    clientOptions: () => ({
      url,
      googleapis: { rootUrl: `${url}/` },
      gax: { apiEndpoint: reachableHost(host), port, protocol: 'http', fallback: true },
      gcloud: gcloudEnvironment(url),
    }),
    reset: async () => {
      await helpers.restore(initial);
      await helpers.requests.clear();
    },
    stop: () => running.stop(),
  };
}
