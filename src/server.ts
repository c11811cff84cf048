import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { AdminContext } from './admin/context.ts';
import { SnapshotService } from './admin/snapshotService.ts';
import { WorldService } from './admin/worldService.ts';
import { AccessTokens } from './platform/auth/accessTokens.ts';
import { type AuthMode, Authenticator } from './platform/auth/authenticator.ts';
import { DEFAULT_PERMISSIVE_PRINCIPAL } from './platform/auth/principal.ts';
import { CredentialGeneration } from './platform/auth/credentialGeneration.ts';
import { installAuthentication } from './platform/auth/plugin.ts';
import { ServiceAccountKeys } from './platform/auth/serviceAccountKeys.ts';
import { registerRevokeEndpoint } from './platform/auth/revokeEndpoint.ts';
import { registerDiscoveryDocuments } from './platform/discovery/documents.ts';
import { registerTokenEndpoint } from './platform/auth/tokenEndpoint.ts';
import { Clock } from './platform/clock/clock.ts';
import { SharedClock } from './platform/clock/sharedClock.ts';
import { loadMasterKey } from './platform/crypto/masterKey.ts';
import { Ids, seededRandom, systemRandom } from './platform/crypto/random.ts';
import { SecretBox } from './platform/crypto/secretBox.ts';
import { createHttpApp } from './platform/http/app.ts';
import { installCors } from './platform/http/cors.ts';
import { installLocalSurfaceGuard } from './platform/http/localSurface.ts';
import { installMetrics } from './platform/http/metrics.ts';
import { mountLazily } from './platform/http/lazyApp.ts';
import { installCalls } from './platform/http/calls.ts';
import { CallPipeline } from './platform/calls/pipeline.ts';
import { Faults } from './platform/faults/faults.ts';
import { Journal } from './platform/journal/journal.ts';
import { AccessControl } from './platform/iam/accessControl.ts';
import { IamService } from './platform/iam/iamService.ts';
import { OperationEngine } from './platform/operations/engine.ts';
import { Worker } from './platform/operations/worker.ts';
import { readSetting, writeSetting } from './platform/store/settings.ts';
import { Store } from './platform/store/store.ts';
import { createApiKeys, type ApiKeys } from './services/apikeys/index.ts';
import { Quota } from './platform/quota/quota.ts';
import { type MediaMount, mountMedia } from './services/media/mount.ts';
import { createServiceUsage } from './services/serviceusage/index.ts';
import { registerConsole } from './console/plugin.ts';
import { ApiError } from './platform/http/errors.ts';
import { StartupError } from './startupErrors.ts';
import { VERSION } from './version.ts';
import { type ComputeMount, mountCompute } from './services/compute/mount.ts';
import { type BoundPort, type Listener, fastifyApplication, listen as listenOnPort } from './platform/transport/listener.ts';
import { GrpcFront } from './platform/grpc/front.ts';

export interface CloudtwinOptions {
  /** SQLite data directory; absent (with no databaseUrl) means in memory. */
  dataDir?: string;
  databaseUrl?: string;
  /** World document file (JSON or YAML) applied at start. */
  worldFile?: string;
  /** A world document applied at start (after `worldFile`). */
  world?: unknown;
  /** Admin token; generated (and kept in the data dir) when absent. */
  adminToken?: string;
  auth: AuthMode;
  /** The principal every bearer token stands for in permissive mode. */
  permissivePrincipal?: string;
  logger?: boolean | Record<string, unknown>;
  bodyLimit?: number;
  workerIntervalMs?: number;
  /** How long Compute's `operations.wait` blocks at most (default about 2 minutes, as Google's). */
  computeWaitTimeoutMs?: number;
  /** Host names (besides IP literals and localhost) the admin API and console may be reached by: the listen host, `--allowed-host`. */
  allowedHosts?: string[];
  /** Media API path prefix (default `/youtube`) and service name (default `youtube.googleapis.com`). */
  mediaPathPrefix?: string;
  mediaServiceName?: string;
  /** Prefix of the media API's `kind` values: `media` (default, the service document's) or `youtube` (the YouTube Data API's). */
  mediaKindPrefix?: 'media' | 'youtube';
  /** Engines answering media searches: 1 (default) or 2, the second on a thread of its own with its own copy of the index (not in memory). */
  mediaSearchThreads?: 1 | 2;
  /** Entries the request journal keeps (default 10,000; 0 turns it off). */
  journalSize?: number;
  /** Journal request and response bodies too (credentials masked). */
  journalBodies?: boolean;
  /** Seed for ids and secrets (tests only): the same seed gives the same ids. */
  seed?: string;
  env?: NodeJS.ProcessEnv;
}

export interface Cloudtwin {
  app: FastifyInstance;
  store: Store;
  adminToken: string;
  /** True when the admin token was generated now (the CLI prints it once). */
  adminTokenGenerated: boolean;
  apikeys: ApiKeys;
  media: MediaMount;
  quota: Quota;
  compute: ComputeMount;
  journal: Journal;
  faults: Faults;
  worker: Worker;
  operations: OperationEngine;
  snapshots: SnapshotService;
  /**
   * Serves the app on one port: REST over HTTP/1.1 and HTTP/2, gRPC over HTTP/2, all over TLS
   * (ALPN) when `tls` is given. Call it once; `close()` drains it first.
   */
  listen(opts: ServeOptions): Promise<Listener>;
  close(): Promise<void>;
}

export interface ServeOptions {
  host: string;
  port: number;
  /** A port bound already (src/start.ts binds before building anything): served instead of binding host:port. */
  bound?: BoundPort;
  /** PEM certificate chain and private key. */
  tls?: { cert: string | Buffer; key: string | Buffer };
  /** A connection quiet this long before it has sent a whole request (nothing, a TLS handshake or a request head begun) is closed (default 10 s). */
  idleTimeoutMs?: number;
}

const MASTER_KEY_CHECK = 'crypto.masterKeyCheck';
/** The APIs this server serves, as Service Usage lists them (API-key `apiTargets` name these). */
const servedApis = (mediaServiceName: string) => [
  { name: 'apikeys.googleapis.com', title: 'API Keys API' },
  { name: 'compute.googleapis.com', title: 'Compute Engine API' },
  { name: mediaServiceName, title: 'YouTube Data API v3' },
];

/** The surfaces meant for the machine's own user, never offered to other web origins. */
const LOCAL_SURFACES = ['/_twin/', '/console'];

/** Builds the whole product: store, platform, services and admin API on one Fastify app. */
export async function createCloudtwin(opts: CloudtwinOptions): Promise<Cloudtwin> {
  const env = opts.env ?? process.env;
  const random = opts.seed ? seededRandom(opts.seed) : systemRandom;
  const ids = new Ids(random);
  // The data directory holds sealed secrets (and master.key, admin-token even on PostgreSQL): owner only.
  // Everything the start can be told is wrong about is checked before anything is created.
  const worldFromFile = opts.worldFile === undefined ? undefined : readWorldFile(opts.worldFile);
  // SQLite keeps its database in the data directory; PostgreSQL is reached first, so that one
  // that does not answer leaves no directory behind.
  if (opts.dataDir && !opts.databaseUrl) makeDataDir(opts.dataDir);
  const store = await openStore(opts);
  try {
    if (opts.dataDir && opts.databaseUrl) makeDataDir(opts.dataDir);
    const secrets = new SecretBox(loadMasterKey({ env, dataDir: opts.dataDir, random }), random);
    await verifyMasterKey(store, secrets);
    const { token: adminToken, generated } = resolveAdminToken(opts.adminToken, opts.dataDir, ids);

    const bodyLimit = opts.bodyLimit ?? 4 * 1024 * 1024;
    const app = createHttpApp({ logger: opts.logger ?? false, bodyLimit });
    // Browsers: the Google API surfaces answer any origin as googleapis.com does; the admin API and console stay local.
    const guards = (a: FastifyInstance) => {
      installLocalSurfaceGuard(a, { prefixes: LOCAL_SURFACES, allowedHosts: opts.allowedHosts ?? [] });
      installCors(a, { closedPrefixes: [...LOCAL_SURFACES, '/metrics'] });
    };
    guards(app);
    const clock = new Clock();
    const sharedClock = new SharedClock(store, clock);
    await sharedClock.reload();
    const iam = new IamService(store, ids);
    const access = new AccessControl(iam);
    const credentials = new CredentialGeneration(store, ids);
    const tokens = new AccessTokens(store, ids, credentials);
    const serviceAccountKeys = new ServiceAccountKeys(store, ids, clock, credentials);
    const operations = new OperationEngine(store, clock, app.log);
    await operations.reloadConfig();
    const permissivePrincipal = opts.permissivePrincipal ?? DEFAULT_PERMISSIVE_PRINCIPAL;
    const authenticator = new Authenticator({ mode: opts.auth, permissivePrincipal, tokens, keys: serviceAccountKeys, iam, generation: credentials });
    if (opts.auth === 'permissive') app.log.warn('auth is permissive: every bearer token acts as %s, owner of every project', permissivePrincipal);

    const metrics = installMetrics(app);
    const journal = new Journal({ capacity: opts.journalSize, bodies: opts.journalBodies, projectId: (p) => iam.loadedDirectory()?.project(p)?.projectId });
    const faults = new Faults({ store, clock, ids, resolveProject: async (p) => (await iam.directory()).project(p) });
    await faults.reload();
    // Every call, REST or gRPC, is one record: faulted, metered, logged and journaled in one place.
    const pipeline = new CallPipeline({ journal, stats: metrics.requests, log: app.log, faults, resolveKey: (k) => apikeys.identifyKey(k) });
    // gRPC: the same services, authenticator and call pipeline as REST (see src/platform/grpc/).
    const grpc = new GrpcFront({ authenticator, pipeline, log: app.log });
    installAuthentication(app, authenticator);
    metrics.addCounter({
      name: 'cloudtwin_faults_injected_total',
      help: 'Calls a fault rule acted on, by rule, method id and action.',
      values: () => [...faults.injectedCounts.values()].map((c) => ({ value: c.n, labels: { rule: c.rule, method: c.method, action: c.action } })),
    });
    // Before the services' routes: every route with `config.api` is journaled and may be faulted.
    installCalls(app, pipeline);
    /**
     * A new app with the platform's hooks, as the main app has them (guards, authentication, the
     * call pipeline: fault rules, metrics, the request log and the journal): for a surface built
     * at its first request (mountLazily), whose routes are then what they would be on the main app.
     */
    const surfaceApp = () => {
      const surface = createHttpApp({ logger: opts.logger ? app.log : false, bodyLimit });
      guards(surface);
      installAuthentication(surface, authenticator);
      installCalls(surface, pipeline);
      return surface;
    };
    registerTokenEndpoint(app, { tokens, keys: serviceAccountKeys, iam });
    registerRevokeEndpoint(app, { tokens });
    registerDiscoveryDocuments(app);

    const apikeys = createApiKeys(app, { store, clock, ids, secrets, iam, access, operations, grpc });
    const quota = new Quota(store, clock);
    const media = mountMedia(app, { store, iam, quota, checkKey: apikeys.checkKey, snapshotDir: opts.dataDir, searchThreads: opts.mediaSearchThreads, options: { pathPrefix: opts.mediaPathPrefix, serviceName: opts.mediaServiceName, kindPrefix: opts.mediaKindPrefix }, surfaceApp });
    const compute = mountCompute(app, { store, clock, ids, iam, access, operations, waitTimeoutMs: opts.computeWaitTimeoutMs, surfaceApp });
    createServiceUsage(app, { access, apis: servedApis(media.serviceName) });
    registerConsole(app);
    const world = new WorldService(store, iam, ids, credentials);
    /** What the port speaks once `listen` has run (the health endpoint says it). */
    const serving = { transports: [] as string[] };
    /** Settings other processes (or a snapshot) may have changed: the clock offset and the operations mode. */
    const reloadSharedSettings = async () => {
      await sharedClock.reload();
      await operations.reloadConfig();
      await faults.reload();
    };
    const afterStateChange = async () => {
      operations.forgetNextDue();
      await credentials.replaced();
      apikeys.forgetCachedKeys();
      quota.forgetLeases();
      await reloadSharedSettings();
    };
    const snapshots = new SnapshotService(store, secrets, iam, afterStateChange);
    // The admin API is built at its first request (a start that gets none, a test suite's fixture
    // among them, never loads its routes).
    const adminContext: AdminContext = { adminToken, version: VERSION, store, clock, sharedClock, iam, world, snapshots, tokens, serviceAccountKeys, operations, quota, serving, faults, journal };
    mountLazily(app, {
      prefix: '/_twin/v1/',
      build: async () => {
        const admin = surfaceApp();
        (await import('./admin/plugin.ts')).registerAdmin(admin, adminContext);
        await admin.ready();
        return admin;
      },
    });

    for (const [doc, option] of [[worldFromFile, 'world'], [opts.world, undefined]] as const) {
      if (doc === undefined) continue;
      try {
        await world.apply(doc);
      } catch (err) {
        if (!(err instanceof ApiError)) throw err;
        throw new StartupError(`the world document is not valid: ${err.message}`, { option, exitCode: 2, cause: err });
      }
    }

    const worker = new Worker(
      [
        // Only when another process may have written (never for an in-memory store; a SQLite
        // file's data_version; every tick on PostgreSQL): an idle server queries nothing.
        {
          name: 'shared-settings',
          run: async () => {
            if (!(await store.changedElsewhere())) return;
            operations.forgetNextDue();
            await reloadSharedSettings();
          },
        },
        { name: 'operations', run: () => operations.completeDue() },
        { name: 'operation-retention', run: every(60_000, async () => (await operations.purgeFinished()) + (await compute.purgeForgottenOperations())) },
        { name: 'token-sweep', run: every(60_000, () => tokens.sweep()) },
        // First run a minute after start, then hourly (it needs no time-zone data: `oldestKeptDay`).
        { name: 'quota-retention', run: every(3_600_000, () => quota.purgeOld(), 60_000) },
      ],
      opts.workerIntervalMs ?? 100,
      app.log,
    );
    let listener: Listener | undefined;
    return {
      app,
      store,
      adminToken,
      adminTokenGenerated: generated,
      apikeys,
      media,
      quota,
      compute,
      journal,
      faults,
      worker,
      operations,
      snapshots,
      async listen(o) {
        await app.ready();
        listener = await listenOnPort(fastifyApplication(app, grpc.handler), o);
        serving.transports = listener.transports;
        return listener;
      },
      async close() {
        await listener?.close();
        await worker.stop();
        await app.close();
        await media.close();
        await quota.close();
        await store.close();
      },
    };
  } catch (err) {
    await store.close();
    throw err;
  }
}

/** A task that runs at most once per `ms` of wall time, however often the worker ticks; first after `firstAfterMs`. */
function every(ms: number, fn: () => Promise<unknown>, firstAfterMs = 0): () => Promise<void> {
  let last = firstAfterMs > 0 ? Date.now() - ms + firstAfterMs : 0;
  return async () => {
    if (Date.now() - last < ms) return;
    last = Date.now();
    await fn();
  };
}

/** Reads a world document file (JSON, or YAML for `.yaml`/`.yml`); a file that cannot be read or parsed is a StartupError about `world`. */
export function readWorldFile(file: string): unknown {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const why = code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'a directory, not a file' : code === 'EACCES' ? 'not readable (permission denied)' : `cannot be read (${code ?? err})`;
    throw new StartupError(`${why}; expected a world document file (JSON, or YAML ending in .yaml or .yml)`, { option: 'world', exitCode: 2, cause: err });
  }
  const yaml = /\.ya?ml$/i.test(file);
  try {
    // yaml is loaded only for a YAML world file (start-up cost otherwise).
    return yaml ? (createRequire(import.meta.url)('yaml') as typeof import('yaml')).parse(text) : JSON.parse(text);
  } catch (err) {
    const detail = String((err as Error).message).split('\n')[0];
    throw new StartupError(`not valid ${yaml ? 'YAML' : 'JSON (a file ending in .yaml or .yml is read as YAML)'}: ${detail}`, { option: 'world', exitCode: 2, cause: err });
  }
}

/** Creates the data directory (owner only: it holds sealed secrets); one that cannot be made is a StartupError about `dataDir`. */
function makeDataDir(dir: string): void {
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const why =
      code === 'EEXIST' || code === 'ENOTDIR'
        ? 'a file is in the way (the path, or one of its parents, is a file)'
        : code === 'EACCES' || code === 'EPERM' || code === 'EROFS'
          ? `cannot be created here (${code})`
          : `cannot be created (${code ?? err})`;
    throw new StartupError(`${why}; expected a directory, or a path where one can be created`, { option: 'dataDir', exitCode: 2, cause: err });
  }
}

/** Opens the store; a PostgreSQL that cannot be reached or refuses us is a StartupError about `databaseUrl` that says so. */
async function openStore(opts: CloudtwinOptions): Promise<Store> {
  try {
    return await Store.open({ databaseUrl: opts.databaseUrl, dataDir: opts.dataDir });
  } catch (err) {
    if (!opts.databaseUrl || err instanceof StartupError) throw err;
    throw postgresStartupError(err, opts.databaseUrl);
  }
}

function postgresStartupError(err: unknown, url: string): StartupError | unknown {
  const e = err as NodeJS.ErrnoException & { hostname?: string; address?: string; port?: number };
  let where = 'the server';
  try {
    const u = new URL(url);
    where = `${u.hostname || 'localhost'}:${u.port || 5432}`;
  } catch {
    return new StartupError('not a PostgreSQL URL; expected postgres://USER@HOST:PORT/DATABASE', { option: 'databaseUrl', exitCode: 2, cause: err });
  }
  const fail = (message: string, exitCode: 1 | 2 = 1) => new StartupError(message, { option: 'databaseUrl', exitCode, cause: err });
  switch (e.code) {
    case 'ECONNREFUSED':
      return fail(`PostgreSQL does not answer at ${where} (connection refused); expected a running PostgreSQL server there`);
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return fail(`PostgreSQL host ${e.hostname ?? where} is unknown (${e.code}); expected the host name of a PostgreSQL server`);
    case 'ETIMEDOUT':
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return fail(`PostgreSQL at ${where} cannot be reached (${e.code})`);
    case '28P01':
    case '28000':
      return fail(`PostgreSQL at ${where} refused the credentials: ${e.message}`);
    case '3D000':
      return fail(`PostgreSQL at ${where}: ${e.message}; create it first (CREATE DATABASE ...)`);
    default:
      return e.code && /^[0-9A-Z]{5}$/.test(e.code) ? fail(`PostgreSQL at ${where} refused to start the store: ${e.message}`) : err;
  }
}

/** Refuses to start with a master key other than the one the store's secrets were sealed with. */
async function verifyMasterKey(store: Store, secrets: SecretBox): Promise<void> {
  const check = await readSetting<string | null>(store.db, MASTER_KEY_CHECK, null);
  if (check === null) {
    await writeSetting(store.db, MASTER_KEY_CHECK, secrets.encrypt('cloudtwin', 'master-key-check'));
    return;
  }
  try {
    secrets.decrypt(check, 'master-key-check');
  } catch {
    throw new Error('the master key does not match the one this store was created with (set CLOUDTWIN_MASTER_KEY or use the original data directory)');
  }
}

function resolveAdminToken(given: string | undefined, dataDir: string | undefined, ids: Ids): { token: string; generated: boolean } {
  if (given) return { token: given, generated: false };
  const file = dataDir ? join(dataDir, 'admin-token') : undefined;
  if (file && existsSync(file)) return { token: readFileSync(file, 'utf8').trim(), generated: false };
  const token = 'ctadm_' + ids.base64url(24);
  if (file) {
    writeFileSync(file, token + '\n', { mode: 0o600 });
    chmodSync(file, 0o600);
  }
  return { token, generated: true };
}
